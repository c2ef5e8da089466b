"""The s.14 path before the auction, at 360 px wide: the pound-keeper reports cattle not claimed
within seven days, the officer posts the notice and records the drum proclamations, and anyone
finds the animals on the public notice board. axe-core finds no WCAG A/AA violation on any page,
the public board included."""

import io
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from auctions.models import Notice, Proclamation, Report
from impounding.models import Event
from tests.accounts.factories import VillageFactory
from tests.browser.conftest import check_a11y, check_fits_width, screenshot
from tests.impounding.factories import cow, goat, make_entry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"


@pytest.fixture
def entry(pound, pound_keeper, police_officer, tariffs):
    seizure = VillageFactory(district=pound.district, name="Nigohan", name_hi="निगोहाँ")
    VillageFactory(district=pound.district, name="Mohanlalganj", has_market=True)
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(days=10),
        seizure_place="Wheat field by the canal bridge",
        seizure_village=seizure,
        animals=[cow(colour="Brown", marks="White star on the forehead"), goat()],
    )
    out = io.BytesIO()
    Image.new("RGB", (640, 480), (150, 100, 60)).save(out, format="JPEG")
    entry.animals.get(number=1).photo.save("cow.jpg", ContentFile(out.getvalue()))
    return entry


def sign_in(page, base, username):
    page.context.clear_cookies()
    page.goto(f"{base}/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    page.wait_for_url(f"{base}/")


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"unclaimed-{name}")


def serve_media(page, base):
    """The test server does not serve uploads (DEBUG is off): answer them from MEDIA_ROOT."""
    from django.conf import settings

    def fulfil(route):
        path = route.request.url.split("/media/", 1)[1]
        route.fulfill(path=str(settings.MEDIA_ROOT / path))

    page.route(f"{base}/media/**", fulfil)


def test_report_notice_proclamation_and_public_board(page, live_server, pound, entry):
    base = live_server.url
    serve_media(page, base)

    # The pound-keeper: the home page says a report is due; he sends it.
    sign_in(page, base, "pound_keeper")
    assert page.get_by_text(
        "1 register entry has cattle not claimed within seven days"
    ).is_visible()
    look(page, "keeper-home")
    page.get_by_role("link", name="Reports due", exact=True).click()
    page.wait_for_load_state()
    assert page.get_by_text("2 days overdue").is_visible()
    look(page, "reports-due")
    page.get_by_role("link", name="Send the report").click()
    page.wait_for_load_state()
    assert page.get_by_text("Wheat field by the canal bridge").is_visible()
    look(page, "report-send")
    page.get_by_role("button", name="Send the report").click()
    page.wait_for_load_state()
    report = Report.objects.get(impoundment=entry)
    assert page.url == base + report.get_absolute_url()
    assert page.get_by_role("status").get_by_role("link", name="Print the report (PDF)").count()
    look(page, "report-sent")

    # The officer: the report waits on his home page; he posts the notice.
    sign_in(page, base, "police_officer")
    assert page.get_by_role("link", name=report.number).is_visible()
    look(page, "officer-home")
    page.get_by_role("link", name="All reports and notices").click()
    page.wait_for_load_state()
    look(page, "reports")
    page.get_by_role("link", name=report.number).click()
    page.wait_for_load_state()
    look(page, "report")
    page.get_by_role("link", name="Post the notice").click()
    page.wait_for_load_state()
    look(page, "notice-post")
    page.get_by_label("Where it was stuck up").fill("")
    page.get_by_role("button", name="Record the notice").click()
    page.wait_for_load_state()
    assert page.get_by_text("This field is required.").is_visible()
    look(page, "notice-post-errors")
    page.get_by_label("Where it was stuck up").fill("Notice board, Thana Nigohan")
    page.get_by_role("button", name="Record the notice").click()
    page.wait_for_load_state()
    notice = Notice.objects.get(report=report)
    assert page.url == base + report.get_absolute_url()
    assert page.get_by_text("No drum proclamation in the village is recorded.").is_visible()
    look(page, "report-notice-posted")

    # The drum in the village, suggested from the place of seizure; then at the market-place.
    page.get_by_role("link", name="Record the drum in the village").click()
    page.wait_for_load_state()
    assert page.get_by_label("Beat of drum in the village").is_checked()
    assert page.get_by_label("Village", exact=True).input_value() == str(entry.seizure_village_id)
    look(page, "proclamation")
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
    look(page, "report-proclaimed")

    # Anyone: the public notice board, without signing in, in English and in Hindi.
    page.context.clear_cookies()
    page.goto(base + "/login/")
    page.get_by_role("link", name="Public notice board").first.click()
    page.wait_for_url(base + reverse("board"))
    assert page.get_by_role(
        "heading", name="Cattle, Female, Adult, Brown; White star on the forehead"
    ).is_visible()
    assert page.get_by_text(f"{notice.last_day_to_claim:%d-%m-%Y}").first.is_visible()
    assert page.get_by_role("img").first.get_attribute("loading") == "lazy"
    assert "Shyam Lal" not in page.content() and "Ram Prasad" not in page.content()
    look(page, "board")
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
    assert page.get_by_role("link", name=awaiting.number).is_visible()
    look(page, "stages-reports")
    page.get_by_role("link", name=in_period.number).click()
    page.wait_for_load_state()
    assert page.get_by_text("Released on payment (s.13)").is_visible()
    look(page, "stages-report-claimed")
    page.goto(base + run_out.get_absolute_url())
    assert page.get_by_role("link", name="Schedule the auction").is_visible()
    look(page, "stages-report-may-be-sold")

    page.context.clear_cookies()
    page.goto(base + reverse("board"))
    assert page.get_by_role("article").count() == 2
    page.get_by_role("link", name="Older notices").click()
    page.wait_for_load_state()
    assert page.get_by_role("article").count() == 1
    assert page.get_by_text("the owner may still claim it until it is sold").is_visible()
    look(page, "stages-board-older")
