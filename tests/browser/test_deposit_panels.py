"""Issue 12, items 10 and 15, in a real browser, in English and Hindi, at 360 px and 1280 px with
axe: the confirmation panel after the Magistrate applies a s.15 deposit and after the pound-keeper
refunds one (s.22), with the deposit receipt as its reference and its document; then the entry's
timeline and the to-do list in Hindi, with no English summary left."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from impounding import services
from impounding.models import Complaint, Deposit
from kernel.models import Event
from tests.browser.conftest import at_both_widths, sign_in
from tests.impounding.factories import cow, deposit, make_entry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def lapsed(pound, keeper):
    """A deposit whose ten days to complain ran out with none: the Magistrate applies it."""
    entry = make_entry(
        pound=pound, by=keeper, animals=[cow()], arrived_at=timezone.now() - timedelta(days=20)
    )
    return deposit(entry, keeper).deposit


def refund_due(pound, keeper, magistrate):
    """A deposit whose complaint was upheld: the pound-keeper hands it back (s.22)."""
    entry = make_entry(pound=pound, by=keeper, animals=[cow()])
    held = deposit(entry, keeper).deposit
    complaint = services.record_complaint(
        entry=entry,
        by=keeper,
        complainant_name="Shyam Lal",
        mode=Complaint.Mode.WRITTEN,
        court="Court of the SDM, Mohanlalganj",
        filed_on=timezone.localdate(),
        deposit=held,
    )
    services.decide_complaint(
        complaint=complaint,
        by=magistrate,
        outcome=Complaint.Outcome.UPHELD,
        decided_on=timezone.localdate(),
        payable_by="Ram Prasad",
    )
    held.refresh_from_db()
    return held


def panel_shows(page, deposit, title):
    receipt = deposit.release.receipt
    panel = page.get_by_test_id("confirmation-panel")
    assert title in panel.get_by_role("heading").inner_text()
    assert panel.locator(".confirmation-reference").inner_text() == receipt.number
    link = panel.get_by_role("link")
    assert link.get_attribute("href") == reverse("impounding:receipt_pdf", args=[receipt.pk])


@pytest.mark.parametrize(
    ("lang", "applied", "refunded", "apply_button", "refund_button"),
    [
        ("en", "applied as payment", "Refund of deposit", "Apply the deposit as payment",
         "Record the refund"),
        ("hi", "समायोजित की गई", "वापसी दर्ज", "जमा राशि को भुगतान में समायोजित करें",
         "वापसी दर्ज करें"),
    ],
)  # fmt: skip
def test_deposit_panels_and_a_hindi_timeline(
    page,
    live_server,
    pound,
    pound_keeper,
    magistrate,
    tariffs,
    lang,
    applied,
    refunded,
    apply_button,
    refund_button,
):
    base = live_server.url
    to_apply, to_refund = lapsed(pound, pound_keeper), refund_due(pound, pound_keeper, magistrate)

    sign_in(page, base, "magistrate", lang)
    page.goto(base + reverse("impounding:deposit_apply", args=[to_apply.pk]))
    page.get_by_role("button", name=apply_button).click()
    page.wait_for_url(base + reverse("impounding:deposits"))
    assert Deposit.objects.get(pk=to_apply.pk).status == Deposit.Status.APPLIED
    panel_shows(page, to_apply, applied)
    at_both_widths(page, f"deposit-applied-{lang}")

    sign_in(page, base, "pound_keeper", lang)
    page.goto(base + reverse("impounding:deposit_refund", args=[to_refund.pk]))
    page.get_by_role("button", name=refund_button).click()
    page.wait_for_url(base + reverse("impounding:deposits"))
    assert Deposit.objects.get(pk=to_refund.pk).status == Deposit.Status.REFUNDED
    panel_shows(page, to_refund, refunded)
    at_both_widths(page, f"deposit-refunded-{lang}")

    if lang != "hi":
        return
    # The refunded entry's timeline: complaint, decision, refund, all in Hindi.
    entry = to_refund.release.impoundment
    page.goto(base + reverse("impounding:entry", args=[entry.pk]))
    html = page.content()
    for event in Event.objects.filter(impoundment=entry):
        assert event.summary not in html, event.summary
    assert "का परिवाद" in html and "की जमा राशि वापस की गई" in html
    at_both_widths(page, "deposit-entry-timeline-hi")
    call_command("run_deadlines", verbosity=0)
    page.goto(base + reverse("office:todos"))
    at_both_widths(page, "deposit-todos-hi")
