"""Outbound webhooks (webhooks/services.py, docs/webhooks.md): a delivery for each subscription that
may read the event, written with it; signed so that the documented recipe accepts it; retried
with backoff, logged, given up, sent again; never to a private address."""

import json
import re
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.roles import Role
from kernel.events import record_event
from tests.api.test_service_tokens import service_token
from tests.impounding.factories import make_entry, pay
from webhooks import client, services
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.services import Topic

RECIPE = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"
Status = WebhookDelivery.Status


def recipe():
    """The signature check of docs/webhooks.md, run as a receiver would copy it."""
    (block,) = re.findall(r"^```python\n(.*?)^```$", RECIPE.read_text(), re.S | re.M)
    scope = {}
    exec(block, scope)  # noqa: S102 (the documented code itself)
    return scope["is_from_poundadmin"]


class Receiver:
    """A State system's endpoint on 127.0.0.1: it keeps what arrives and answers `status`."""

    def __init__(self):
        self.received, self.status, self.headers, self.drip = [], 200, {}, False
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append((dict(self.headers), body))
                self.send_response(receiver.status)
                for name, value in receiver.headers.items():
                    self.send_header(name, value)
                if receiver.drip:  # a byte every 0.3 s: each read is quick, the whole is not
                    self.send_header("Content-Length", "40")
                    self.end_headers()
                    for _ in range(40):
                        self.wfile.write(b".")
                        self.wfile.flush()
                        time.sleep(0.3)
                    return
                self.end_headers()
                self.wfile.write(b"thanks")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/poundadmin"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver(settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    settings.WEBHOOK_TIMEOUT_SECONDS = 5
    found = Receiver()
    settings.WEBHOOK_ALLOWED_PORTS = [found.server.server_port]
    yield found
    found.server.shutdown()
    found.server.server_close()


def subscribe(administrator, receiver, topics=(Topic.ANIMAL_RELEASED,), **place):
    place = place or {}
    token, _headers = service_token(administrator, Role.DM_CLERK, **place)
    subscription, secret = services.create_subscription(
        by=administrator, token=token, url=receiver.url, topics=list(topics)
    )
    return subscription, secret


def test_a_release_is_delivered_once_signed_as_the_recipe_checks(
    receiver, administrator, district, pound, pound_keeper, tariffs
):
    subscription, secret = subscribe(administrator, receiver, district=district)
    entry = make_entry(pound=pound, by=pound_keeper)

    pay(entry, pound_keeper)
    (delivery,) = WebhookDelivery.objects.all()
    services.deliver(delivery.pk)

    ((headers, body),) = receiver.received
    assert recipe()(secret, body, headers["PoundAdmin-Signature"])
    assert not recipe()("whsec_another", body, headers["PoundAdmin-Signature"])
    assert not recipe()(secret, body + b" ", headers["PoundAdmin-Signature"])
    payload = json.loads(body)
    assert payload["id"] == headers["PoundAdmin-Delivery"] == str(delivery.pk)
    assert (payload["topic"], payload["action"], payload["section"]) == (
        "animal.released",
        "release.paid",
        "s.13",
    )
    assert payload["entry_id"] == entry.pk and payload["pound_id"] == pound.pk
    assert payload["links"]["entry"].endswith(f"/api/v1/entries/{entry.pk}/")
    assert "Shyam Lal" not in body.decode()  # the public's names stay out of the body
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Status.DELIVERED, 1)
    (attempt,) = WebhookAttempt.objects.all()
    assert (attempt.status_code, attempt.response) == (200, "thanks")


def test_the_recipe_refuses_an_old_signature():
    check = recipe()
    body = b'{"id": "x"}'
    header = services.signature("whsec_s", body, 1_000_000)
    assert check("whsec_s", body, header, now=1_000_100)
    assert not check("whsec_s", body, header, now=1_000_000 + 301)
    assert not check("whsec_s", body, "v1=abc")


@pytest.mark.parametrize("action", sorted(services.TOPIC_OF_ACTION))
def test_each_topic_is_written_with_its_event(receiver, administrator, district, pound, action):
    topic = services.TOPIC_OF_ACTION[action]
    subscribe(administrator, receiver, topics=[topic], district=district)
    with transaction.atomic():
        event = record_event(action=action, section="s.14", summary="x", by=None, pound=pound)
    (delivery,) = WebhookDelivery.objects.all()
    assert (delivery.event_id, delivery.topic) == (event.pk, topic)


def test_other_actions_other_topics_and_other_districts_hear_nothing(
    receiver, administrator, district, other_district, pound
):
    subscribe(administrator, receiver, topics=[Topic.SALE_MADE], district=district)
    subscribe(administrator, receiver, topics=list(Topic.values), district=other_district)
    with transaction.atomic():
        record_event(action="release.paid", section="s.13", summary="x", by=None, pound=pound)
        record_event(action="custody.fed", section="s.9", summary="x", by=None, pound=pound)
    assert not WebhookDelivery.objects.exists()


