"""The District Magistrate's office at 360 px wide: the clerk records a feeding rate order through
the form and finds it in the tariffs list; the Magistrate applies the deposit of a dismissed
complaint; the complaint and refund screens are looked at. axe-core finds no WCAG A/AA violation
on any page visited."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from impounding import services
from impounding.models import Complaint, Deposit, FeedingRateOrder
from kernel.formatting import inr
from tests.browser.conftest import check_a11y, check_fits_width, pass_second_factor, screenshot
from tests.impounding.factories import cow, deposit, goat, make_entry, set_tariffs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, base, username):
    page.goto(f"{base}/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_label("Password").press("Enter")
    pass_second_factor(page, base, username)


def sign_out(page):
    page.context.clear_cookies()


def look(page, name):
    screenshot(page, f"dm-office-{name}")
    check_a11y(page, name)
    check_fits_width(page)


def test_clerk_records_a_feeding_rate_order(page, live_server, district, pound, dm_clerk):
    old_scale, old_order = set_tariffs(district)
    base = live_server.url
    today = timezone.localdate()
    sign_in(page, base, "dm_clerk")

    page.goto(base + reverse("impounding:tariffs"))
    assert page.get_by_role("heading", level=1).inner_text() == "Fines and feeding rates"
    look(page, "tariffs")

    page.get_by_role("link", name="New feeding rate order (s.5)").click()
    page.wait_for_load_state()
    look(page, "feeding-order-new")
    assert page.get_by_label("Description (English)").first.input_value() == "Large animal"

    # Submitted without its reference first, to see the errors beside the fields.
    page.get_by_role("button", name="Record the feeding rate order").click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()  # named messages (ADR 0030)
    look(page, "feeding-order-errors")

    page.get_by_label("Order reference").fill("DM/Pounds/7/2026")
    page.get_by_label("Order date").fill(today.isoformat())
    page.get_by_label("In force from").fill(today.isoformat())
    page.get_by_label("Per head per day (₹)").first.fill("550.00")
    # "Add a rate" adds an empty row in place (JavaScript) and moves the focus into it.
    rows_before = page.locator("#rate-rows fieldset").count()
    page.get_by_role("button", name="Add a rate").click()
    assert page.locator("#rate-rows fieldset").count() == rows_before + 1
    assert page.evaluate("() => document.activeElement.name").endswith("-species")
    page.get_by_role("button", name="Record the feeding rate order").click()
    page.wait_for_url(f"{base}/pound/tariffs/feeding/*/")
    assert page.get_by_role("status").inner_text().startswith("Feeding rate order")
    look(page, "feeding-order")

    order = FeedingRateOrder.objects.get(order_reference="DM/Pounds/7/2026")
    assert order.rates.get(species="cattle", age_class="").amount == 550
    old_order.refresh_from_db()
    assert old_order.valid_to == today - timedelta(days=1)

    page.get_by_role("link", name="Back to fines and feeding rates").click()
    page.wait_for_load_state()
    current = page.get_by_role("region", name="Feeding rate orders in force now or later")
    assert "DM/Pounds/7/2026" in current.inner_text()
    earlier = page.get_by_role("region", name="Earlier feeding rate orders")
    assert old_order.order_reference in earlier.inner_text()
    look(page, "tariffs-after")

    page.get_by_role("link", name=old_scale.notification_number).click()
    page.wait_for_load_state()
    look(page, "fine-scale")
    page.goto(base + reverse("impounding:fine_scale_new"))
    look(page, "fine-scale-new")


@pytest.fixture
def dismissed(district, pound, pound_keeper, magistrate):
    set_tariffs(district)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat()])
    held = deposit(entry, pound_keeper).deposit
    complaint = services.record_complaint(
        entry=entry,
        by=pound_keeper,
        deposit=held,
        complainant_name="Shyam Lal",
        mode=Complaint.Mode.WRITTEN,
        court="Court of the SDM, Mohanlalganj",
        filed_on=timezone.localdate(),
    )
    services.decide_complaint(
        complaint=complaint,
        by=magistrate,
        outcome=Complaint.Outcome.DISMISSED,
        decided_on=timezone.localdate(),
        order_reference="Order 4/2026",
    )
    return held


def test_magistrate_applies_a_dismissed_complaints_deposit(page, live_server, dismissed):
    base = live_server.url
    sign_in(page, base, "magistrate")

    page.goto(base + reverse("impounding:deposits"))
    look(page, "deposits")
    page.get_by_role("link", name=f"Apply {dismissed.release.receipt.number}").click()
    page.wait_for_load_state()
    assert inr(dismissed.fines) in page.content()
    look(page, "deposit-apply")

    page.get_by_role("button", name="Apply the deposit as payment").click()
    page.wait_for_url(f"{base}/pound/deposits/")
    assert "applied as payment" in page.get_by_role("status").inner_text()
    assert Deposit.objects.get(pk=dismissed.pk).status == Deposit.Status.APPLIED
    look(page, "deposits-after")


def test_complaint_decision_and_refund_screens(
    page, live_server, district, pound, pound_keeper, magistrate
):
    set_tariffs(district)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    held = deposit(entry, pound_keeper).deposit
    base = live_server.url

    sign_in(page, base, "pound_keeper")
    page.goto(base + reverse("impounding:complaint_new", args=[entry.pk]))
    look(page, "complaint-new")
    page.get_by_label("Court of the Magistrate").fill("Court of the SDM, Mohanlalganj")
    page.get_by_label("Orally (substance written down by the Magistrate)").check()
    page.get_by_role("button", name="Record the complaint").click()
    page.wait_for_load_state()
    expect(
        page.get_by_text("Write down the substance of the oral complaint.").first
    ).to_be_visible()
    look(page, "complaint-errors")
    page.get_by_label("Substance of the complaint").fill("The cattle were grazing on my own land.")
    page.get_by_role("button", name="Record the complaint").click()
    page.wait_for_load_state()
    complaint = Complaint.objects.get()
    assert complaint.deposit == held

    sign_out(page)
    sign_in(page, base, "magistrate")
    page.goto(base + reverse("impounding:complaint_decide", args=[complaint.pk]))
    look(page, "complaint-decide")
    page.get_by_label("Seizure or detention held illegal (s.22)").check()
    page.get_by_label("Compensation awarded (₹)").fill("100")
    page.get_by_role("button", name="Record the decision").click()
    page.wait_for_load_state()
    assert Deposit.objects.get(pk=held.pk).status == Deposit.Status.REFUND_DUE

    sign_out(page)
    sign_in(page, base, "pound_keeper")
    page.goto(base + reverse("impounding:deposits"))
    look(page, "deposits-keeper")
    page.get_by_role("link", name=f"Record the refund {held.release.receipt.number}").click()
    page.wait_for_load_state()
    look(page, "deposit-refund")
    page.get_by_label("UPI").check()
    page.get_by_role("button", name="Record the refund").click()
    page.wait_for_load_state()
    expect(page.get_by_text("Give the reference of the transfer.").first).to_be_visible()
    look(page, "deposit-refund-errors")
    page.get_by_label("Reference of the transfer").fill("UPI-4455")
    page.get_by_role("button", name="Record the refund").click()
    page.wait_for_url(f"{base}/pound/deposits/")
    assert Deposit.objects.get(pk=held.pk).status == Deposit.Status.REFUNDED
