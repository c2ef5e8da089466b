"""Writing and verifying the hash-chained event log."""

import functools
import json
import logging
from dataclasses import dataclass

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, models, transaction
from django.db.models import Subquery
from django.utils import timezone
from django.utils.module_loading import import_string

from .anchors import (
    CheckpointProblem,
    against_checkpoint,
    latest_checkpoint,
    month_old_checkpoint,
)
from .messages import Message
from .models import (
    GENESIS,
    ChainCheckpoint,
    ChainHead,
    Event,
    EventPersonal,
    new_salt,
    personal_digest,
)

logger = logging.getLogger(__name__)

# What each kind of event is called on screen; the stored summary keeps the particulars. Each app
# declares its actions as an `EventAction` enum, named in settings.EVENT_ACTIONS, so the kernel
# knows every label without importing an app above it. Services pass the enum's members, never a
# bare string (tests/kernel/test_event_actions.py holds them to it).


class EventAction(models.TextChoices):
    """Base for each app's enum of event actions: value "area.verb", label for the timeline."""


@functools.cache
def _labels():
    return {a.value: a.label for path in settings.EVENT_ACTIONS for a in import_string(path)}


def action_label(action):
    return _labels().get(action, action)


def registered_actions():
    return set(_labels())


def _training(district):
    """Whether the district is for training (ADR 0080): its chains stay out of checkpoints."""
    return bool(getattr(district, "training", False))


def chain_for(*, pound=None, district=None):
    return f"pound:{pound.pk}" if pound is not None else f"district:{district.pk}"


SUMMARY_KEY = "_summary"
PACK_KEY = "_pack"


@functools.cache
def _stamp():
    path = getattr(settings, "EVENT_STAMP", None)
    return import_string(path) if path else None


def record_event(
    *,
    action,
    section,
    summary,
    by,
    pound=None,
    district=None,
    impoundment=None,
    animal=None,
    data=None,
    personal=None,
    at=None,
):
    """Append an event to its pound's chain (or the district's, for district-wide changes).

    Call inside the business transaction: the chain head is locked until it commits, so the
    links of one chain are written one after another, never side by side.

    `personal` holds the names, addresses and phones of the public the event is about. They
    are kept apart from the link (EventPersonal), which hashes their salted digest, so that
    erasing them leaves the chain verifiable. The summary and `data` then name no one: a
    Message summary says "the claimant" as an argument that `personal` names (the same key),
    and the timeline shows the name while it exists.
    """
    if not connection.in_atomic_block:
        raise RuntimeError("record_event() must run inside the business transaction")
    if impoundment is not None and pound is None:
        pound = impoundment.pound
    if animal is not None and impoundment is None:
        impoundment = animal.impoundment
        pound = pound or impoundment.pound
    district = district or pound.district
    chain = chain_for(pound=pound, district=district)
    ChainHead.objects.get_or_create(chain=chain, defaults={"training": _training(district)})
    head = ChainHead.objects.select_for_update(of=("self",)).get(chain=chain)
    # Normalise the data as the JSON column will give it back, so the hash can be checked later.
    data = dict(data or {})
    if isinstance(summary, Message):
        # The summary as its template and arguments, shown in the reader's language; the
        # column keeps the English. Both are in the hash.
        data[SUMMARY_KEY] = summary.as_data()
        summary = summary.english()
    if stamp := _stamp():
        # The rule pack and version the step applied, and the section of the State's Act.
        data[PACK_KEY] = stamp(district=district, impoundment=impoundment, section=section)
    data = json.loads(json.dumps(data, cls=DjangoJSONEncoder))
    event = Event(
        chain=chain,
        seq=head.seq + 1,
        by_id=by.pk if by is not None else None,
        action=action,
        section=section,
        summary=str(summary)[:300],
        district_id=district.pk,
        pound_id=pound.pk if pound is not None else None,
        impoundment_id=impoundment.pk if impoundment is not None else None,
        animal_id=animal.pk if animal is not None else None,
        data=data,
        prev_hash=head.hash,
        at=at or timezone.now(),
    )
    if personal:
        personal = json.loads(json.dumps(personal, cls=DjangoJSONEncoder))
        salt = new_salt()
        event.personal_digest = personal_digest(salt, personal)
    # The row is written once, with its hash: the event table refuses updates.
    event.hash = event.compute_hash()
    event.save(force_insert=True)
    if personal:
        EventPersonal.objects.create(event=event, fields=personal, salt=salt)
    head.seq, head.hash = event.seq, event.hash
    head.save(update_fields=["seq", "hash"])
    _tell_listeners(event)
    return event


