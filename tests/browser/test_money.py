"""The money screens at 360 px wide (s.17): the pound-keeper remits his fines, the clerk confirms
the remittance, receives a surplus into deposit and records an owner's claim with its proof, and
the Magistrate decides it. The feeding-money statement and the money trail are looked at too.
axe-core finds no WCAG A/AA violation on any page visited."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from auctions import services as auctions
from impounding import services as impounding
from office.models import Remittance, SurplusClaim, SurplusDeposit
from tests.auctions.factories import conditions, ready_for_sale, register, schedule
from tests.browser.conftest import check_a11y, check_fits_width, pass_second_factor, screenshot
from tests.impounding.factories import make_entry, pay, set_tariffs
from tests.pdfs import SCAN_PDF

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PDF = SCAN_PDF


def sign_in(page, base, username):
    page.goto(f"{base}/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_label("Password").press("Enter")
    pass_second_factor(page, base, username)


def sign_out(page):
    page.context.clear_cookies()


def look(page, name):
    screenshot(page, f"money-{name}")
    check_a11y(page, name)
    check_fits_width(page)


@pytest.fixture
def money(district, pound, pound_keeper, police_officer):
    """A cow released on payment, and an unclaimed cow sold today with a surplus awaiting the
    office: ₹40,000 of fines in the pound's cash."""
    set_tariffs(district)
    conditions(district)
    entry = make_entry(pound=pound, by=pound_keeper)
    pay(entry, pound_keeper)
    impounding.log_feeding(
        pound=pound,
        by=pound_keeper,
        date=timezone.localdate(),
        animals_fed=2,
        fodder="Green fodder and bhusa",
        cost=Decimal("350.00"),
    )
    sold, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    auction = schedule(pound, police_officer, [[sold.animals.get()]])
    auctions.sell_lot(
        lot=auction.lots.get(),
        buyer=register(auction, police_officer),
        price=Decimal("50000.00"),
        by=police_officer,
    )
    return {"paid": entry, "sold": sold, "surplus": SurplusDeposit.objects.get()}


def test_fines_remitted_and_surplus_claimed(
    page, live_server, money, pound, dm_clerk, magistrate, tmp_path
):
    base = live_server.url

    # The pound-keeper remits the fines he collected.
    sign_in(page, base, "pound_keeper")
    page.goto(base + reverse("office:remittances"))
    assert page.get_by_role("heading", level=1).inner_text() == "Remittances of fines (s.17)"
    look(page, "remittances-keeper")
    page.get_by_role("link", name=f"Remit {pound.name}").click()
    page.wait_for_load_state()
    # The fines of the release (s.13) and of the sale (s.17): ₹20,000 each.
    assert page.get_by_label("Amount remitted (₹)").input_value() == "40000.00"
    look(page, "remittance-new")
    page.get_by_role("button", name="Record the remittance").click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()  # named messages (ADR 0030)
    page.get_by_label("Amount remitted (₹)").fill("45000.00")
    page.get_by_label("Challan or treasury reference").fill("CH/2026/0042")
    page.get_by_label("Treasury or bank").fill("District Treasury, Lucknow")
    page.get_by_role("button", name="Record the remittance").click()
    page.wait_for_load_state()
    expect(page.get_by_text("of fines is waiting to be remitted").first).to_be_visible()
    look(page, "remittance-errors")
    page.get_by_label("Amount remitted (₹)").fill("40000.00")
    page.get_by_role("button", name="Record the remittance").click()
    page.wait_for_url(base + reverse("office:remittances"))
    assert "sent" in page.get_by_role("status").inner_text()
    look(page, "remittances-sent")
    remittance = Remittance.objects.get()

    page.goto(base + reverse("office:feeding_statement", args=[pound.pk]))
    look(page, "feeding-statement")
    page.goto(base + reverse("office:money_trail", args=[money["paid"].pk]))
    look(page, "money-trail-paid")

    # The clerk confirms it, and receives the surplus of the sale into deposit.
    sign_out(page)
    sign_in(page, base, "dm_clerk")
    page.goto(base + reverse("office:remittances"))
    look(page, "remittances-office")
    page.get_by_role("link", name=f"Confirm {remittance.number}").click()
    page.wait_for_load_state()
    look(page, "remittance-confirm")
    page.get_by_role("button", name="Confirm receipt").click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()  # named messages (ADR 0030)
    page.get_by_label("I have checked that this amount reached the treasury").check()
    page.get_by_role("button", name="Confirm receipt").click()
    page.wait_for_url(base + reverse("office:remittances"))
    assert Remittance.objects.get().status == Remittance.Status.CONFIRMED
    look(page, "remittances-confirmed")

    surplus = money["surplus"]
    auction_number = surplus.sale.lot.auction.number
    page.goto(base + reverse("office:surplus"))
    look(page, "surplus-awaiting")
    page.get_by_role("link", name=f"Record receipt {auction_number} lot 1").click()
    page.wait_for_load_state()
    look(page, "surplus-receive")
    page.get_by_role("button", name="Record the receipt").click()
    page.wait_for_url(base + reverse("office:surplus"))
    assert "held until" in page.get_by_role("status").inner_text()
    surplus.refresh_from_db()
    assert surplus.status == SurplusDeposit.Status.HELD
    look(page, "surplus-held")

    page.get_by_role("link", name=f"Record a claim {auction_number} lot 1").click()
    page.wait_for_load_state()
    look(page, "claim-new")
    page.get_by_label("Claimant").fill("Shyam Lal")
    page.get_by_label("Address").fill("Samesi, Mohanlalganj")
    page.get_by_label("Heir of the owner").check()
    page.get_by_label("Proof offered").fill("Death certificate of his father, the owner")
    scan = tmp_path / "proof.pdf"
    scan.write_bytes(PDF)
    page.get_by_label("Scan of the proof (optional)").set_input_files(str(scan))
    page.get_by_role("button", name="Record the claim").click()
    page.wait_for_url(base + reverse("office:surplus"))
    claim = SurplusClaim.objects.get()
    assert claim.capacity == "heir" and claim.proof_scan
    look(page, "surplus-claimed")

    # The Magistrate examines the proof and decides.
    sign_out(page)
    sign_in(page, base, "magistrate")
    page.goto(base + reverse("office:surplus"))
    page.get_by_role("link", name="Decide the claim by Shyam Lal").click()
    page.wait_for_load_state()
    expect(page.get_by_role("link", name="Open the scan")).to_be_visible()
    look(page, "claim-decide")
    page.get_by_label("Claim proved: pay the surplus to the claimant").check()
    page.get_by_label("Findings on the proof").fill("The certificate and the register agree.")
    page.get_by_role("button", name="Record the decision").click()
    page.wait_for_load_state()
    expect(page.get_by_text("Say how the surplus is paid to the claimant.").first).to_be_visible()
    look(page, "claim-decide-errors")
    page.get_by_label("Paid by").select_option("cash")
    page.get_by_role("button", name="Record the decision").click()
    page.wait_for_url(base + reverse("office:surplus"))
    surplus.refresh_from_db()
    assert surplus.status == SurplusDeposit.Status.PAID
    look(page, "surplus-paid")

    page.goto(base + reverse("office:money_trail", args=[money["sold"].pk]))
    expect(
        page.get_by_text("Surplus paid to the owner on a proved claim (s.17)").first
    ).to_be_visible()
    look(page, "money-trail-sold")
