"""The s.14 path at 360 px wide: the pound-keeper reports cattle not claimed within seven days,
the officer posts the notice and records the drum proclamations, and anyone finds the animals on
the public notice board; eight days after the notice the officer sells them by public auction, and
the sold animal leaves the board. axe-core finds no WCAG A/AA violation on any page, the public
board included."""

import io
import re
from datetime import datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from PIL import Image
from playwright.sync_api import expect

from auctions.models import Auction, Lot, Notice, Proclamation, Report, Sale
from impounding.models import AnimalState, Impoundment
from kernel.models import Event
from tests import readpdf
from tests.accounts.factories import VillageFactory
from tests.auctions.factories import conditions
from tests.browser.conftest import check_a11y, check_fits_width, pass_second_factor, screenshot
from tests.impounding.factories import cow, goat, make_entry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IST = ZoneInfo("Asia/Kolkata")
PASSWORD = "correct-horse-battery"
COW = "Cattle, Female, Adult, Brown; White star on the forehead"
GOAT = "Goat, Male, Adult, Black"
BOARD_COW = "Cattle, Female, Adult, Brown"  # the board shows no marks, only the description


def jpeg():
    out = io.BytesIO()
    Image.new("RGB", (640, 480), (150, 100, 60)).save(out, format="JPEG")
    return out.getvalue()


@pytest.fixture
def seizure_village(pound):
    """The village of the seizure, and the market village nearest it (the two drums of s.14)."""
    VillageFactory(district=pound.district, name="Mohanlalganj", has_market=True)
    return VillageFactory(district=pound.district, name="Nigohan", name_hi="निगोहाँ")


@pytest.fixture
def entry(pound, pound_keeper, police_officer, tariffs, seizure_village):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(days=10),
        seizure_place="Wheat field by the canal bridge",
        seizure_village=seizure_village,
        notice_description="Brown cow with a white star on the forehead",
        animals=[cow(colour="Brown", marks="White star on the forehead"), goat()],
    )
    entry.animals.get(number=1).photo.save("cow.jpg", ContentFile(jpeg()))
    return entry


def sign_in(page, base, username):
    page.context.clear_cookies()
    page.goto(f"{base}/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    pass_second_factor(page, base, username)


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"unclaimed-{name}")


def keeper_sends_report(page, base, entry, *, due, prefix=""):
    """The pound-keeper: the home page says a report is due; he sends it. `due` is the badge on
    the list of reports due ("due today", "2 days overdue")."""
    sign_in(page, base, "pound_keeper")
    expect(
        page.get_by_text("1 register entry has cattle not claimed within seven days")
    ).to_be_visible()
    look(page, f"{prefix}keeper-home")
    page.get_by_role("link", name="Reports due", exact=True).click()
    page.wait_for_load_state()
    expect(page.get_by_text(due, exact=True)).to_be_visible()
    look(page, f"{prefix}reports-due")
    page.get_by_role("link", name="Send the report").click()
    page.wait_for_load_state()
    expect(page.get_by_text("Wheat field by the canal bridge")).to_be_visible()
    look(page, f"{prefix}report-send")
    page.get_by_role("button", name="Send the report").click()
    page.wait_for_load_state()
    report = Report.objects.get(impoundment=entry)
    assert page.url == base + report.get_absolute_url()
    assert page.get_by_role("status").get_by_role("link", name="Print the report (PDF)").count()
    look(page, f"{prefix}report-sent")
    return report


