"""The pound-keeper records a day's feeding and a death with the keyboard, at 360 px wide, and
looks at the other custody screens; axe-core finds no WCAG A/AA violation on any of them."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from impounding import services
from impounding.models import AnimalState, FeedingLog
from tests.browser.conftest import check_a11y, check_fits_width, screenshot
from tests.impounding.factories import cow, make_entry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def entry(pound, pound_keeper):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(days=3),
        animals=[cow(), cow(colour="Black", marks="Left horn broken")],
    )


def sign_in(page, base):
    page.goto(f"{base}/login/")
    page.get_by_label("User name").fill("pound_keeper")
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_label("Password").press("Enter")
    page.wait_for_url(f"{base}/")


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"custody-{name}")


def test_keeper_records_feeding_with_the_keyboard(page, live_server, pound, entry):
    base = live_server.url
    sign_in(page, base)
    page.goto(base + reverse("impounding:feeding_log", kwargs={"pk": pound.pk}))
    assert page.get_by_role("heading", level=1).inner_text() == "Feeding and watering"
    expect(page.get_by_text("3 days without a feeding record")).to_be_visible()
    assert page.get_by_label("Animals fed and watered").input_value() == "2"
    # On a 360 px phone today's round starts on the first screen; the missing days are a link.
    fed = page.get_by_label("Animals fed and watered").bounding_box()
    assert fed["y"] + fed["height"] < page.viewport_size["height"], fed
    page.get_by_role("link", name="3 days without a feeding record").click()
    expect(page.locator("#missing-days")).to_be_in_viewport()
    look(page, "feeding-log")

    page.get_by_label("Fodder given").fill("Dry straw 20 kg, green fodder 10 kg")
    page.get_by_label("Cost of fodder (₹)").fill("240")
    page.get_by_label("Cost of fodder (₹)").press("Enter")
    page.wait_for_load_state()
    assert page.get_by_role("status").inner_text().endswith("is recorded.")
    assert FeedingLog.objects.get(pound=pound).cost == 240
    look(page, "feeding-log-recorded")

    # A missing day, from its link; submitted empty first to see the errors.
    page.get_by_role("link", name="Record it").first.click()
    page.wait_for_load_state()
    page.get_by_label("Animals fed and watered").fill("")
    page.get_by_role("button", name="Record feeding and watering").click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()  # named messages (ADR 0030)
    look(page, "feeding-log-errors")


def test_keeper_records_a_death_with_the_keyboard(page, live_server, entry):
    base = live_server.url
    animal = entry.animals.first()
    sign_in(page, base)
    page.goto(base + reverse("impounding:animal_death", kwargs={"pk": animal.pk}))
    look(page, "death")

    page.get_by_role("button", name="Record the death").click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()  # named messages (ADR 0030)
    look(page, "death-errors")

    page.get_by_label("Cause of death").fill("Bloat")
    page.get_by_label("Veterinary officer").fill("Dr Verma")
    page.get_by_label("Veterinary officer").press("Enter")
    page.wait_for_url(base + reverse("impounding:entry", kwargs={"pk": entry.pk}))
    animal.refresh_from_db()
    assert animal.state == AnimalState.DIED


def test_other_custody_screens_are_accessible(page, live_server, entry, pound_keeper):
    base = live_server.url
    first, second = entry.animals.all()
    services.record_escape(
        animal=second, by=pound_keeper, at=timezone.now() - timedelta(hours=1), rescued=True
    )
    sign_in(page, base)
    for name, animal in [
        ("escape", first),
        ("birth", first),
        ("return", second),
        ("return-not-allowed", first),
    ]:
        view = "animal_" + name.split("-")[0]
        page.goto(base + reverse(f"impounding:{view}", kwargs={"pk": animal.pk}))
        look(page, name)
