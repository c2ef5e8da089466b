"""The District Magistrate's office at 360 px wide: the Magistrate opens the district's home page
(its charts and their tables), applies a deposit and confirms another in advance from the
approvals page, writes off a shortfall, and looks at the court-order check and the to-do list.
axe-core finds no WCAG A/AA violation on any page visited."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from auctions import services as auction_services
from auctions.models import Shortfall
from impounding import services as impounding_services
from impounding.models import CourtOrder, Deposit
from tests.auctions.factories import conditions, ready_for_sale, register, schedule
from tests.browser.conftest import check_a11y, check_fits_width, pass_second_factor, screenshot
from tests.impounding.factories import cow, deposit, goat, make_entry, pay, set_tariffs
from tests.pdfs import SCAN_PDF

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PDF = SCAN_PDF


def sign_in(page, base, username):
    page.goto(f"{base}/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_label("Password").press("Enter")
    pass_second_factor(page, base, username)


def look(page, name):
    screenshot(page, f"office-{name}")
    check_a11y(page, name)
    check_fits_width(page)


@pytest.fixture
def district_at_work(district, pound, pound_keeper, police_officer, dm_clerk):
    """A district with some history: claimed cattle over the last months, a deposit whose time
    to complain has run out and one still inside it, a sale that left a shortfall, and a court
    order to check."""
    set_tariffs(district)
    conditions(district, by=dm_clerk)
    now = timezone.now()
    for days in (3, 35, 70, 100):
        entry = make_entry(
            pound=pound,
            by=pound_keeper,
            arrived_at=now - timedelta(days=days),
            animals=[cow(), goat()],
        )
        pay(entry, pound_keeper, at=now - timedelta(days=days - 2))
    expired = deposit(
        make_entry(pound=pound, by=pound_keeper, arrived_at=now - timedelta(days=12)),
        pound_keeper,
    ).deposit
    fresh = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper).deposit
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    auction = schedule(pound, police_officer, [[entry.animals.get()]])
    auction_services.sell_lot(
        lot=auction.lots.get(),
        buyer=register(auction, police_officer),
        price=Decimal("5000.00"),
        by=police_officer,
    )
    ordered = make_entry(pound=pound, by=pound_keeper)
    order = impounding_services.record_court_order(
        entry=ordered,
        by=pound_keeper,
        animal_ids=[a.pk for a in ordered.animals.all()],
        kind=CourtOrder.Kind.MAGISTRATE,
        court="Court of the Sub-Divisional Magistrate, Mohanlalganj",
        case_number="Misc. 12/2026",
        order_date=timezone.localdate(),
        scan=SimpleUploadedFile("order.pdf", PDF),
        dues_payable_by="Ram Prasad (seizer)",
    )
    call_command("run_deadlines")
    return {
        "expired": expired,
        "fresh": fresh,
        "shortfall": Shortfall.objects.get(),
        "order": order,
    }


def test_magistrate_works_through_the_office(page, live_server, district_at_work, magistrate):
    data = district_at_work
    base = live_server.url
    sign_in(page, base, "magistrate")

    page.get_by_role("link", name="District office").first.click()
    page.wait_for_url(f"{base}/office/")
    assert (
        page.get_by_role("heading", level=1).inner_text().startswith("District Magistrate's office")
    )
    # On a phone the charts are behind a tap, as is each table (a wide screen opens them all).
    page.get_by_text("Charts", exact=True).click()
    for title in (
        "Impoundments per month, by pound",
        "Money by destination (₹)",
        "Average days in custody, by month custody ended",
        "Outcomes per month",
    ):
        expect(page.get_by_role("img", name=title)).to_be_visible()
        expect(page.get_by_role("table", name=f"{title}: the figures")).to_be_visible()
    outcomes = page.get_by_role("table", name="Outcomes per month: the figures").inner_text()
    assert "Claimed (s.13)" in outcomes
    look(page, "dashboard")

    page.get_by_text("Approvals waiting, by kind").click()
    page.get_by_role("link", name="Deposits to apply as payment (s.15)").click()
    page.wait_for_url(f"{base}/office/approvals/#deposits")
    look(page, "approvals")

    receipt = data["fresh"].release.receipt.number
    page.get_by_role("link", name=f"Confirm in advance {receipt}").click()
    page.wait_for_load_state()
    look(page, "deposit-confirm")
    page.get_by_role("button", name="Confirm applying the deposit").click()
    page.wait_for_url(f"{base}/office/approvals/")
    assert "will be applied as payment" in page.get_by_role("status").inner_text()
    fresh = Deposit.objects.get(pk=data["fresh"].pk)
    assert (fresh.status, fresh.application_confirmed_by) == (Deposit.Status.HELD, magistrate)

    receipt = data["expired"].release.receipt.number
    page.get_by_role("link", name=f"Apply {receipt}").click()
    page.wait_for_load_state()
    page.get_by_role("button", name="Apply the deposit as payment").click()
    page.wait_for_load_state()
    assert Deposit.objects.get(pk=data["expired"].pk).status == Deposit.Status.APPLIED

    page.goto(base + reverse("office:approvals"))
    page.get_by_role("link", name="Write off").click()
    page.wait_for_load_state()
    assert "₹25,500.00" in page.get_by_role("table", name="Dues left unpaid").inner_text()
    page.get_by_role("button", name="Write off the shortfall").click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()  # named messages (ADR 0030)
    look(page, "shortfall-errors")
    page.get_by_label("Why the dues are written off").fill("Owner untraceable; cow was old")
    page.get_by_role("button", name="Write off the shortfall").click()
    page.wait_for_url(f"{base}/office/approvals/")
    assert "written off" in page.get_by_role("status").inner_text()
    assert Shortfall.objects.get().status == Shortfall.Status.WRITTEN_OFF
    look(page, "approvals-after")

    page.get_by_role("link", name="Check Misc. 12/2026").click()
    page.wait_for_load_state()
    expect(page.get_by_role("link", name="Open the scan of the order")).to_be_visible()
    look(page, "court-order-review")

    page.get_by_role("button", name="Show or hide the menu").click()
    page.get_by_role("link", name="To do (").click()
    page.wait_for_url(f"{base}/office/todos/")
    look(page, "todos")