@functools.cache
def _listeners():
    return [import_string(path) for path in settings.EVENT_LISTENERS]


def _tell_listeners(event):
    """The listeners of settings.EVENT_LISTENERS that hear the event are called with it, each in
    a savepoint: what a listener wrote is rolled back with its fault, which is logged, and the
    change that wrote the event goes on. A listener that does not hear it costs no query."""
    for listener in _listeners():
        if not listener.hears(event):
            continue
        try:
            with transaction.atomic():
                listener(event)
        except Exception:
            name = type(listener).__qualname__
            logger.exception("event %s: a listener failed (%s)", event.pk, name)


@dataclass(frozen=True)
class ChainWalk:
    """What a verification found: the problems as (chain, seq, problem), and how much it read."""

    problems: list
    chains: int
    events: int  # the links the chains hold, by their heads
    walked: int  # the links read this time
    signed_on: object = None  # when the signed checkpoint the chains were held to was signed
    walked_from: object = None  # when the month-old checkpoint the walk started at was signed


def verify_chain(chain=None, *, incremental=False):
    """Check every link. Returns a list of (chain, seq, problem); empty when all is well."""
    return walk_chains(chain=chain, incremental=incremental).problems


def walk_chains(*, chain=None, incremental=False, signed_in=None, since_month=False):
    """Walk each chain (or only `chain`) link by link, from its first link, or with
    `incremental` from the link last found sound (its checkpoint), or with `since_month` from
    the link the latest signed checkpoint a month old holds, and move the checkpoint of each
    sound chain to its head.

    An incremental run reads only the checkpoint's link and those written since, so it finds a
    change to them, a missing link and a head that does not match, but not a change to a link
    before the checkpoint: the full walk finds that, and also holds each chain to the hash its
    checkpoint recorded, so a chain rewritten from its start is caught too. The month's walk
    (the weekly `verify_chain --full`, ADR 0067) does the same for the links of the last month
    and more: a chain must hold the month-old checkpoint's signed link, whose hash binds every
    link before it, and those links were walked by the weekly runs of the month after it.

    All hold each chain to the latest signed checkpoint (`kernel/anchors.py`), at most an
    hour old, which whoever can write the tables cannot move: a chain rehashed from an edited
    link, or cut back with its head, no longer holds the signed link, and is named as rehashed
    or cut.
    `signed_in` is a storage holding the checkpoints instead of their own (a backup's copy).
    """
    names = (
        [chain]
        if chain
        else list(ChainHead.objects.order_by("chain").values_list("chain", flat=True))
    )
    checkpoints = ChainCheckpoint.objects.in_bulk(names, field_name="chain")
    problems, sound, events, walked = [], [], 0, 0
    signed = _signed_checkpoint(problems, signed_in)
    anchor = _signed_checkpoint(problems, signed_in, month_old=True) if since_month else None
    for name in names:
        # The head first: the links up to it were committed with it, so a link appended while
        # this runs is left for the next run instead of looking like a broken head.
        head = ChainHead.objects.filter(chain=name).first()
        checkpoint = checkpoints.get(name)
        start = anchor.heads.get(name, (1, None))[0] if anchor else 1
        problem, last, read = _walk(name, head, checkpoint, incremental=incremental, start=start)
        for held in (anchor, signed):
            if held is not None:
                problem = against_checkpoint(name, head, held) or problem
        events += head.seq if head else 0
        walked += read
        if problem:
            problems.append(problem)
        elif last is not None:
            sound.append(ChainCheckpoint(chain=name, seq=last.seq, hash=last.hash))
    if signed is not None and not chain:
        # A chain the checkpoint signed whose head is gone altogether.
        for name in sorted(set(signed.heads) - set(names)):
            problems.append(against_checkpoint(name, None, signed))
    _move_checkpoints(sound)
    return ChainWalk(
        problems=problems,
        chains=len(names),
        events=events,
        walked=walked,
        signed_on=signed.when if signed else None,
        walked_from=anchor.when if anchor else None,
    )


def _signed_checkpoint(problems, store=None, *, month_old=False):
    try:
        return month_old_checkpoint(store) if month_old else latest_checkpoint(store)
    except CheckpointProblem as problem:
        problems.append(("checkpoints", 0, str(problem)))
        return None


