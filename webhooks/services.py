"""Outbound webhooks: news of four kinds of event for the State systems that subscribe
(docs/webhooks.md, docs/decisions/0042).

- **Written with the event.** When an event of a topic is written (kernel.Event), each live
  subscription whose service token may read it gets a delivery row, in the same transaction:
  an event that is rolled back sends nothing, and one that commits is never lost (an outbox).
  Its body is fixed then, so every try sends the same bytes.
- **Sent by the worker.** After the commit each delivery is queued for the worker
  (docs/decisions/0012). A try that fails is tried again later, each wait four times the last
  (1, 4, 16 and 64 minutes, then about 4 hours, then 12 hours) until WEBHOOK_MAX_ATTEMPTS; then
  the delivery is given up, and the administrator can send it again. `manage.py send_webhooks`,
  in the daily run, sends whatever is due and was not queued (a worker that died mid-try).
- **Signed.** `PoundAdmin-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "<t>." + body>` with
  the subscription's secret, as Stripe signs its webhooks; the receiver checks it with the
  recipe in docs/webhooks.md and refuses an old `t`.
- **Logged.** Every try is a WebhookAttempt: when, the receiver's status and the start of its
  answer, or the error, and how long it took.
"""

import hashlib
import hmac
import json
import logging
import time
import uuid
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, PermissionDenied, ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, models, transaction
from django.tasks import task
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import has_permission
from accounts.service_tokens import managed_service_tokens
from auctions.actions import Action as SalesAction
from impounding.actions import Action as ImpoundingAction
from kernel import retries
from kernel.events import SUMMARY_KEY
from office.actions import Action as OfficeAction

from . import client
from .models import WebhookAttempt, WebhookDelivery, WebhookSubscription
from .secrets import InvalidToken, seal

Status = WebhookDelivery.Status
logger = logging.getLogger(__name__)


class Topic(models.TextChoices):
    REPORT_SENT = "report.sent", _("A s.14 report of unclaimed cattle sent to the police")
    ANIMAL_RELEASED = "animal.released", _("Animals released (on payment, deposit or court order)")
    SALE_MADE = "sale.made", _("A lot sold at auction (s.14, s.16)")
    SURPLUS_TRANSFERRED = "surplus.transferred", _("Surplus proceeds credited to revenue (s.17)")


TOPIC_OF_ACTION = {
    SalesAction.S14_REPORTED: Topic.REPORT_SENT,
    ImpoundingAction.RELEASE_PAID: Topic.ANIMAL_RELEASED,
    ImpoundingAction.RELEASE_DEPOSIT: Topic.ANIMAL_RELEASED,
    ImpoundingAction.RELEASE_COURT_ORDER: Topic.ANIMAL_RELEASED,
    SalesAction.AUCTION_SOLD: Topic.SALE_MADE,
    OfficeAction.SURPLUS_TRANSFERRED: Topic.SURPLUS_TRANSFERRED,
}
# What the subscription's token must be allowed over the event's pound, as its API read needs.
PERMISSION_OF_TOPIC = {
    Topic.REPORT_SENT: Permission.VIEW_RECORDS,
    Topic.ANIMAL_RELEASED: Permission.VIEW_RECORDS,
    Topic.SALE_MADE: Permission.VIEW_RECORDS,
    Topic.SURPLUS_TRANSFERRED: Permission.VIEW_LEDGER,
}
BACKOFF_FIRST = timedelta(minutes=1)
BACKOFF_LONGEST = timedelta(hours=12)
SIGNATURE_HEADER = "PoundAdmin-Signature"


# --- Written with the event -------------------------------------------------------------------


class Outbox:
    """Hears the events of a topic as the kernel writes them (settings.EVENT_LISTENERS), each in
    a savepoint of its own: a fault here is logged, and the release, sale or transfer goes on
    (ADR 0044). Other events cost nothing: the kernel asks `hears` first."""

    def hears(self, event):
        return event.action in TOPIC_OF_ACTION

    def __call__(self, event):
        fan_out(event)


outbox = Outbox()