def test_an_event_rolled_back_sends_nothing(receiver, administrator, district, pound):
    subscribe(administrator, receiver, district=district)
    with pytest.raises(RuntimeError), transaction.atomic():
        record_event(action="release.paid", section="s.13", summary="x", by=None, pound=pound)
        raise RuntimeError
    assert not WebhookDelivery.objects.exists()


def test_a_fault_in_the_fan_out_does_not_fail_the_release(
    receiver, administrator, district, pound, pound_keeper, tariffs, monkeypatch, caplog
):
    subscribe(administrator, receiver, district=district)

    real = services.fan_out

    def broken(event):
        assert real(event)  # the deliveries are written, then a fault
        raise RuntimeError("the fan-out broke")

    monkeypatch.setattr(services, "fan_out", broken)
    entry = make_entry(pound=pound, by=pound_keeper)

    pay(entry, pound_keeper)

    entry.refresh_from_db()
    assert entry.animals.get().state == "released_paid"
    assert not WebhookDelivery.objects.exists()  # its savepoint rolled back
    assert "a listener failed (Outbox)" in caplog.text


def _one_delivery(administrator, receiver, district, pound, **kw):
    subscription, _secret = subscribe(administrator, receiver, district=district, **kw)
    with transaction.atomic():
        record_event(action="release.paid", section="s.13", summary="x", by=None, pound=pound)
    return subscription, WebhookDelivery.objects.get()


def _due_now(delivery):
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