def officer_posts_notice_and_proclaims(page, base, report, entry, *, prefix=""):
    """The officer: the report waits on his home page; he posts the notice (a blank place is
    refused first), then records the drum in the village and at the market-place."""
    sign_in(page, base, "police_officer")
    expect(page.get_by_role("link", name=report.number)).to_be_visible()
    look(page, f"{prefix}officer-home")
    page.get_by_role("link", name="All reports and notices").click()
    page.wait_for_load_state()
    look(page, f"{prefix}reports")
    page.get_by_role("link", name=report.number).click()
    page.wait_for_load_state()
    look(page, f"{prefix}report")
    page.get_by_role("link", name="Post the notice").click()
    page.wait_for_load_state()
    look(page, f"{prefix}notice-post")
    page.get_by_label("Where it was stuck up").fill("")
    page.get_by_role("button", name="Record the notice").click()
    page.wait_for_load_state()
    # The error summary names the field and links to it (ADR 0030).
    summary = page.locator("[data-error-summary]")
    expect(summary.get_by_role("link", name="Enter “Where it was stuck up”.")).to_be_visible()
    look(page, f"{prefix}notice-post-errors")
    page.get_by_label("Where it was stuck up").fill("Notice board, Thana Nigohan")
    page.get_by_role("button", name="Record the notice").click()
    page.wait_for_load_state()
    notice = Notice.objects.get(report=report)
    assert page.url == base + report.get_absolute_url()
    expect(page.get_by_text("No drum proclamation in the village is recorded.")).to_be_visible()
    look(page, f"{prefix}report-notice-posted")

    # The drum in the village, suggested from the place of seizure; then at the market-place.
    page.get_by_role("link", name="Record the drum in the village").click()
    page.wait_for_load_state()
    assert page.get_by_label("Beat of drum in the village").is_checked()
    assert page.get_by_label("Village", exact=True).input_value() == str(entry.seizure_village_id)
    look(page, f"{prefix}proclamation")
    page.get_by_label("Made by").fill("Chowkidar Ram Khilawan")
    page.get_by_label("Place", exact=True).fill("Chaupal")
    page.get_by_role("button", name="Record the proclamation").click()
    page.wait_for_load_state()
    assert page.get_by_text("No drum proclamation in the village is recorded.").count() == 0
    page.get_by_role("link", name="Record the drum at the market-place").click()
    page.wait_for_load_state()
    page.get_by_label("Made by").fill("Chowkidar Ram Khilawan")
    page.get_by_role("button", name="Record the proclamation").click()
    page.wait_for_load_state()
    assert page.get_by_text("Proclamation by beat of drum not recorded").count() == 0
    assert set(Proclamation.objects.values_list("channel", flat=True)) == {
        "drum_village",
        "drum_market",
    }
    assert Event.objects.filter(section="s.14", action="s14.proclaimed").count() == 2
    look(page, f"{prefix}report-proclaimed")
    return notice


def test_report_notice_proclamation_and_public_board(page, live_server, pound, entry):
    base = live_server.url
    report = keeper_sends_report(page, base, entry, due="2 days overdue")
    notice = officer_posts_notice_and_proclaims(page, base, report, entry)

    # Anyone: the public notice board, without signing in, in English and in Hindi.
    page.context.clear_cookies()
    page.goto(base + "/login/")
    page.get_by_role("link", name="Public notice board").first.click()
    page.wait_for_url(base + reverse("board"))
    expect(page.get_by_role("heading", name=BOARD_COW)).to_be_visible()
    expect(page.get_by_text("Brown cow with a white star on the forehead").first).to_be_visible()
    expect(page.get_by_text(f"{notice.last_day_to_claim:%d-%m-%Y}").first).to_be_visible()
    assert page.get_by_role("img").first.get_attribute("loading") == "lazy"
    assert "Shyam Lal" not in page.content() and "Ram Prasad" not in page.content()
    look(page, "board")
    page.get_by_text("Filter", exact=True).click()  # folded until a filter is in use
    page.get_by_label("Animal").select_option("goat")
    page.get_by_role("button", name="Search").click()
    page.wait_for_load_state()
    assert page.get_by_role("article").count() == 1
    look(page, "board-goats")
    page.get_by_role("button", name="हिन्दी").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "hi"
    look(page, "board-hi")


