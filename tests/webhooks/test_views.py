"""The administrator's webhook screens: make one (its secret shown once, a replayed form makes
no second), errors beside the fields, the deliveries with their tries, stop, send again; each
only for the tokens the administrator manages, and no one else's page at all."""

import pytest
from django.db import transaction
from django.urls import reverse

from accounts.roles import Role
from kernel.events import record_event
from tests.accounts.factories import StateFactory, staff
from tests.api.test_service_tokens import service_token
from webhooks import services
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookSubscription

PAGE = "webhooks:list"
URL = "https://93.184.216.34/hooks/poundadmin"  # a public address; nothing is sent here


def _form(token, **changes):
    return {
        "token": token.pk,
        "url": URL,
        "topics": ["report.sent", "sale.made"],
        "idempotency_key": "8d2f4a10-1b7e-4c3a-9f55-0e6b1c2d3a4b",
    } | changes


@pytest.mark.parametrize("user", ["pound_keeper", "police_officer", "dm_clerk", "magistrate"])
def test_only_the_administrator_opens_the_page(client, role_users, user):
    client.force_login(role_users[user])
    assert client.get(reverse(PAGE)).status_code == 403


def test_page_makes_a_webhook_shows_its_secret_once_and_lists_it(client, administrator, district):
    token, _headers = service_token(administrator, Role.DM_CLERK, district=district)
    client.force_login(administrator)

    first = client.post(reverse(PAGE), _form(token))
    again = client.post(reverse(PAGE), _form(token))

    subscription = WebhookSubscription.objects.get()
    assert first.status_code == 200 and subscription.signing_secret() in first.content.decode()
    assert again.status_code == 302
    assert (subscription.url, subscription.topics) == (URL, ["report.sent", "sale.made"])
    assert (subscription.token, subscription.created_by) == (token, administrator)
    listing = client.get(reverse(PAGE)).content.decode()
    assert URL in listing and "whsec_" not in listing


def test_page_shows_errors_beside_the_fields_in_both_languages(client, administrator, district):
    token, _headers = service_token(administrator, Role.DM_CLERK, district=district)
    client.force_login(administrator)
    bad = _form(token, url="https://10.0.0.7/hooks", topics=[])
    page = client.post(reverse(PAGE), bad).content.decode()
    assert "data-error-summary" in page and "Choose “Topics”." in page
    bad["topics"] = ["sale.made"]
    page = client.post(reverse(PAGE), bad).content.decode()
    assert "private or reserved network" in page
    page = client.post(reverse(PAGE), bad, HTTP_ACCEPT_LANGUAGE="hi").content.decode()
    assert "निजी या आरक्षित नेटवर्क" in page
    assert not WebhookSubscription.objects.exists()


def test_deliveries_page_shows_each_try_and_sends_again(client, administrator, district, pound):
    token, _headers = service_token(administrator, Role.DM_CLERK, district=district)
    subscription, _secret = services.create_subscription(
        by=administrator, token=token, url=URL, topics=["animal.released"]
    )
    with transaction.atomic():
        record_event(action="release.paid", section="s.13", summary="x", by=None, pound=pound)
    delivery = WebhookDelivery.objects.get()
    WebhookAttempt.objects.create(delivery=delivery, number=1, status_code=503, duration_ms=12)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=WebhookDelivery.Status.GAVE_UP, attempts=1
    )
    client.force_login(administrator)

    page = client.get(reverse("webhooks:subscription", args=[subscription.pk])).content.decode()
    assert "HTTP 503" in page and "Send again" in page and str(delivery.pk) in page
    sent = client.post(reverse("webhooks:send_again", args=[subscription.pk, delivery.pk]))
    assert sent.status_code == 302
    delivery.refresh_from_db()
    assert (delivery.status, delivery.resent_by) == (WebhookDelivery.Status.PENDING, administrator)

    stopped = client.post(reverse("webhooks:stop", args=[subscription.pk]))
    assert stopped.status_code == 302
    subscription.refresh_from_db()
    assert subscription.stopped_by == administrator


def test_deliveries_page_queries_do_not_grow_with_its_rows(
    client, administrator, district, pound, django_assert_max_num_queries
):
    token, _headers = service_token(administrator, Role.DM_CLERK, district=district)
    subscription, _secret = services.create_subscription(
        by=administrator, token=token, url=URL, topics=["animal.released"]
    )
    for _ in range(12):
        with transaction.atomic():
            record_event(action="release.paid", section="s.13", summary="x", by=None, pound=pound)
    client.force_login(administrator)
    with django_assert_max_num_queries(15):  # one: the session's second factor (ADR 0053)
        page = client.get(reverse("webhooks:subscription", args=[subscription.pk]))
    assert page.content.decode().count("<code>animal.released</code>") == 12


def test_another_states_administrator_sees_nothing_and_gets_a_404(
    client, administrator, district, state
):
    token, _headers = service_token(administrator, Role.DM_CLERK, district=district)
    subscription, _secret = services.create_subscription(
        by=administrator, token=token, url=URL, topics=["sale.made"]
    )
    elsewhere = staff(
        Role.ADMINISTRATOR, "bihar_admin", state=StateFactory(code="br", name="Bihar")
    )
    client.force_login(elsewhere)

    assert URL not in client.get(reverse(PAGE)).content.decode()
    for name in ("webhooks:subscription", "webhooks:stop"):
        method = client.get if name == "webhooks:subscription" else client.post
        assert method(reverse(name, args=[subscription.pk])).status_code == 404
    made = client.post(reverse(PAGE), _form(token))
    assert made.status_code == 200 and WebhookSubscription.objects.count() == 1


def test_deliveries_page_names_no_member_of_the_public(
    client, administrator, district, pound, pound_keeper, tariffs
):
    """The administrator may not read the public's names (no VIEW_RECORDS), and the body sent
    named no one: the page says "the claimant" where the timeline names him."""
    from tests.impounding.factories import make_entry, pay

    token, _headers = service_token(administrator, Role.DM_CLERK, district=district)
    subscription, _secret = services.create_subscription(
        by=administrator, token=token, url=URL, topics=["animal.released"]
    )
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper, claimant_name="Shyam Lal")
    client.force_login(administrator)
    page = client.get(reverse("webhooks:subscription", args=[subscription.pk])).content.decode()
    assert "released to the claimant" in page and "Shyam Lal" not in page