def fan_out(event):
    """A delivery of `event` for each live subscription to its topic whose token may read it."""
    topic = TOPIC_OF_ACTION[event.action]
    subscriptions = [
        s
        for s in WebhookSubscription.objects.live().select_related("token__user")
        if topic in s.topics
    ]
    # Every topic's event is on a pound's chain; one without a pound is no one's news, rather
    # than everyone's (has_permission without a place asks "anywhere").
    place = Pound.objects.filter(pk=event.pound_id).first() if event.pound_id else None
    if not subscriptions or place is None:
        return []
    deliveries = []
    for subscription in subscriptions:
        if not has_permission(subscription.token.user, PERMISSION_OF_TOPIC[topic], place):
            continue  # another jurisdiction's news: as if there were none
        delivery_id = uuid.uuid4()
        deliveries.append(
            WebhookDelivery(
                id=delivery_id,
                subscription=subscription,
                event_id=event.pk,
                topic=topic,
                body=body_of(delivery_id, topic, event),
                next_attempt_at=event.at,
            )
        )
    WebhookDelivery.objects.bulk_create(deliveries)
    ids = [str(d.pk) for d in deliveries]
    # robust: a queue that fails after the commit must not fail the change; the sweep sends it.
    transaction.on_commit(lambda: [_queue(pk) for pk in ids], robust=True)
    return deliveries


def body_of(delivery_id, topic, event):
    """The JSON body: the event as the log holds it, without its personal fields, and links."""
    base = settings.PUBLIC_BASE_URL
    links = {}
    if event.impoundment_id:
        links["entry"] = f"{base}/api/v1/entries/{event.impoundment_id}/"
    payload = {
        "id": str(delivery_id),
        "topic": str(topic),
        "occurred_at": event.at,
        "action": event.action,
        "section": event.section,
        "summary": event.summary,
        "district_id": event.district_id,
        "pound_id": event.pound_id,
        "entry_id": event.impoundment_id,
        "animal_id": event.animal_id,
        "event": {"chain": event.chain, "seq": event.seq, "hash": event.hash},
        "data": {k: v for k, v in event.data.items() if k != SUMMARY_KEY},
        "links": links,
    }
    return json.dumps(payload, cls=DjangoJSONEncoder, ensure_ascii=False, sort_keys=True)


# --- Signed ----------------------------------------------------------------------------------


def new_secret():
    return f"whsec_{uuid.uuid4().hex}{uuid.uuid4().hex[:16]}"


def signature(secret, body, at):
    """The header's value for `body` (bytes) sent at unix time `at`."""
    mac = hmac.new(secret.encode(), f"{at}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={at},v1={mac}"


def _headers(delivery, secret, body):
    return {
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": "PoundAdmin-Webhooks/1",
        "PoundAdmin-Delivery": str(delivery.pk),
        "PoundAdmin-Topic": delivery.topic,
        "PoundAdmin-Attempt": str(delivery.attempts),
        SIGNATURE_HEADER: signature(secret, body, int(time.time())),
    }


# --- Sent by the worker ------------------------------------------------------------------------


def backoff(attempts):
    """How long to wait after the `attempts`-th try failed."""
    return retries.backoff(attempts, first=BACKOFF_FIRST, longest=BACKOFF_LONGEST)


def _lease():
    # Long enough for one try (its deadline is the timeout); a sender that died gives the
    # delivery back after it. A try that outlived it all the same records only its attempt.
    return timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS * 6)


def claim(delivery_id, now=None):
    """Take a due delivery for one try: count the try and hold it for the lease, so that no
    other sender takes it meanwhile. None if it is not due, or another sender has it."""
    waiting = WebhookDelivery.objects.filter(status=Status.PENDING)
    return retries.claim_due(waiting, delivery_id, lease=_lease(), now=now)


def deliver(delivery_id):
    """One try of a due delivery, outside any transaction (the network is slow); its result
    logged. Returns the delivery, or None when it was not due."""
    delivery = claim(delivery_id)
    if delivery is None:
        return None
    # None once stopped, or once its token is revoked or expired.
    subscription = WebhookSubscription.objects.live().filter(pk=delivery.subscription_id).first()
    stopped = subscription is None
    if stopped:
        answer = client.Answer(None, "The webhook is stopped, or its token has ended.", "", 0)
    else:
        answer = _send(delivery, subscription)
    _record(delivery, answer, give_up=stopped)
    return delivery


def _send(delivery, subscription):
    try:
        secret = subscription.signing_secret()
    except (InvalidToken, ImproperlyConfigured):
        # Never sent unsigned: tried again, as a failure is, once WEBHOOK_SECRET_KEYS holds the
        # key that opens the secret (ADR 0060).
        return client.Answer(None, "The secret cannot be opened: see WEBHOOK_SECRET_KEYS.", "", 0)
    body = delivery.body.encode()
    return client.post(subscription.url, body, _headers(delivery, secret, body))