def test_officer_screens_at_every_stage_are_accessible(
    page, live_server, pound, pound_keeper, police_officer, tariffs, monkeypatch
):
    from auctions import selectors, services
    from tests.auctions.factories import report_and_notice, unclaimed_entry
    from tests.impounding.factories import pay

    monkeypatch.setattr(selectors, "BOARD_SIZE", 2)
    awaiting = services.send_report(
        entry=unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12),
        by=pound_keeper,
        at=timezone.now() - timedelta(days=3),
    )
    in_period, _ = report_and_notice(
        unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=14, animals=[cow(), goat()]),
        pound_keeper,
        police_officer,
        sent_days_ago=5,
        posted_days_ago=4,
    )
    pay(in_period.impoundment, pound_keeper, animals=[in_period.animals.get(species="goat")])
    run_out, _ = report_and_notice(
        unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20, animals=[cow(), cow()]),
        pound_keeper,
        police_officer,
        sent_days_ago=11,
        posted_days_ago=9,
    )
    base = live_server.url
    sign_in(page, base, "police_officer")
    look(page, "stages-officer-home")
    page.goto(base + reverse("auctions:reports"))
    expect(page.get_by_role("link", name=awaiting.number)).to_be_visible()
    look(page, "stages-reports")
    page.get_by_role("link", name=in_period.number).click()
    page.wait_for_load_state()
    expect(page.get_by_text("Released on payment (s.13)")).to_be_visible()
    look(page, "stages-report-claimed")
    page.goto(base + run_out.get_absolute_url())
    expect(page.get_by_role("link", name="Schedule the auction")).to_be_visible()
    look(page, "stages-report-may-be-sold")

    page.context.clear_cookies()
    page.goto(base + reverse("board"))
    assert page.get_by_role("article").count() == 2
    page.get_by_role("link", name="Older notices").click()
    page.wait_for_load_state()
    assert page.get_by_role("article").count() == 1
    expect(page.get_by_text("the owner may still claim it until it is sold")).to_be_visible()
    look(page, "stages-board-older")


def at(day, hour, minute=0):
    return datetime.combine(day, time(hour, minute), tzinfo=IST)


def fill_animal(page, index, species, sex, age, colour, marks=""):
    page.select_option(f"#id_animals-{index}-species", species)
    page.select_option(f"#id_animals-{index}-sex", sex)
    page.select_option(f"#id_animals-{index}-age_class", age)
    page.fill(f"#id_animals-{index}-colour", colour)
    page.fill(f"#id_animals-{index}-marks", marks)


