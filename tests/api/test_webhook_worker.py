"""The worker sends the webhooks: a real `manage.py db_worker` process, on the test database,
takes the delivery queued when the release committed and posts it to a receiver."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from api.models import WebhookDelivery
from tests.api.test_webhooks import Receiver, recipe, subscribe
from tests.impounding.factories import make_entry, pay

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True), pytest.mark.real_clock]
ROOT = Path(__file__).resolve().parents[2]


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
        db = settings.DATABASES["default"]
        env = {
            **os.environ,
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
            "WEBHOOK_ALLOW_HTTP": "true",
            "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
            "WEBHOOK_ALLOWED_PORTS": str(receiver.server.server_port),
            "LOG_LEVEL": "ERROR",
        }
        result = subprocess.run(
            [sys.executable, "manage.py", "db_worker", "--batch", "--no-startup-delay"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stdout + result.stderr
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()
    ((headers, body),) = receiver.received
    assert recipe()(secret, body, headers["PoundAdmin-Signature"])
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.DELIVERED