def _record(delivery, answer, *, give_up):
    now = timezone.now()
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery,
            number=delivery.attempts,
            at=now,
            status_code=answer.status_code,
            error=answer.error,
            response=answer.response,
            duration_ms=answer.duration_ms,
        )
        if answer.ok:
            change = {"status": Status.DELIVERED, "delivered_at": now, "next_attempt_at": None}
        elif give_up or delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
            change = {"status": Status.GAVE_UP, "next_attempt_at": None}
        else:
            change = {"next_attempt_at": now + backoff(delivery.attempts)}
        # Only while this try still holds the delivery: if its lease ran out and another sender
        # took it, that sender's result is the one that counts.
        held = WebhookDelivery.objects.filter(
            pk=delivery.pk, status=Status.PENDING, attempts=delivery.attempts
        ).update(**change)
        for name, value in change.items():
            setattr(delivery, name, value)
        if held and delivery.status == Status.PENDING:
            due = delivery.next_attempt_at
            transaction.on_commit(lambda: _queue(str(delivery.pk), due), robust=True)


def send_due(limit=500):
    """Try every delivery that is due, oldest first (the daily run's sweep); their number."""
    due = list(
        WebhookDelivery.objects.filter(status=Status.PENDING, next_attempt_at__lte=timezone.now())
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(deliver(pk) is not None for pk in due)


@transaction.atomic
def send_again(*, delivery, by):
    """The administrator's "Send again" for a delivery that was given up: one more try now."""
    delivery = (
        WebhookDelivery.objects.select_for_update(of=("self",))
        .select_related("subscription__token")
        .get(pk=delivery.pk)
    )
    if not _manages(by, delivery.subscription.token):
        raise PermissionDenied(_("Your role does not allow this here."))
    if delivery.status != Status.GAVE_UP:
        return delivery
    delivery.status, delivery.next_attempt_at = Status.PENDING, timezone.now()
    delivery.resent_by, delivery.resent_at = by, timezone.now()
    delivery.save(update_fields=["status", "next_attempt_at", "resent_by", "resent_at"])
    transaction.on_commit(lambda: _queue(str(delivery.pk)), robust=True)
    return delivery


@task()
def deliver_webhook(delivery_id):
    """The worker's task: one try of one delivery; its status is the task's result."""
    delivery = deliver(delivery_id)
    return delivery.status if delivery is not None else "not due"


def _queue(delivery_id, run_after=None):
    job = deliver_webhook
    if run_after is not None:
        if not job.get_backend().supports_defer:
            return  # this backend cannot wait: the daily run's sweep sends it when due
        job = job.using(run_after=run_after)
    job.enqueue(delivery_id)


# --- The administrator's subscriptions ---------------------------------------------------------


def create_subscription(*, by, token, url, topics, idempotency_key=None):
    """Subscribe a service token's system to `topics` at `url`. Returns (subscription, secret);
    a replayed form (the same key) gives the first subscription and None. The address is
    checked as every delivery will check it (webhooks.client), so a refused one is said now."""
    if idempotency_key is not None:
        found = WebhookSubscription.objects.filter(idempotency_key=idempotency_key).first()
        if found is not None:
            return found, None
    errors = {}
    if not token.is_live or not token.user.is_service_account:
        errors["token"] = [_("Choose a service token that has not been revoked or expired.")]
    elif not _manages(by, token):
        raise PermissionDenied(_("Your role does not allow this here."))
    unknown = set(topics) - set(Topic.values)
    if not topics or unknown:
        errors["topics"] = [_("Choose at least one topic.")]
    try:
        client.checked_address(url)
    except client.AddressRefused as refused:
        errors["url"] = [str(refused)]
    if errors:
        raise ValidationError(errors)
    secret = new_secret()
    try:
        with transaction.atomic():
            subscription = WebhookSubscription.objects.create(
                token=token,
                url=url,
                topics=sorted(topics),
                secret=seal(secret),
                created_by=by,
                idempotency_key=idempotency_key,
            )
    except IntegrityError:
        found = WebhookSubscription.objects.filter(idempotency_key=idempotency_key).first()
        if found is None:
            raise
        return found, None
    return subscription, secret


@transaction.atomic
def stop_subscription(*, subscription, by):
    """Stop a subscription: nothing more is sent to it, and what waits is given up on its next
    try. Stopping it again changes nothing."""
    subscription = WebhookSubscription.objects.select_for_update(of=("self",)).get(
        pk=subscription.pk
    )
    if not _manages(by, subscription.token):
        raise PermissionDenied(_("Your role does not allow this here."))
    if subscription.stopped_at is None:
        subscription.stopped_at, subscription.stopped_by = timezone.now(), by
        subscription.save(update_fields=["stopped_at", "stopped_by"])
    return subscription


def _manages(user, token):
    return token in managed_service_tokens(user)