def test_unclaimed_cow_from_arrival_to_auction_sale_and_certificate(
    page,
    live_server,
    time_machine,
    pound,
    district,
    pound_keeper,
    police_officer,
    tariffs,
    seizure_village,
    tmp_path,
):
    # Real dates, ending today: arrival on D, report and notice on D+8, sale on the notice's
    # eighth day after (D+16), today.
    today = datetime.now(IST).date()
    arrival_day, notice_day = today - timedelta(days=16), today - timedelta(days=8)
    conditions(district, place="Cattle market, Mohanlalganj")
    # The longest pound code there may be, so every number built on it (register, auction,
    # certificate) is as long as it gets: at 360 px, none may push the page sideways.
    pound.code = "pound1234567"
    pound.save(update_fields=["code"])
    base = live_server.url

    # Day D: a cow and a goat are brought to the pound; the keeper enters them (s.8).
    time_machine.move_to(at(arrival_day, 9), tick=True)
    sign_in(page, base, "pound_keeper")
    page.get_by_role("link", name="New arrival (s.8)").first.click()
    page.wait_for_load_state()
    look(page, "sale-arrival")
    page.fill("#id_arrived_at", f"{arrival_day.isoformat()}T08:30")
    page.fill("#id_seized_at", f"{arrival_day.isoformat()}T07:00")
    page.get_by_label("Place of seizure").fill("Wheat field by the canal bridge")
    page.get_by_label("Village where the cattle were seized").select_option(str(seizure_village.pk))
    page.get_by_label("s.10: trespass doing damage to land, crop or produce").check()
    page.get_by_label("Seizer's name").fill("Ram Prasad Maurya")
    page.get_by_label("Seizer's residence").fill("Nigohan")
    page.get_by_label("Seizer's capacity").select_option("cultivator")
    fill_animal(page, 0, "cattle", "female", "adult", "Brown", "White star on the forehead")
    page.set_input_files(
        "#id_animals-0-photo",
        files=[{"name": "cow.jpg", "mimeType": "image/jpeg", "buffer": jpeg()}],
    )
    page.get_by_role("button", name="Add another animal").click()
    fill_animal(page, 1, "goat", "male", "adult", "Black")
    page.get_by_role("button", name="Enter in the register").click()
    page.get_by_role("heading", name="Check the entry before it is made (s.8)").wait_for()
    page.get_by_role("button", name="Enter in the register").click()  # the photo went along
    page.wait_for_url(re.compile(r"/pound/entries/\d+/$"))
    entry = Impoundment.objects.get()
    assert entry.arrival_date() == arrival_day
    assert entry.seizure_village_id == seizure_village.pk
    assert [a.description for a in entry.animals.order_by("number")] == [COW, GOAT]
    assert f"Entered in the register as {entry.register_number}." in (
        page.get_by_role("status").first.inner_text()
    )
    look(page, "sale-entry")

    # Day D+8: nobody has claimed them. The keeper reports; the officer posts the notice and has
    # it proclaimed by beat of drum. The auction may not be held for eight days yet.
    time_machine.move_to(at(notice_day, 10), tick=True)
    report = keeper_sends_report(page, base, entry, due="due today", prefix="sale-")
    assert report.due_on == notice_day and report.animals.count() == 2
    notice = officer_posts_notice_and_proclaims(page, base, report, entry, prefix="sale-")
    assert notice.posted_on == notice_day
    assert notice.last_day_to_claim == today - timedelta(days=1)
    assert notice.earliest_sale == today
    expect(page.get_by_text(f"An auction may be held from {today:%d-%m-%Y}.")).to_be_visible()
    # Both drums beaten: the next step offered is the sale, scheduled ahead (ADR 0032).
    expect(page.locator("#drums-done")).to_be_visible()
    assert page.get_by_role("link", name="Schedule the auction").count() == 1

    # Anyone finds both animals on the public board.
    page.context.clear_cookies()
    page.goto(base + reverse("board"))
    expect(page.get_by_role("heading", name=BOARD_COW)).to_be_visible()
    expect(page.get_by_role("heading", name=GOAT)).to_be_visible()
    expect(page.get_by_text(f"{notice.last_day_to_claim:%d-%m-%Y}").first).to_be_visible()
    look(page, "sale-board")

    # Day N+8, today: the earliest lawful day of sale. The officer schedules the auction.
    time_machine.move_to(at(today, 10), tick=True)
    sign_in(page, base, "police_officer")
    page.get_by_role("link", name="All reports and notices").click()
    page.wait_for_load_state()
    look(page, "sale-reports")
    page.get_by_role("link", name=report.number).click()
    page.wait_for_load_state()
    expect(page.get_by_text("may be sold", exact=True)).to_be_visible()
    look(page, "sale-report-may-be-sold")
    page.get_by_role("link", name="Schedule the auction").click()
    page.wait_for_load_state()
    expect(
        page.get_by_text(f"Every animal listed may be sold from {today:%d-%m-%Y}")
    ).to_be_visible()
    look(page, "sale-schedule")
    page.get_by_label("Date and time of sale (IST)").fill(f"{today.isoformat()}T10:15")
    page.get_by_role("button", name="Schedule the auction").click()
    page.wait_for_url(re.compile(r"/auctions/\d+/$"))
    auction = Auction.objects.get()
    assert auction.kind == Auction.Kind.UNCLAIMED and auction.status == Auction.Status.SCHEDULED
    assert timezone.localtime(auction.scheduled_for) == at(today, 10, 15)
    assert auction.place == "Cattle market, Mohanlalganj"
    assert [
        [a.description for a in lot.animals.all()] for lot in auction.lots.order_by("sequence")
    ] == [[COW], [GOAT]]
    look(page, "sale-auction")

    # At the sale: a bidder registers (no match in the staff records) and signs the declaration.
    time_machine.move_to(at(today, 10, 15), tick=True)
    page.get_by_role("link", name="Register a bidder").click()
    page.wait_for_load_state()
    look(page, "sale-bidder")
    page.get_by_label("Name").fill("Mohd. Salim Qureshi")
    page.get_by_label("Address").fill("Bakshi ka Talab")
    page.get_by_label("Identity document").select_option("voter")
    page.get_by_label("Document number").fill("UPV1234567")
    page.get_by_label("Phone").fill("9123456780")
    page.get_by_label("The bidder has signed the declaration above").check()
    page.get_by_role("button", name="Register and check").click()
    page.wait_for_url(re.compile(r"/auctions/\d+/#bidder-\d+$"))
    bidder = auction.bidders.get()
    assert not bidder.blocked and bidder.declaration_signed
    assert "Bidder 1, Mohd. Salim Qureshi, registered." in page.get_by_role("status").inner_text()
    expect(page.locator(f"#bidder-{bidder.pk}").get_by_text("No match")).to_be_visible()

    # Lot 1, the cow: a bid, the hammer, paid by UPI, checked, then recorded.
    page.get_by_role("link", name="Lot 1: bids and hammer").click()
    page.wait_for_load_state()
    expect(page.get_by_text(COW)).to_be_visible()
    look(page, "sale-lot")
    page.get_by_role("combobox", name=re.compile(r"^Bidder")).select_option(
        label="1. Mohd. Salim Qureshi"
    )
    page.get_by_label("Bid (₹)").fill("32000")
    page.get_by_role("button", name="Record the bid").click()
    page.wait_for_load_state()
    assert page.get_by_label("Hammer price (₹)").input_value() == "32000.00"
    page.get_by_label("UPI", exact=True).check()
    page.get_by_label("UPI or other payment reference").fill("UPI 412345678901")
    page.get_by_label("Sale expenses of this lot (₹)").fill("150")
    page.get_by_role("button", name="Continue: check the sale").click()
    page.wait_for_load_state()
    assert page.get_by_role("heading", level=1).inner_text() == "Check the sale of lot 1"
    facts = page.locator("dl").first
    assert "1. Mohd. Salim Qureshi, Bakshi ka Talab" in facts.inner_text()
    assert "₹32,000.00" in facts.inner_text() and "UPI · UPI 412345678901" in facts.inner_text()
    assert Sale.objects.count() == 0
    look(page, "sale-lot-check")
    page.get_by_role("button", name="Record the sale").click()
    page.wait_for_url(re.compile(r"/auctions/\d+/#lot-1$"))

    sale = Sale.objects.select_related("lot", "certificate").get()
    cert = sale.certificate.number
    assert cert == f"CERT/{auction.number.split('/', 1)[1]}/1"
    panel = page.get_by_test_id("confirmation-panel")
    assert panel.get_by_role("heading").inner_text().strip() == (
        f"Lot 1 sold to bidder 1 for ₹32,000.00. Sale certificate {cert}."
    )
    assert panel.get_by_role("link", name="Print the sale certificate (PDF)").count() == 1
    lot1, lot2 = page.locator("#lot-1"), page.locator("#lot-2")
    assert lot1.locator(".badge").inner_text() == "Sold"
    assert lot2.locator(".badge").inner_text() == "To be offered"
    assert "1. Mohd. Salim Qureshi" in lot1.inner_text()
    assert "₹32,000.00" in lot1.inner_text()
    look(page, "sale-auction-sold")
    assert sale.lot.number == 1 and sale.lot.status == Lot.Status.SOLD
    assert Lot.objects.get(auction=auction, number=2).status == Lot.Status.OPEN
    assert (sale.buyer_id, sale.price, sale.expenses) == (bidder.pk, Decimal("32000.00"), 150)
    assert sale.payment_mode == "upi" and sale.payment_reference == "UPI 412345678901"
    # s.17: the expenses, the feeding (17 days at ₹500, arrival and sale days included), the
    # fine (₹20,000 for a cow), and the surplus to the District Magistrate.
    assert (sale.expenses, sale.feeding, sale.fines, sale.surplus, sale.shortfall) == (
        Decimal("150.00"),
        Decimal("8500.00"),
        Decimal("20000.00"),
        Decimal("3350.00"),
        Decimal("0.00"),
    )
    states = dict(entry.animals.values_list("number", "state"))
    assert states == {1: AnimalState.SOLD, 2: AnimalState.IMPOUNDED}

    # The sale certificate: a PDF, with its number in it.
    link = lot1.get_by_role("link", name=f"Sale certificate {cert} (PDF)")
    response = page.request.get(base + link.get_attribute("href"))
    assert response.status == 200
    assert response.headers["content-type"] == "application/pdf"
    with page.expect_download() as info:
        link.click()
    pdf = tmp_path / "certificate.pdf"
    info.value.save_as(pdf)
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.read_bytes() == response.body()
    text = readpdf.text(pdf, layout=True)
    assert cert in text
    assert "Mohd. Salim Qureshi" in text

    # The cow has left the public board; the goat, still to be offered, has not.
    page.context.clear_cookies()
    page.goto(base + reverse("board"))
    assert page.get_by_role("heading", name=BOARD_COW).count() == 0
    expect(page.get_by_role("heading", name=GOAT)).to_be_visible()
    assert page.get_by_role("article").count() == 1
    look(page, "sale-board-after")

    # The ledger: every balance agrees with the postings and the records.
    out, err = io.StringIO(), io.StringIO()
    call_command("check_ledger", stdout=out, stderr=err)
    assert err.getvalue() == ""
    assert re.fullmatch(
        r"[1-9]\d* transactions, \d+ accounts: every balance agrees( \([^)]*\))?\n", out.getvalue()
    )
