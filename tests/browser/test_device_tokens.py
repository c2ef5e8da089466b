"""The district administrator's paired phones in a real browser, in English and Hindi, at
360 px and 1280 px with axe: the list, then a phone's token revoked by keyboard after its check
page, and the phone's next sync refused (ADR 0074)."""

import uuid

import pytest
from django.test import Client

from accounts.apitokens import ApiToken
from accounts.device_tokens import pair_device
from tests.browser.conftest import at_both_widths, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_a_lost_phone_is_revoked_by_keyboard(
    page, live_server, administrator, pound_keeper, pound, lang
):
    token, secret = pair_device(
        user=pound_keeper, label="Pound phone", idempotency_key=uuid.uuid4()
    )
    base = live_server.url
    sign_in(page, base, administrator.username, lang)
    page.goto(f"{base}/accounts/staff/")
    page.locator("a[href='/accounts/device-tokens/']").click()
    page.wait_for_url(f"{base}/accounts/device-tokens/")
    at_both_widths(page, f"device-tokens-{lang}")

    page.locator(f"a[href='/accounts/device-tokens/{token.pk}/revoke/']").press("Enter")
    page.wait_for_url(f"{base}/accounts/device-tokens/{token.pk}/revoke/")
    at_both_widths(page, f"device-token-revoke-{lang}")
    page.locator("form button.btn-danger").press("Enter")
    page.wait_for_url(f"{base}/accounts/device-tokens/")
    page.locator("td a.btn-outline-danger").wait_for(state="detached")  # revoked: no button

    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None
    answer = Client().get(
        "/api/v1/field/reference/", {"pound": pound.pk}, HTTP_AUTHORIZATION=f"Bearer {secret}"
    )
    assert answer.status_code == 401
