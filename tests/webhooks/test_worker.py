"""The worker sends the webhooks: a real `manage.py db_worker` process, on the test database,
takes the delivery queued when the release committed and posts it to a receiver."""

import pytest

from tests.impounding.factories import make_entry, pay
from tests.office.test_prepared import run_worker
from tests.webhooks.test_services import Receiver, recipe, subscribe
from webhooks.models import WebhookDelivery

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True), pytest.mark.real_clock]


def test_the_worker_posts_a_release_signed_to_the_receiver(
    administrator, district, pound, pound_keeper, tariffs, settings
):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    receiver = Receiver()
    settings.WEBHOOK_ALLOWED_PORTS = [receiver.server.server_port]
    try:
        _subscription, secret = subscribe(administrator, receiver, district=district)
        pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)  # commits: queued
        run_worker(
            WEBHOOK_ALLOW_HTTP="true",
            WEBHOOK_ALLOWED_NETWORKS="127.0.0.0/8",
            WEBHOOK_ALLOWED_PORTS=str(receiver.server.server_port),
        )
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()
    ((headers, body),) = receiver.received
    assert recipe()(secret, body, headers["PoundAdmin-Signature"])
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.DELIVERED