def consistency_problems(heads, previous, *, full=False):
    """Before a new checkpoint is signed: does each chain still hold the link the previous
    signed checkpoint holds, and are the links from there to the head sound? (chain, seq,
    problem) for each that is not.

    Each chain is walked from the link the previous signed checkpoint holds; a chain it does
    not name (the first checkpoint, a new pound) from the link `verify_chain` last found sound
    (its ChainCheckpoint), so a day's checkpoint reads the day's links, not the whole log. Only
    a chain never verified, or `full`, is walked from its first link. The walk is the same
    link by link check as `verify_chain`'s, however a link is hashed."""
    problems = []
    if previous is not None:
        names = {head.chain for head in heads}
        gone = [name for name in previous.heads if name not in names]
        problems += [against_checkpoint(name, None, previous) for name in gone]
    verified = (
        {}
        if full
        else ChainCheckpoint.objects.in_bulk([h.chain for h in heads], field_name="chain")
    )
    for head in heads:
        signed = previous.heads.get(head.chain) if previous is not None else None
        anchor = verified.get(head.chain)
        if signed is not None:
            problem = against_checkpoint(head.chain, head, previous)
            if problem:
                problems.append(problem)
                continue
            if not full:
                # The signed link is the anchor the database cannot move.
                anchor = ChainCheckpoint(chain=head.chain, seq=signed[0], hash=signed[1])
        problem, _last, _read = _walk(head.chain, head, anchor, incremental=anchor is not None)
        if problem:
            problems.append(problem)
    return problems


def _walk(name, head, checkpoint, *, incremental, start=1):
    """One chain's links in order, from `start` (or, `incremental`, from its checkpoint): (the
    first problem or None, the last link, links read). The link before `start` is not read: a
    signed checkpoint holds `start`'s hash, and so every link before it."""
    start = checkpoint.seq if incremental and checkpoint else start
    # From a checkpoint the link before it is not read: its hash was found sound then.
    expected_seq, expected_prev = start, GENESIS if start == 1 else None
    links = Event.objects.filter(chain=name, seq__gte=start).select_related("personal_fields")
    if head is not None:
        links = links.filter(seq__lte=head.seq)
    last, read = None, 0
    for event in links.order_by("seq").iterator():
        read += 1
        problem = _link_problem(event, expected_seq, expected_prev, checkpoint)
        if problem:
            return (name, *problem), None, read
        last, expected_prev, expected_seq = event, event.hash, event.seq + 1
    if head is None:
        return None, last, read
    if (
        head.seq != expected_seq - 1
        or head.hash != expected_prev
        or (checkpoint and checkpoint.seq > head.seq)
        or _written_past_the_head(name)
    ):
        return (name, expected_seq, "links after this one are missing"), None, read
    return None, last, read


def _link_problem(event, expected_seq, expected_prev, checkpoint):
    """(seq, problem) for the first thing wrong with this link, or None."""
    if event.seq != expected_seq:
        return expected_seq, "missing link"
    if expected_prev is not None and event.prev_hash != expected_prev:
        return event.seq, "does not follow the link before it"
    if event.compute_hash() != event.hash:
        return event.seq, "content changed after it was written"
    problem = _personal_problem(event)
    if problem:
        return event.seq, problem
    if checkpoint and event.seq == checkpoint.seq and event.hash != checkpoint.hash:
        return event.seq, "is not the link found sound at the checkpoint"
    return None


def _personal_problem(event):
    """Personal fields that the link's digest does not cover. Erased fields (no row) are no
    problem: the digest stays in the link, and the link's hash still covers it."""
    try:
        fields = event.personal_fields
    except EventPersonal.DoesNotExist:
        return None
    if not event.personal_digest:
        return "personal fields added to a link that had none"
    if fields.digest() != event.personal_digest:
        return "personal fields changed after they were written"
    return None


def erase_personal(events):
    """Delete the personal fields of `events` (a queryset) and their salts; the links keep the
    digests. Returns how many events lost theirs."""
    return EventPersonal.objects.filter(event__in=events).delete()[0]


def _written_past_the_head(name):
    # One statement, so the head and the links are read as of the same moment: a link past
    # the head there was written behind the application's back.
    head_seq = ChainHead.objects.filter(chain=name).values("seq")
    return Event.objects.filter(chain=name, seq__gt=Subquery(head_seq)).exists()


def _move_checkpoints(sound):
    now = timezone.now()
    for checkpoint in sound:
        checkpoint.verified_at = now
    ChainCheckpoint.objects.bulk_create(
        sound,
        update_conflicts=True,
        unique_fields=["chain"],
        update_fields=["seq", "hash", "verified_at"],
    )
