"""The webhooks' signing secrets sealed at rest (webhooks/secrets.py, ADR 0060): the database
holds no secret in the clear, so a dump of it signs nothing; the deliveries are still signed as
the recipe checks; a new key is put in front of the old one, the secrets resealed, the old key
dropped; the secrets stored in the clear before are sealed by the migration; and a server with
webhooks but without the key is not ready."""

import importlib
import io
import json
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection

from tests.impounding.factories import make_entry, pay
from tests.webhooks import test_services
from tests.webhooks.test_services import recipe, subscribe
from webhooks import services
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.secrets import InvalidToken, new_key, unseal

receiver = test_services.receiver  # the fixture: a State system's endpoint
SEALING = importlib.import_module("webhooks.migrations.0003_secrets_sealed_at_rest")


def _stored(subscription):
    """The column as a dump of the database shows it."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT secret FROM {WebhookSubscription._meta.db_table} WHERE id = %s",
            [subscription.pk],
        )
        return cursor.fetchone()[0]


def test_the_database_holds_no_secret_in_the_clear(receiver, administrator, district):
    subscription, secret = subscribe(administrator, receiver, district=district)

    stored = _stored(subscription)

    assert secret.startswith("whsec_")
    assert secret not in stored and "whsec_" not in stored
    assert unseal(stored) == secret == subscription.signing_secret()


def test_a_delivery_is_still_signed_with_the_secret_shown(
    receiver, administrator, district, pound, pound_keeper, tariffs
):
    _subscription, secret = subscribe(administrator, receiver, district=district)
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)

    services.deliver(WebhookDelivery.objects.get().pk)

    ((headers, body),) = receiver.received
    assert recipe()(secret, body, headers["PoundAdmin-Signature"])


def test_a_dump_without_the_key_signs_nothing(
    receiver, administrator, district, pound, pound_keeper, tariffs, settings
):
    subscription, _secret = subscribe(administrator, receiver, district=district)
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    settings.WEBHOOK_SECRET_KEYS = [new_key()]  # another server's key: not the one that sealed

    with pytest.raises(InvalidToken):
        unseal(_stored(subscription))
    delivery = services.deliver(WebhookDelivery.objects.get().pk)

    assert receiver.received == []  # never sent unsigned
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert "WEBHOOK_SECRET_KEYS" in attempt.error
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.PENDING


def test_no_key_in_production_refuses_to_make_a_webhook(
    receiver, administrator, district, settings
):
    settings.WEBHOOK_SECRET_KEYS = []

    with pytest.raises(ImproperlyConfigured, match="WEBHOOK_SECRET_KEYS"):
        subscribe(administrator, receiver, district=district)
    assert not WebhookSubscription.objects.exists()


def test_a_new_key_in_front_then_resealed_then_the_old_dropped(
    receiver,
    administrator,
    district,
    settings,
):
    old, new = new_key(), new_key()
    settings.WEBHOOK_SECRET_KEYS = [old]
    subscription, secret = subscribe(administrator, receiver, district=district)
    sealed_with_old = _stored(subscription)

    settings.WEBHOOK_SECRET_KEYS = [new, old]
    subscription.refresh_from_db()
    assert subscription.signing_secret() == secret  # both open, before resealing
    call_command("reseal_webhook_secrets", stdout=io.StringIO())
    settings.WEBHOOK_SECRET_KEYS = [new]

    subscription.refresh_from_db()
    assert _stored(subscription) != sealed_with_old
    assert subscription.signing_secret() == secret
    settings.WEBHOOK_SECRET_KEYS = [old]
    with pytest.raises(InvalidToken):
        subscription.signing_secret()


def test_the_migration_seals_the_secrets_kept_in_the_clear(receiver, administrator, district):
    subscription, secret = subscribe(administrator, receiver, district=district)
    WebhookSubscription.objects.filter(pk=subscription.pk).update(secret=secret)  # as before
    editor = SimpleNamespace(connection=connection)

    SEALING.seal_clear_secrets(apps, editor)
    SEALING.seal_clear_secrets(apps, editor)  # twice: a sealed secret is left as it is

    subscription.refresh_from_db()
    assert secret not in _stored(subscription)
    assert subscription.signing_secret() == secret
    SEALING.open_sealed_secrets(apps, editor)
    assert _stored(subscription) == secret


@pytest.mark.django_db(transaction=True)
def test_readiness_fails_with_a_live_webhook_and_no_key(
    receiver, administrator, district, client, settings
):
    subscribe(administrator, receiver, district=district)
    settings.WEBHOOK_SECRET_KEYS = []

    checks = json.loads(client.get("/healthz/ready").content)["checks"]

    assert checks["webhook_key"] == "fail"
    WebhookSubscription.objects.update(stopped_at="2026-01-01T00:00:00Z")
    assert json.loads(client.get("/healthz/ready").content)["checks"]["webhook_key"] == "ok"
