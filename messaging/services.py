"""Messages to owners (docs/decisions/0077): queued with the work that causes them, sent by the
worker, tried again with backoff, never in the way of that work.

- **Queued.** `queue` writes one Message per key (the event, the entry or request, the
  recipient): the same cause replayed finds the first and sends nothing more. Its text is the
  registered template's, filled in, so it matches what the State registered on DLT. It is sent
  by the worker after the commit (an outbox, as the webhooks are): a change rolled back sends
  nothing, and a queue that fails after the commit is swept up by `send_due`.
- **Held or refused, with the reason.** A template with no DLT id yet is held (a gateway would
  block it) until the State fills it in; a phone whose holder opted out gets nothing.
- **Daytime.** A message that is not urgent waits for MESSAGING_DAYTIME; `send_now` (a one-time
  code) goes at once.
- **Sent by the worker.** A try takes the message for a lease, sends it outside any transaction
  and records the outcome: accepted (with the provider's id), delivered where the channel knows,
  or tried again after 1, 4, 16, 64 minutes ... up to MESSAGING_MAX_ATTEMPTS; a refusal is final.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.tasks import task
from django.utils import timezone

from kernel import retries
from kernel.locks import transaction_lock

from . import channels, dlt
from .models import EarlyReport, Event, Message, Phone, Template

Status = Message.Status
logger = logging.getLogger(__name__)
BACKOFF_FIRST = timedelta(minutes=1)
BACKOFF_LONGEST = timedelta(hours=6)
NO_TEMPLATE_ID = "The State has not yet registered this template on DLT: no template id."
OPTED_OUT = "The owner asked for no messages."


class NoTemplate(Exception):
    """No template is registered for the event, in the language or in English."""


# --- Templates ---------------------------------------------------------------------------------


def template_for(event, language):
    found = {
        t.language: t for t in Template.objects.filter(event=event, language__in=[language, "en"])
    }
    template = found.get(language) or found.get("en")
    if template is None:
        raise NoTemplate(event)
    return template


def values_for(template, variables):
    """The placeholders' values, in order. A variable named on several placeholders in a row (a
    link) is spread over them, 30 characters each."""
    names = list(template.variables)
    values, i = [], 0
    while i < len(names):
        run = 1
        while i + run < len(names) and names[i + run] == names[i]:
            run += 1
        value = str(variables.get(names[i], ""))
        if run == 1:
            values.append(value)
        else:
            values += [value[k * dlt.VAR_MAX : (k + 1) * dlt.VAR_MAX] for k in range(run)]
        i += run
    return values


def render(template, variables):
    return dlt.render(template.text, values_for(template, variables))


# --- Queued --------------------------------------------------------------------------------------


def queue(
    *, event, recipient, variables, key, language="en", impoundment=None, urgent=False, channel=None
):
    """Queue one message; the message already queued under `key`, if there is one. Call inside
    the work that causes it: it is sent after that commits."""
    found = Message.objects.filter(key=key).first()
    if found is not None:
        return found
    template = template_for(event, language)
    via = channels.channel(channel)
    text = render(template, variables)
    now = timezone.now()
    message = Message(
        key=key,
        template=template,
        event=event,
        language=template.language,
        variables={k: str(v) for k, v in variables.items()},
        text=text,
        dlt_template_id=template.dlt_template_id,
        segments=dlt.segments(text),
        recipient=recipient,
        channel=via.name,
        urgent=urgent,
        impoundment=impoundment,
        next_attempt_at=now if urgent else dlt.next_daytime(now),
    )
    if not urgent and _opted_out(recipient):
        message.status, message.reason, message.next_attempt_at = Status.REFUSED, OPTED_OUT, None
    elif via.needs_dlt and not template.dlt_template_id:
        message.status, message.reason, message.next_attempt_at = Status.HELD, NO_TEMPLATE_ID, None
    try:
        with transaction.atomic():
            message.save(force_insert=True)
    except IntegrityError:  # the same cause, at the same moment
        return Message.objects.get(key=key)
    if message.status == Status.QUEUED:
        due = message.next_attempt_at
        transaction.on_commit(lambda: _queue(str(message.pk), due), robust=True)
    return message


def send_now(*, event, recipient, variables, key, language="en", channel=None):
    """An urgent message (a one-time code): goes at once, day or night, to whoever asked for it."""
    return queue(
        event=event,
        recipient=recipient,
        variables=variables,
        key=key,
        language=language,
        urgent=True,
        channel=channel,
    )


def send_one_time_code(*, phone, code, key, language="en"):
    """The one-time code that confirms a phone (a lost-cattle report), sent now."""
    return send_now(
        event=Event.ONE_TIME_CODE,
        recipient=channels.mobile(phone),
        variables={"code": code},
        key=f"otp:{key}",
        language=language,
    )


def _opted_out(recipient):
    number = channels.mobile(recipient)
    return Phone.objects.filter(number=number, opted_out_at__isnull=False).exists()


# --- The owner's phone -------------------------------------------------------------------------


def phone(number):
    number = channels.mobile(number)
    if len(number) != 10:
        raise ValueError("A 10-digit mobile number is needed.")
    return Phone.objects.get_or_create(number=number)[0]


def opt_out(number, *, at=None):
    """The phone's holder asked for no more messages: none is queued to it from now, and those
    waiting are not sent."""
    found = phone(number)
    found.opted_out_at = at or timezone.now()
    found.save(update_fields=["opted_out_at"])
    Message.objects.filter(recipient=found.number, status__in=[Status.QUEUED, Status.HELD]).filter(
        urgent=False
    ).update(status=Status.REFUSED, reason=OPTED_OUT, next_attempt_at=None)
    return found


def opt_in(number):
    """The holder asks for the messages again: those queued from now on are sent (those refused
    while opted out stay refused)."""
    found = phone(number)
    if found.opted_out_at is not None:
        found.opted_out_at = None
        found.save(update_fields=["opted_out_at"])
    return found


def record_whatsapp_consent(number, *, at=None):
    found = phone(number)
    found.whatsapp_consent_at = at or timezone.now()
    found.save(update_fields=["whatsapp_consent_at"])
    return found


# --- Sent by the worker ------------------------------------------------------------------------


def backoff(attempts):
    return retries.backoff(attempts, first=BACKOFF_FIRST, longest=BACKOFF_LONGEST)


def _lease():
    return timedelta(seconds=settings.MESSAGING_TIMEOUT_SECONDS * 6)


def claim(message_id, now=None):
    """Take a due message for one try and hold it for the lease; None if not due or taken."""
    waiting = Message.objects.select_related("template").filter(status=Status.QUEUED)
    return retries.claim_due(waiting, message_id, lease=_lease(), now=now)


def deliver(message_id):
    """One try of a due message, outside any transaction; None when it was not due."""
    message = claim(message_id)
    if message is None:
        return None
    try:
        outcome = channels.channel(message.channel).send(message)
    except Exception as error:  # a fault of ours: logged, and tried again like a gateway's
        logger.exception("Message %s: the channel failed", message.pk)
        outcome = channels.Outcome(False, error=type(error).__name__)
    _record(message, outcome)
    return message


def _record(message, outcome):
    now = timezone.now()
    if outcome.accepted:
        change = {
            "status": Status.DELIVERED if outcome.delivered else Status.SENT,
            "provider_id": outcome.provider_id,
            "sent_at": now,
            "delivered_at": now if outcome.delivered else None,
            "next_attempt_at": None,
            "reason": "",
        }
    elif outcome.final or message.attempts >= settings.MESSAGING_MAX_ATTEMPTS:
        change = {"status": Status.FAILED, "reason": outcome.error[:200], "next_attempt_at": None}
    else:
        change = {"reason": outcome.error[:200], "next_attempt_at": now + backoff(message.attempts)}
    with transaction.atomic():
        # Only while this try still holds it: a try that outlived its lease records nothing.
        held = Message.objects.filter(
            pk=message.pk, status=Status.QUEUED, attempts=message.attempts
        ).update(**change)
        for name, value in change.items():
            setattr(message, name, value)
        if held and message.status == Status.QUEUED:
            due = message.next_attempt_at
            transaction.on_commit(lambda: _queue(str(message.pk), due), robust=True)
        if held and message.status == Status.SENT and message.provider_id:
            _apply_early_report(message)


# The delivery report's transitions (messaging.reports): from `sent` only; the others are final.
REPORTABLE = (Status.SENT,)
UNDELIVERED = "The gateway reported it undelivered."


def _report_change(*, delivered, at, status, now):
    change = {"reported_at": now, "report_status": status[:20]}
    if delivered:
        change |= {"status": Status.DELIVERED, "delivered_at": at or now}
    else:
        reason = f"{UNDELIVERED} ({status})" if status else UNDELIVERED
        change |= {"status": Status.FAILED, "reason": reason[:200]}
    return change


def _rendezvous(provider, provider_id):
    """The lock a report and the saving of its message's provider id take, each in its own
    transaction: the one that comes second waits for the first to commit, so it sees either
    the message's id or the early report (ADR 0084 addendum)."""
    transaction_lock(f"dlr:{provider}:{provider_id}")


