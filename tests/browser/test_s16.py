"""s.16 in the browser: the owner appears and refuses to pay for his three animals. The officer
sells one lot at a time until the running account says the dues are covered, then settles with
the owner, who signs the register; the page shows the account of items (a)-(f). axe-core finds
nothing on any page, at 360 px."""

import re
from datetime import datetime, time, timedelta
from decimal import ROUND_UP, Decimal
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from auctions import services
from auctions.models import Auction, S16Case, Sale
from impounding.models import AnimalState
from kernel.formatting import inr
from ledger.checks import run_checks
from tests.auctions.factories import conditions
from tests.browser.conftest import check_a11y, check_fits_width, pass_second_factor, screenshot
from tests.impounding.factories import cow, goat, make_entry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IST = ZoneInfo("Asia/Kolkata")
PASSWORD = "correct-horse-battery"


def at(day, hour):
    return datetime.combine(day, time(hour), tzinfo=IST)


def sign_in(page, base, username):
    page.context.clear_cookies()
    page.goto(f"{base}/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    pass_second_factor(page, base, username)


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"s16-{name}")


def test_owner_refuses_officer_sells_until_covered_and_settles(
    page, live_server, time_machine, pound, district, pound_keeper, police_officer, tariffs
):
    # Real dates (the browser checks cookie expiry against its own clock): the owner comes
    # yesterday, the sale is today, the day the District Magistrate's conditions allow.
    today = datetime.now(IST).date()
    time_machine.move_to(at(today - timedelta(days=1), 10), tick=True)
    conditions(district, s16_min_gap_days=1, max_expenses_per_lot=Decimal("200.00"))
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow(colour="White"), cow(colour="Black"), goat()],
        arrived_at=at(today - timedelta(days=4), 9),
    )
    base = live_server.url

    # The pound-keeper: the owner appears and refuses to pay for his three animals.
    sign_in(page, base, "pound_keeper")
    page.goto(base + entry.get_absolute_url())
    look(page, "entry")
    page.get_by_role("link", name="Owner refuses to pay (s.16)").click()
    assert page.get_by_role("heading", level=1).inner_text() == "Owner refuses to pay (s.16)"
    look(page, "refusal")
    for animal in entry.animals.order_by("number"):
        page.get_by_role("checkbox", name=re.compile(rf"^{animal.number}\. ")).check()
    page.get_by_label("Owner or agent").fill("Shyam Lal")
    page.get_by_label("Address").fill("Samesi")
    page.get_by_role("button", name="Record the refusal").click()
    page.wait_for_url(re.compile(r"/s16/\d+/$"))
    case = S16Case.objects.get()
    assert case.animals.count() == 3
    assert "Tell the officer" in page.content()
    look(page, "case-refused")

    # The next day, the officer schedules the sale: the cows first, then the goat.
    time_machine.move_to(at(today, 10), tick=True)
    sign_in(page, base, "police_officer")
    page.goto(base + case.get_absolute_url())
    page.get_by_role("link", name="Schedule the s.16 auction").click()
    look(page, "schedule")
    page.get_by_label("Date and time of sale (IST)").fill(f"{today.isoformat()}T11:00")
    page.get_by_role("button", name="Schedule the auction").click()
    page.wait_for_url(re.compile(r"/auctions/\d+/$"))
    auction = Auction.objects.get()
    assert auction.kind == Auction.Kind.OWNER_REFUSED and auction.lots.count() == 3
    look(page, "auction")

    # The sale opens at the hour announced; not a minute before.
    time_machine.move_to(at(today, 11), tick=True)
    sign_in(page, base, "police_officer")  # an hour idle ends the session
    page.goto(base + auction.get_absolute_url())
    # A bidder registers, signing the declaration.
    page.get_by_role("link", name="Register a bidder").click()
    look(page, "bidder")
    page.get_by_label("Name").fill("Mohd. Salim")
    page.get_by_label("Address").fill("Bakshi ka Talab")
    page.get_by_label("Identity document").select_option("voter")
    page.get_by_label("Document number").fill("UP/12/345/678")
    page.get_by_label("Phone").fill("9999911111")
    page.get_by_label("The bidder has signed the declaration above").check()
    page.get_by_role("button", name="Register and check").click()
    page.wait_for_url(re.compile(r"/auctions/\d+/#bidder-\d+$"))
    assert "Bidder 1, Mohd. Salim, registered." in page.get_by_role("status").inner_text()

    # One lot at a time, each for a little more than half the dues, until they are covered.
    owed = services.s16_position(case)["owed"]
    price = ((owed + 200) * Decimal("0.6")).quantize(Decimal("1"), rounding=ROUND_UP)
    sold = 0
    while not page.get_by_text("Dues covered: stop selling.").is_visible():
        assert "Still to cover" in page.content()
        sold += 1
        page.get_by_role("link", name=f"Lot {sold}: bids and hammer").click()
        if sold == 1:
            look(page, "lot")
        page.get_by_role("combobox", name=re.compile(r"^Bidder")).select_option(
            label="1. Mohd. Salim"
        )
        page.get_by_label("Bid (₹)").fill(str(price))
        page.get_by_role("button", name="Record the bid").click()
        page.wait_for_load_state()
        assert page.get_by_label("Hammer price (₹)").input_value() == f"{price}.00"
        page.get_by_label("Sale expenses of this lot (₹)").fill("100")
        page.get_by_role("button", name="Continue: check the sale").click()
        if sold == 1:
            look(page, "lot-check")
        page.get_by_role("button", name="Record the sale").click()
        page.wait_for_url(re.compile(r"/auctions/\d+/#lot-\d+$"))
        assert sold < 3
    assert sold == 2
    assert Sale.objects.count() == 2
    look(page, "auction-covered")

    # Settle with the owner: he signs page 41 of the register.
    page.get_by_role("link", name="Shyam Lal").click()
    page.get_by_role("link", name="Settle with the owner").click()
    look(page, "settle")
    position = services.s16_position(case)
    account = page.locator("#s16-account")
    paid_exp, paid_feed, paid_fines, balance, short = services.allocate(
        position["proceeds"],
        fines=position["fines"],
        feeding=position["feeding"],
        expenses=position["expenses"],
    )
    figures = {
        "a": "3",
        "b": "5 days",  # the day of arrival to today, both counted
        "c": inr(position["owed"]),
        "d": "2",
        "e": inr(position["proceeds"]),
        "f-expenses": inr(paid_exp),
        "f-feeding": inr(paid_feed),
        "f-fines": inr(paid_fines),
        "f-balance": inr(balance),
        "balance": inr(position["balance"]),
        "remaining": "1",
    }
    for item, figure in figures.items():
        assert account.locator(f"#item-{item}").inner_text().strip() == figure, item
    assert balance == position["balance"] > 0 and not any(short.values())
    page.get_by_label("Signed the paper register").check()
    page.get_by_label("Page of the paper register signed").fill("41")
    page.get_by_role("button", name=re.compile(r"^Return 1 animal and pay ")).click()
    page.wait_for_url(re.compile(r"/s16/\d+/$"))
    assert (
        "Settled: the remaining cattle and the balance" in page.get_by_role("status").inner_text()
    )
    look(page, "case-settled")

    case.refresh_from_db()
    assert case.status == S16Case.Status.CLOSED
    assert case.balance == position["balance"] > 0
    assert page.locator("#item-balance").inner_text() == inr(case.balance)
    link = page.get_by_role("link", name=re.compile(r"items \(a\)-\(f\) \(PDF\)"))
    assert link.get_attribute("href") == reverse("auctions:s16_account_pdf", kwargs={"pk": case.pk})
    assert case.animals.filter(state=AnimalState.RETURNED_S16).count() == 1
    assert case.animals.filter(state=AnimalState.SOLD).count() == 2
    assert run_checks() == []