def test_a_failing_receiver_is_tried_later_and_later_then_given_up(
    receiver, settings, administrator, district, pound, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    receiver.status = 503
    _subscription, delivery = _one_delivery(administrator, receiver, district, pound)

    with django_capture_on_commit_callbacks(execute=True):
        services.deliver(delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Status.PENDING, 1)
    wait = delivery.next_attempt_at - timezone.now()
    assert timedelta(seconds=50) < wait <= timedelta(minutes=1)
    queued = DBTaskResult.objects.get(task_path="webhooks.services.deliver_webhook")
    assert queued.args_kwargs["args"] == [str(delivery.pk)]
    assert queued.run_after == delivery.next_attempt_at
    assert services.deliver(delivery.pk) is None  # not due yet: nothing is sent

    for _ in range(2):
        _due_now(delivery)
        services.deliver(delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.next_attempt_at) == (
        Status.GAVE_UP,
        3,
        None,
    )
    assert len(receiver.received) == 3
    assert [a.status_code for a in delivery.attempt_log.all()] == [503, 503, 503]
    assert [int(h["PoundAdmin-Attempt"]) for h, _b in receiver.received] == [1, 2, 3]


def test_the_waits_grow_four_times_to_twelve_hours():
    waits = [services.backoff(n) for n in range(1, 9)]
    minutes = [int(w.total_seconds() // 60) for w in waits]
    assert minutes == [1, 4, 16, 64, 256, 720, 720, 720]


def test_given_up_is_sent_again_by_the_administrator(
    receiver, settings, administrator, district, pound
):
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    receiver.status = 500
    _subscription, delivery = _one_delivery(administrator, receiver, district, pound)
    services.deliver(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == Status.GAVE_UP

    receiver.status = 204
    services.send_again(delivery=delivery, by=administrator)
    services.deliver(delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.resent_by) == (
        Status.DELIVERED,
        2,
        administrator,
    )


def test_one_sender_at_a_time_holds_a_delivery(receiver, administrator, district, pound):
    _subscription, delivery = _one_delivery(administrator, receiver, district, pound)
    assert services.claim(delivery.pk) is not None
    assert services.claim(delivery.pk) is None  # held for the lease
    later = timezone.now() + timedelta(seconds=5 * 6 + 1)
    assert services.claim(delivery.pk, now=later) is not None  # that sender died: taken back


def test_a_try_that_outlived_its_lease_does_not_undo_the_next(
    receiver, administrator, district, pound
):
    _subscription, delivery = _one_delivery(administrator, receiver, district, pound)
    slow = services.claim(delivery.pk)
    later = timezone.now() + timedelta(seconds=5 * 6 + 1)
    fast = services.claim(delivery.pk, now=later)
    services._record(fast, client.Answer(200, "", "ok", 5), give_up=False)
    services._record(slow, client.Answer(None, "timed out", "", 60000), give_up=False)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Status.DELIVERED, 2)
    assert sorted(a.number for a in delivery.attempt_log.all()) == [1, 2]  # both logged


def test_a_receiver_that_drips_its_answer_is_cut_at_the_deadline(
    receiver, settings, administrator, district, pound
):
    settings.WEBHOOK_TIMEOUT_SECONDS = 1
    receiver.status = 200
    receiver.drip = True
    _subscription, delivery = _one_delivery(administrator, receiver, district, pound)
    services.deliver(delivery.pk)
    (attempt,) = WebhookAttempt.objects.all()
    # Cut at the deadline, not after the whole answer: only the deadline writes this error.
    assert attempt.error == "No whole answer within 1 seconds"
    assert WebhookDelivery.objects.get().status == Status.PENDING


def test_a_redirect_is_not_followed(receiver, administrator, district, pound):
    receiver.status, receiver.headers = 302, {"Location": "http://169.254.169.254/latest/"}
    _subscription, delivery = _one_delivery(administrator, receiver, district, pound)
    services.deliver(delivery.pk)
    (attempt,) = WebhookAttempt.objects.all()
    assert (attempt.status_code, attempt.error) == (302, "Redirect not followed")
    assert WebhookDelivery.objects.get().status == Status.PENDING


def test_a_stopped_webhook_gives_up_what_waits_and_gets_no_more(
    receiver, administrator, district, pound
):
    subscription, delivery = _one_delivery(administrator, receiver, district, pound)
    services.stop_subscription(subscription=subscription, by=administrator)
    services.deliver(delivery.pk)
    assert WebhookDelivery.objects.get().status == Status.GAVE_UP
    assert receiver.received == []
    with transaction.atomic():
        record_event(action="release.paid", section="s.13", summary="x", by=None, pound=pound)
    assert WebhookDelivery.objects.count() == 1


def test_a_revoked_token_gets_no_more(receiver, administrator, district, pound):
    from accounts.services import revoke_service_token

    subscription, _secret = subscribe(administrator, receiver, district=district)
    revoke_service_token(token=subscription.token, by=administrator)
    with transaction.atomic():
        record_event(action="release.paid", section="s.13", summary="x", by=None, pound=pound)
    assert not WebhookDelivery.objects.exists()


def test_the_daily_sweep_sends_what_is_due(receiver, administrator, district, pound, capsys):
    _subscription, delivery = _one_delivery(administrator, receiver, district, pound)
    call_command("send_webhooks")
    assert "tried: 1" in capsys.readouterr().out
    assert WebhookDelivery.objects.get().status == Status.DELIVERED
    call_command("send_webhooks")
    assert "tried: 0" in capsys.readouterr().out
    assert len(receiver.received) == 1


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://127.0.0.1:9/x", False),  # the server itself
        ("https://169.254.169.254/latest/meta-data/", False),  # a cloud's metadata address
        ("https://10.1.2.3/x", False),
        ("https://[::1]/x", False),
        ("https://192.168.0.10/x", False),
        ("https://user:secret@93.184.216.34/x", False),
        ("ftp://93.184.216.34/x", False),
        ("http://93.184.216.34/x", False),  # plain http is refused unless allowed
        ("https://no-such-host.invalid/x", False),
        ("https://[::ffff:169.254.169.254]/x", False),  # IPv4-mapped metadata address
        ("https://[::ffff:100.100.100.200]/x", False),  # shared address space, mapped
        ("https://[64:ff9b::a9fe:a9fe]/x", False),  # NAT64 of 169.254.169.254
        ("https://[2002:0a00:0001::1]/x", False),  # 6to4 of 10.0.0.1
        ("https://[::a00:1]/x", False),  # IPv4-compatible 10.0.0.1
        ("https://[2001:0::1]/x", False),  # Teredo
        ("https://93.184.216.34:6379/x", False),  # a port other than 443 and 8443
        ("https://[::ffff:93.184.216.34]/hooks", True),
        ("https://93.184.216.34:8443/hooks", True),
        ("https://93.184.216.34/hooks", True),
        ("https://10.20.1.5/hooks", True),  # in the State data centre's listed network
    ],
)
def test_the_guard_refuses_private_and_odd_addresses(settings, url, allowed):
    settings.WEBHOOK_ALLOWED_NETWORKS = ["10.20.0.0/16"]
    if allowed:
        assert client.checked_address(url)[4]  # the addresses to connect to
    else:
        with pytest.raises(client.AddressRefused):
            client.checked_address(url)


def test_a_private_address_is_refused_when_made_and_when_sent(
    receiver, settings, administrator, district, pound
):
    token, _headers = service_token(administrator, Role.DM_CLERK, district=district)
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    with pytest.raises(ValidationError) as refused:
        services.create_subscription(
            by=administrator, token=token, url=receiver.url, topics=[Topic.SALE_MADE]
        )
    assert "url" in refused.value.message_dict
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    _subscription, delivery = _one_delivery(administrator, receiver, district, pound)
    settings.WEBHOOK_ALLOWED_NETWORKS = []  # the address changed its answer since
    services.deliver(delivery.pk)
    (attempt,) = WebhookAttempt.objects.all()
    assert attempt.status_code is None and "private" in attempt.error
    assert receiver.received == []


def test_the_same_form_twice_is_one_webhook(receiver, administrator, district):
    token, _headers = service_token(administrator, Role.DM_CLERK, district=district)
    key = "5f0c9a11-6c0f-4b9e-9d2a-5b1f3f0c9a11"
    made = [
        services.create_subscription(
            by=administrator,
            token=token,
            url=receiver.url,
            topics=[Topic.SALE_MADE],
            idempotency_key=key,
        )
        for _ in range(2)
    ]
    assert made[0][0] == made[1][0] and made[0][1] and made[1][1] is None
    assert WebhookSubscription.objects.count() == 1
