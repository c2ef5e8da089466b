"""The bank statement's upload and review in a real browser, in English and Hindi, at 360 px
and 1280 px with axe: the accounts clerk uploads the recorded MT940 statement, the credits no
payment claims wait in the queue, and the Magistrate sets one aside by keyboard; the clerk, who
imported it, is told another person decides (docs/decisions/0082)."""

from pathlib import Path

import pytest

from payments.models import LineState, PaymentState, StatementLine
from tests.browser.conftest import at_both_widths, sign_in
from tests.impounding.factories import cow, make_entry
from tests.payments.test_reconcile import payment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STATEMENT = Path(__file__).parents[1] / "payments" / "statements" / "sbi-2026-12-04.mt940"


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_a_statement_is_uploaded_and_its_queue_reviewed(
    page, live_server, dm_clerk, magistrate, pound, pound_keeper, tariffs, lang
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    settled = payment(entry, pound_keeper, "PA261204PAY0000001", "1250.00")
    base = live_server.url
    sign_in(page, base, dm_clerk.username, lang)
    page.goto(f"{base}/payments/reconcile/")
    at_both_widths(page, f"reconcile-{lang}")
    page.locator("#id_file").set_input_files(str(STATEMENT))
    page.locator("form[enctype='multipart/form-data'] button.btn-primary").press("Enter")
    page.wait_for_url(f"{base}/payments/reconcile/")
    assert page.locator("table tbody tr").count() == 3  # no payment; two other credits
    at_both_widths(page, f"reconcile-queue-{lang}")
    settled.refresh_from_db()
    assert settled.state == PaymentState.SUCCEEDED

    line = StatementLine.objects.get(utr="634099999999")
    page.goto(f"{base}/payments/reconcile/lines/{line.pk}/")
    assert page.locator("#id_aside-note").count() == 0  # the importer is not offered the forms

    sign_in(page, base, magistrate.username, lang)
    page.goto(f"{base}/payments/reconcile/lines/{line.pk}/")
    at_both_widths(page, f"review-line-{lang}")
    page.locator("#id_aside-note").fill("A fee of another office")
    page.locator("#id_aside-note").press("Enter")
    page.wait_for_url(f"{base}/payments/reconcile/")
    line.refresh_from_db()
    assert line.state == LineState.SET_ASIDE and line.decided_by == magistrate
