"""The owner's pay page (docs/decisions/0085) on a phone, in English and in Hindi: the dues now,
the UPI code, "Pay online" to the gateway, and the payment then shown as being confirmed, never
as unpaid; each page passes axe and fits 360 px."""

import shutil
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from payments import owner
from tests.browser.conftest import ARTIFACTS, check_a11y, check_fits_width, screenshot
from tests.impounding.factories import cow, make_entry
from tests.payments.fakegateway import KEY, MERCHANT, FakeGateway

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp") / "shots_payowner"


@pytest.fixture
def gateway(settings):
    with FakeGateway() as gw:
        settings.PAYMENT_GATEWAY = "sbiepay"
        settings.PAYMENT_GATEWAY_URL = gw.url
        settings.PAYMENT_GATEWAY_MERCHANT_ID = MERCHANT
        settings.PAYMENT_GATEWAY_KEY = KEY
        settings.PAYMENT_GATEWAY_TIMEOUT = 5
        yield gw


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"pay-{name}")
    if SHOTS.parent.exists():  # a copy where a person looks at them
        SHOTS.mkdir(exist_ok=True)
        shutil.copy(ARTIFACTS / f"pay-{name}.png", SHOTS / f"pay-{name}.png")


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_owner_pays_from_a_phone(
    page, live_server, pound, pound_keeper, tariffs, gateway, lang
):
    pound.upi_vpa, pound.upi_payee_name = "keeper.lko@sbi", "Pound Keeper Lucknow"
    pound.save()
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])
    base = live_server.url
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    url = base + reverse("pay", args=[owner.pay_link(entry).token])
    page.goto(url)
    assert page.locator("html").get_attribute("lang") == lang
    expect(page.get_by_test_id("pay-total")).to_contain_text("₹")
    assert page.get_by_test_id("upi-link").get_attribute("href").startswith("upi://pay?")
    look(page, f"page-{lang}")

    page.get_by_test_id("pay-online").focus()
    page.keyboard.press("Enter")
    expect(page.locator(f"form[action^='{gateway.url}']")).to_be_visible()
    look(page, f"to-gateway-{lang}")

    page.goto(url)  # back before the gateway answered: being confirmed, not unpaid
    expect(page.get_by_test_id("pay-state")).to_be_visible()
    assert page.get_by_test_id("pay-online").count() == 0
    look(page, f"confirming-{lang}")