def report_delivery(*, provider_id, delivered, at=None, channel=None, status=""):
    """The gateway's delivery report for the message it accepted as `provider_id`: 1 if it
    moved the message, 0 if the message was not waiting for one (a report repeated, or late).
    A provider's (`channel`'s) report for an id no message carries yet is kept as an early
    report, one per id (the first), applied when the id is saved (`_apply_early_report`)."""
    if not provider_id:
        return 0
    change = _report_change(delivered=delivered, at=at, status=status, now=timezone.now())
    with transaction.atomic():
        if channel:
            _rendezvous(channel, provider_id)
        waiting = Message.objects.filter(provider_id=provider_id, status__in=REPORTABLE)
        if channel:
            waiting = waiting.filter(channel=channel)
        moved = waiting.update(**change)
        if moved or not channel:
            return moved
        if not Message.objects.filter(provider_id=provider_id, channel=channel).exists():
            early = EarlyReport(
                provider=channel,
                provider_id=provider_id,
                delivered=delivered,
                status=status[:20],
                at=at,
                received_at=change["reported_at"],
            )
            EarlyReport.objects.bulk_create([early], ignore_conflicts=True)
        return 0


def _apply_early_report(message):
    """Apply the early report of a message whose provider id was just saved, in the same
    transaction, by the same transitions, as if it reached us now (its own time kept); then
    delete it. 1 if it moved the message."""
    _rendezvous(message.channel, message.provider_id)
    early = (
        EarlyReport.objects.select_for_update(of=("self",))
        .filter(provider=message.channel, provider_id=message.provider_id)
        .first()
    )
    if early is None:
        return 0
    change = _report_change(
        delivered=early.delivered, at=early.at, status=early.status, now=early.received_at
    )
    moved = Message.objects.filter(pk=message.pk, status__in=REPORTABLE).update(**change)
    if moved:
        for name, value in change.items():
            setattr(message, name, value)
    early.delete()
    return moved


