"""The date boxes of our own (ADR 0081) at 360 px, in English and Hindi: they show and take
DD-MM-YYYY whatever the browser's locale (this browser is en-US), say beside the field what is
wrong, and pass axe; the conditions of sale take a second-language text; the field app's date
boxes show DD-MM-YYYY too."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from impounding.models import AnimalState
from tests.browser.conftest import check_a11y, check_fits_width, sign_in
from tests.browser.field_helpers import open_app, phone  # noqa: F401 (a fixture)
from tests.impounding.factories import cow, make_entry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots27")
ERRORS = {
    "en": "There is no such date as 29-02-2027. Check the day and the month.",
    "hi": "29-02-2027 जैसी कोई तारीख़ नहीं है। दिन और महीना जाँचें।",
}


@pytest.fixture
def browser_context_args(browser_context_args):
    # An English (US) phone: its own picker would read 12/03/2026 for 3 December.
    return {**browser_context_args, "locale": "en-US"}


def shot(page, name):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    shot(page, name)


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_a_death_is_recorded_with_a_date_typed_day_first(
    page, live_server, pound, pound_keeper, lang
):
    base = live_server.url
    arrived = timezone.localtime() - timedelta(days=3)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()], arrived_at=arrived)
    animal = entry.animals.get()
    sign_in(page, base, "pound_keeper", lang)
    page.goto(base + reverse("impounding:animal_death", kwargs={"pk": animal.pk}))
    box = page.locator("#id_at")
    expect(box).to_have_attribute("type", "text")
    expect(box).to_have_attribute("inputmode", "decimal")
    now = timezone.localtime()
    assert box.input_value().startswith(f"{now:%d-%m-%Y} ")  # today, day first
    hint = page.locator("#" + box.get_attribute("aria-describedby").split()[-1])
    expect(hint).to_contain_text("03-12-2026 14:30")

    box.fill("29-02-2027 10:00")
    page.locator("#id_cause").fill("Bloat")
    page.locator("#id_cause").press("Enter")
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_contain_text(ERRORS[lang])
    expect(page.locator("#id_at")).to_have_attribute("aria-invalid", "true")
    look(page, f"death-date-error-{lang}")

    when = now - timedelta(hours=1)
    page.locator("#id_at").fill(f"{when:%d.%m.%Y %H.%M}")  # as a phone's decimal pad types it
    page.locator("#id_cause").fill("Bloat")
    page.locator("#id_cause").press("Enter")
    page.wait_for_url(base + reverse("impounding:entry", kwargs={"pk": entry.pk}))
    animal.refresh_from_db()
    assert animal.state == AnimalState.DIED
    # The page prints the arrival day first, as the box took it.
    expect(page.locator("main")).to_contain_text(f"{arrived:%d-%m-%Y}")


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_conditions_form_takes_the_district_language_at_360_px(
    page, live_server, dm_clerk, lang
):
    base = live_server.url
    sign_in(page, base, "dm_clerk", lang)
    page.goto(base + reverse("auctions:conditions_new"))
    expect(page.locator("#id_order_date")).to_have_attribute("type", "text")
    expect(page.locator("#id_buyer_declarations_hi")).to_be_visible()
    look(page, f"conditions-form-{lang}")


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_field_app_date_boxes_show_day_first(page, live_server, phone, lang):  # noqa: F811
    base = live_server.url
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    open_app(page, base, phone)
    seized = page.locator("#f-seized_at")
    expect(seized).to_have_attribute("type", "text")
    seized.fill("31-04-2026 10:00")
    page.locator("#entry-form button[type=submit]").first.click()
    expect(seized).to_have_attribute("aria-invalid", "true")
    said = page.locator("#" + seized.get_attribute("aria-describedby").split()[0])
    expect(said).to_contain_text("31-04-2026")  # "There is no such date as 31-04-2026."
    look(page, f"field-entry-dates-{lang}")
    page.goto(base + "/field/#feeding")
    today = timezone.localdate()
    expect(page.locator("#f-feeding-date")).to_have_value(f"{today:%d-%m-%Y}")
