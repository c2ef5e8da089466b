"""Issue 26 in a real browser, in English and Hindi, at 360 px and 1280 px with axe: the keeper's
entry page with the owner's pay link, and the refund by bank transfer of a UPI payment the gateway
never saw (ADR 0083, addendum): prepared with the payer's account, approved by the Magistrate,
settled with the bank's UTR, the account number masked once it is paid. The 80 mm slip with the
pay link is turned to PNG beside the screenshots."""

import shutil
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse

from impounding import documents
from payments.models import Refund, RefundState
from tests.browser.conftest import ARTIFACTS, at_both_widths, sign_in
from tests.payments.conftest import entry  # noqa: F401 - fixture
from tests.payments.test_bank_refunds import upi_paid  # noqa: F401 - fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp") / "shots_pay2"


def look(page, name):
    at_both_widths(page, name)
    if SHOTS.parent.exists():  # a copy where a person looks at them
        SHOTS.mkdir(exist_ok=True)
        shutil.copy(ARTIFACTS / f"{name}-360.png", SHOTS / f"{name}-360.png")


def submit(page):
    page.locator("main form button[type=submit]").first.click()
    page.wait_for_load_state()


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_entry_page_shows_the_pay_link(
    page,
    live_server,
    pound,
    pound_keeper,
    entry,  # noqa: F811
    lang,
):
    pound.upi_vpa, pound.upi_payee_name = "keeper.lko@sbi", "Pound Keeper Lucknow"
    pound.save()
    base = live_server.url
    sign_in(page, base, "pound_keeper", lang)
    page.goto(base + reverse("impounding:entry", args=[entry.pk]))
    assert "/p/" in page.get_by_test_id("pay-link").inner_text()
    look(page, f"entry-paylink-{lang}")
    if lang == "en" and SHOTS.parent.exists():
        SHOTS.mkdir(exist_ok=True)
        pdf = SHOTS / "slip-roll80.pdf"
        pdf.write_bytes(documents.dues_statement(entry, paper="roll80"))
        subprocess.run(  # noqa: S603
            ["/usr/bin/pdftoppm", "-png", "-r", "150", str(pdf), str(SHOTS / "slip-roll80")],
            check=True,
        )


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_a_upi_payment_is_refunded_by_bank_transfer(
    page,
    live_server,
    upi_paid,  # noqa: F811
    dm_clerk,
    magistrate,
    lang,
):
    base = live_server.url
    sign_in(page, base, "dm_clerk", lang)
    page.goto(base + reverse("payments:refund_prepare", args=[upi_paid.pk]))
    page.locator("input[name=reason]").first.check()
    page.fill("input[name=payee_name]", "Ram Prasad")
    page.fill("input[name=account_number]", "123456789012")
    page.fill("input[name=ifsc]", "SBIN1234")
    submit(page)
    assert page.locator("#id_ifsc.is-invalid").count() == 1  # the wrong IFSC, beside its field
    look(page, f"bank-refund-prepare-error-{lang}")
    page.fill("input[name=ifsc]", "SBIN0001234")
    submit(page)
    refund = Refund.objects.get()
    detail = base + reverse("payments:refund", args=[refund.pk])
    page.wait_for_url(detail)

    sign_in(page, base, "magistrate", lang)
    page.goto(detail)
    assert page.get_by_test_id("account-number").inner_text() == "123456789012"
    page.locator("input[name=decision][value=approve]").check()
    look(page, f"bank-refund-decide-{lang}")
    submit(page)

    sign_in(page, base, "dm_clerk", lang)
    page.goto(detail)
    page.fill("input[name=utr]", "SBINR52026120400012345")
    look(page, f"bank-refund-utr-{lang}")
    submit(page)
    page.wait_for_url(detail)
    assert page.get_by_test_id("account-number").inner_text() == "XXXX9012"
    assert "awaiting the gateway" not in page.content()
    look(page, f"bank-refund-done-{lang}")
    refund.refresh_from_db()
    assert refund.state == RefundState.REFUNDED