def prune_early_reports(now=None):
    """Delete the early reports no message claimed within `MESSAGING_EARLY_REPORT_DAYS` (the
    retention run): the number deleted."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.MESSAGING_EARLY_REPORT_DAYS)
    return EarlyReport.objects.filter(received_at__lt=cutoff).delete()[0]


def release_held():
    """Held messages whose template the State has since registered: queued, in daytime."""
    released = 0
    for message in Message.objects.filter(status=Status.HELD, reason=NO_TEMPLATE_ID).select_related(
        "template"
    ):
        if not message.template.dlt_template_id:
            continue
        message.dlt_template_id = message.template.dlt_template_id
        message.status, message.reason = Status.QUEUED, ""
        message.next_attempt_at = dlt.next_daytime()
        message.save(update_fields=["dlt_template_id", "status", "reason", "next_attempt_at"])
        released += 1
    return released


def send_due(limit=500):
    """Try every message that is due, oldest first (the daily run's sweep); their number."""
    release_held()
    due = list(
        Message.objects.filter(status=Status.QUEUED, next_attempt_at__lte=timezone.now())
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(deliver(pk) is not None for pk in due)


@task()
def deliver_message(message_id):
    """The worker's task: one try of one message; its status is the task's result."""
    message = deliver(message_id)
    return message.status if message is not None else "not due"


def _queue(message_id, run_after=None):
    job = deliver_message
    if run_after is not None and run_after > timezone.now():
        if not job.get_backend().supports_defer:
            return  # this backend cannot wait: the sweep sends it when due
        job = job.using(run_after=run_after)
    job.enqueue(message_id)
