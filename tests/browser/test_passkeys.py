"""Passkeys in a real browser at 360 px wide, in English and in Hindi (ADR 0061), on Chromium's
virtual authenticator (the DevTools protocol's WebAuthn domain): a Magistrate adds a passkey
from the passkeys page, signs in with it in place of the app's code, and removes it. Where the
browser has no WebAuthn, the passkey button stays hidden and the app's code signs in as before.
axe finds no WCAG A/AA violation on any screen."""

import re

import pytest
from playwright.sync_api import expect

from accounts.models import Passkey, StaffEvent
from tests.browser.conftest import PASSWORD, fresh_code, sign_in
from tests.browser.test_second_factor import look

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
}


@pytest.fixture
def base(live_server, settings):
    # The relying party is the public address: here, the live server's (localhost, which
    # WebAuthn takes as a secure context; an IP address cannot be an RP ID).
    settings.PUBLIC_BASE_URL = live_server.url
    assert live_server.url.startswith("http://localhost:")
    return live_server.url


def virtual_authenticator(page):
    devtools = page.context.new_cdp_session(page)
    devtools.send("WebAuthn.enable")
    devtools.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return devtools


def password(page, base, lang):
    page.context.clear_cookies()
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page.goto(f"{base}/login/")
    page.locator("#id_username").fill("magistrate")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("#id_password").press("Enter")
    page.wait_for_url(re.compile(r"/accounts/second-factor/\?next="))


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_passkey_added_signs_in_and_is_removed_at_360px(page, base, magistrate, lang):
    virtual_authenticator(page)
    sign_in(page, base, "magistrate", lang)

    # Add a passkey from the passkeys page.
    page.goto(f"{base}/accounts/second-factor/passkeys/")
    assert page.locator("html").get_attribute("lang") == lang
    assert page.locator("[data-passkey-unsupported]").is_hidden()
    look(page, f"passkeys-{lang}")
    page.locator("#id_name").fill("Office laptop")
    page.locator("[data-passkey='add'] button[type='submit']").click()
    page.wait_for_selector("th:has-text('Office laptop')")
    passkey = Passkey.objects.get(user=magistrate)
    assert passkey.name == "Office laptop" and passkey.transports
    look(page, f"passkeys-added-{lang}")

    # The next sign-in offers the passkey beside the app's code, and it signs in.
    password(page, base, lang)
    expect(page.locator("#use-passkey")).to_be_visible()
    look(page, f"second-factor-passkey-{lang}")
    page.locator("#use-passkey").click()
    page.wait_for_url(f"{base}/")
    passkey.refresh_from_db()
    assert passkey.last_used_at is not None

    # Remove it: asked first, then gone, and recorded.
    page.goto(f"{base}/accounts/second-factor/passkeys/")
    page.locator("a.btn-outline-danger").click()
    page.wait_for_url("**/remove/")
    look(page, f"passkey-remove-{lang}")
    page.locator("button.btn-danger").click()
    page.wait_for_url("**/second-factor/passkeys/")
    assert not Passkey.objects.filter(user=magistrate).exists()
    assert StaffEvent.objects.filter(action=StaffEvent.Action.PASSKEY_REMOVED).count() == 1
    look(page, f"passkeys-removed-{lang}")


def test_without_webauthn_the_passkey_button_stays_hidden(page, base, magistrate):
    virtual_authenticator(page)
    sign_in(page, base, "magistrate")
    page.goto(f"{base}/accounts/second-factor/passkeys/")
    page.locator("#id_name").fill("Phone")
    page.locator("[data-passkey='add'] button[type='submit']").click()
    page.wait_for_selector("th:has-text('Phone')")

    # A browser without WebAuthn: no passkey button, no script error, and the code signs in.
    page.add_init_script("delete window.PublicKeyCredential;")
    password(page, base, "en")
    assert page.locator("#use-passkey").is_hidden()
    look(page, "second-factor-no-webauthn-en")
    page.locator("#id_code").fill(fresh_code("magistrate"))
    page.locator("#id_code").press("Enter")
    page.wait_for_url(f"{base}/")
