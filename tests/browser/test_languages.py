"""Marathi and Tamil are offered beside English and Hindi (ADR 0069): a user switches to each,
the page says so in its lang attribute, fits 360 px, passes axe, and the choice persists."""

import pytest

from demo import staff as demo
from tests.browser.conftest import check_a11y, check_fits_width, screenshot
from tests.browser.test_roles import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_data():
    demo.seed_all()


@pytest.mark.parametrize(("button", "lang"), [("मराठी", "mr"), ("தமிழ்", "ta")])
def test_switch_to_marathi_and_tamil(page, live_server, demo_data, button, lang):
    base = live_server.url
    sign_in(page, base, "keeper")

    page.get_by_role("button", name=button).click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == lang
    assert page.get_by_role("button", name=button).get_attribute("aria-pressed") == "true"
    check_a11y(page, f"keeper home ({lang})")
    check_fits_width(page)
    screenshot(page, f"home-keeper-{lang}")

    page.goto(f"{base}/accounts/me/")
    assert page.locator("html").get_attribute("lang") == lang
    screenshot(page, f"me-keeper-{lang}")
    check_fits_width(page)
