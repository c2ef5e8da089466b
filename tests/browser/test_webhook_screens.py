"""The administrator's webhook screens in a real browser, in English and Hindi, at 360 px and
1280 px with axe: from the service tokens page to the webhooks, a webhook made by keyboard with
its secret shown once, then its deliveries with their tries."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.roles import Role
from accounts.services import create_service_token
from kernel.events import record_event
from tests.browser.conftest import at_both_widths, sign_in
from webhooks.models import WebhookAttempt, WebhookDelivery

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_webhook_made_by_keyboard_and_its_deliveries(
    page, live_server, administrator, district, pound, lang
):
    create_service_token(
        by=administrator,
        name="CCTNS",
        role=Role.POLICE_OFFICER,
        expires_on=timezone.localdate() + timedelta(days=90),
        pound=pound,
    )
    base = live_server.url
    sign_in(page, base, administrator.username, lang)
    page.goto(f"{base}/accounts/service-tokens/")
    page.locator("a[href='/webhooks/']").click()
    page.wait_for_url(f"{base}/webhooks/")
    at_both_widths(page, f"webhooks-empty-{lang}")

    page.locator("#id_token").select_option(
        label=page.locator("#id_token option").nth(1).inner_text()
    )
    page.locator("#id_url").fill("https://93.184.216.34/hooks/cctns")
    page.locator("#id_topics_0").check()
    page.locator("#id_topics_0").press("Enter")
    page.locator(".alert-success code").wait_for()
    assert page.locator(".alert-success code").inner_text().startswith("whsec_")
    at_both_widths(page, f"webhooks-made-{lang}")

    with transaction.atomic():
        record_event(action="s14.reported", section="s.14", summary="R/1", by=None, pound=pound)
    delivery = WebhookDelivery.objects.get()
    WebhookAttempt.objects.create(
        delivery=delivery, number=1, status_code=503, error="", duration_ms=840
    )
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=WebhookDelivery.Status.GAVE_UP, attempts=1, next_attempt_at=None
    )
    page.goto(f"{base}/webhooks/")
    page.locator("table a.text-break").click()
    page.locator("text=HTTP 503").wait_for()
    at_both_widths(page, f"webhooks-deliveries-{lang}")
    page.locator("form[action*='/send/'] button").press("Enter")
    page.wait_for_load_state()
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.PENDING
