"""The second factor's screens in a real browser at 360 px wide, in English and in Hindi
(ADR 0053): a Magistrate's first sign-in sets an authenticator up (QR code and the key as text),
a wrong code is shown in the error summary and beside the field, the recovery codes are shown
once, and the next sign-in asks for the app's code. axe finds no WCAG A/AA violation on any."""

import re
from base64 import b32decode

import pytest
from django_otp.oath import totp
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import expect

from accounts.twofactor import stored_recovery_code
from tests.browser.conftest import (
    PASSWORD,
    check_a11y,
    check_fits_width,
    fresh_code,
    screenshot,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def look(page, name):
    assert page.viewport_size["width"] == 360
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, name)


def password(page, base, lang):
    page.context.clear_cookies()
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page.goto(f"{base}/login/")
    page.locator("#id_username").fill("magistrate")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("#id_password").press("Enter")


def wrong_code(page, name):
    page.locator("#id_code").fill("000")
    page.locator("#id_code").press("Enter")
    page.wait_for_load_state()
    expect(page.locator(".error-summary")).to_be_visible()
    assert page.locator('.error-summary a[href="#id_code"]').count() == 1
    assert page.locator("#id_code.is-invalid").count() == 1
    look(page, name)


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_second_factor_screens_at_360px(page, live_server, magistrate, lang):
    base = live_server.url

    # First sign-in: the Magistrate must set an authenticator up.
    password(page, base, lang)
    page.wait_for_url("**/accounts/second-factor/setup/**")
    assert page.locator("html").get_attribute("lang") == lang
    expect(page.locator(".second-factor-qr svg")).to_be_visible()
    look(page, f"second-factor-setup-{lang}")
    wrong_code(page, f"second-factor-setup-error-{lang}")

    key = page.locator("#second-factor-key").inner_text().replace(" ", "")
    page.locator("#id_code").fill(f"{totp(b32decode(key)):06d}")
    page.locator("#id_code").press("Enter")
    page.wait_for_url("**/accounts/second-factor/recovery-codes/**")
    assert page.locator(".recovery-codes li").count() == 10
    shown = set(page.locator(".recovery-codes code").all_inner_texts())
    stored = set(
        StaticToken.objects.filter(device__user=magistrate).values_list("token", flat=True)
    )
    assert {stored_recovery_code(code) for code in shown} == stored  # kept hashed
    look(page, f"second-factor-codes-{lang}")
    page.locator("#recovery-codes-continue").click()
    page.wait_for_url(f"{base}/")
    assert TOTPDevice.objects.get(user=magistrate).confirmed

    # The next sign-in asks for the app's code.
    password(page, base, lang)
    page.wait_for_url(re.compile(r"/accounts/second-factor/\?next="))
    look(page, f"second-factor-code-{lang}")
    wrong_code(page, f"second-factor-code-error-{lang}")
    page.locator("#id_code").fill(fresh_code("magistrate"))
    page.locator("#id_code").press("Enter")
    page.wait_for_url(f"{base}/")
