"""Phone layouts at 360 x 640 px, in English and Hindi (issue 27, item 3):

- the District Magistrate's office leads with what needs the Magistrate today, one card each,
  its tables folded behind a tap, and the whole page fits in two screens;
- the public notice board shows its first animal on the first screen, its filters folded;
- a new entry with three animals keeps a strip of its parts at the top while it scrolls, and the
  check page shows each animal as a compact list.

Nothing overflows sideways and axe finds no violation; each page is photographed at 360 px.
"""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from tests.auctions.factories import ready_for_sale
from tests.browser.conftest import ARTIFACTS, check_a11y, check_fits_width, screenshot, sign_in
from tests.browser.test_office import district_at_work  # noqa: F401 (a fixture)
from tests.browser.test_roles import sign_in as demo_sign_in
from tests.browser.test_usability import demo_data  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 640}
LANGS = ["en", "hi"]


def top_of(page, selector):
    return page.locator(selector).first.evaluate("e => e.getBoundingClientRect().top + scrollY")


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"phone-{name}")


@pytest.mark.parametrize("lang", LANGS)
def test_dashboard_leads_with_todays_cards_in_two_screens(
    page,
    live_server,
    district_at_work,  # noqa: F811
    magistrate,
    lang,
):
    page.set_viewport_size(PHONE)
    base = live_server.url
    sign_in(page, base, "magistrate", lang)
    page.goto(base + reverse("office:office"))
    screenshot(page, f"phone-dashboard-{lang}")
    cards = page.get_by_test_id("today-cards").locator("article")
    assert cards.count() == 3
    last_card = cards.last.evaluate("e => e.getBoundingClientRect().bottom + scrollY")
    assert top_of(page, "[data-testid=today-cards]") < PHONE["height"]
    assert last_card < 2 * PHONE["height"]
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= 2 * PHONE["height"], f"the office is {height / PHONE['height']:.1f} screens"
    # The tables are behind a tap, and a card's link opens the one it names.
    assert not page.locator("details#overdue").evaluate("e => e.open")
    cards.nth(1).get_by_role("link").click()
    expect(page.locator("details#overdue table")).to_be_visible()
    check_a11y(page, f"dashboard {lang}")
    check_fits_width(page)
    for fold in page.locator("details.fold").all():
        fold.evaluate("e => e.open = true")
    check_fits_width(page)
    check_a11y(page, f"dashboard opened {lang}")
    screenshot(page, f"phone-dashboard-open-{lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_board_shows_its_first_animal_on_the_first_screen(
    page, live_server, pound, pound_keeper, police_officer, tariffs, lang
):
    # A pound with all its particulars on the board: where it is, when it opens, its phone.
    pound.address = "Beside the tehsil office, Nigohan, Lucknow 226302"
    pound.hours = "10:00 to 17:00, Monday to Saturday"
    pound.phone = "0522 234 5678"
    pound.save(update_fields=["address", "hours", "phone"])
    ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    page.set_viewport_size(PHONE)
    base = live_server.url
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page.goto(base + reverse("board"))
    assert top_of(page, "article.card") < PHONE["height"]
    filters = page.locator("details#board-filter")
    assert not filters.evaluate("e => e.open")  # folded while no filter is in use
    look(page, f"board-{lang}")
    filters.locator("summary").click()
    page.locator("#id_species").select_option("cattle")
    page.locator("#board-filter button[type=submit]").click()
    page.wait_for_load_state()
    assert page.locator("details#board-filter").evaluate("e => e.open")  # open while in use
    assert top_of(page, "article.card") > 0
    look(page, f"board-filtered-{lang}")


def fill_animal(page, index, species, sex, age, colour):
    page.select_option(f"#id_animals-{index}-species", species)
    page.select_option(f"#id_animals-{index}-sex", sex)
    page.select_option(f"#id_animals-{index}-age_class", age)
    page.fill(f"#id_animals-{index}-colour", colour)


@pytest.mark.parametrize("lang", LANGS)
def test_long_entry_keeps_its_parts_and_checks_the_animals_compactly(
    page,
    live_server,
    demo_data,  # noqa: F811
    lang,
):
    page.set_viewport_size(PHONE)
    base = live_server.url
    demo_sign_in(page, base, "keeper")
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page.goto(base + reverse("impounding:entry_new"))
    arrived = timezone.localtime() - timedelta(hours=1)
    page.fill("#id_arrived_at", arrived.strftime("%Y-%m-%dT%H:%M"))
    page.fill("#id_seized_at", (arrived - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M"))
    page.fill("#id_seizure_place", "Wheat field by the Sai canal")
    page.locator("input[name=basis][value=s10]").check()
    page.fill("#id_seizer_name", "Ram Prasad Maurya")
    page.fill("#id_seizer_residence", "Nigohan")
    page.select_option("#id_seizer_capacity", "cultivator")
    steps = page.locator("nav[data-form-steps]")
    fill_animal(page, 0, "cattle", "female", "adult", "Brown")
    for index, (species, colour) in enumerate([("buffalo", "Black"), ("goat", "White")], 1):
        page.locator("#add-animal").click()
        fill_animal(page, index, species, "male", "adult", colour)
    expect(steps.locator("[data-animal-count]")).to_have_text("3")
    # Down at the animals, the strip is still on the screen and marks the animals as the step.
    page.locator("#id_animals-2-colour").scroll_into_view_if_needed()
    page.wait_for_timeout(100)
    assert steps.evaluate("e => e.getBoundingClientRect().top") >= 0
    assert steps.evaluate("e => e.getBoundingClientRect().bottom") < PHONE["height"]
    expect(steps.locator("a[aria-current=step]")).to_have_attribute("href", "#animals")
    look(page, f"entry-form-{lang}")
    page.screenshot(path=str(ARTIFACTS / f"phone-entry-form-at-animals-{lang}.png"))

    page.locator("button.btn-lg[type=submit]").click()
    page.locator("button[name=confirm]").wait_for()
    animals = page.locator("section.animal-answers")
    assert animals.count() == 3
    look(page, f"entry-check-{lang}")
    # Three animals, each a compact list of its seven answers: together in 1.5 screens.
    tall = sum(a.evaluate("e => e.getBoundingClientRect().height") for a in animals.all())
    assert tall < 1.5 * PHONE["height"], f"the animals take {tall}px"
    animals.nth(1).get_by_role("button").click()
    page.locator("#id_animals-1-species").wait_for()
    assert page.locator("#id_animals-1-colour").input_value() == "Black"
