"""Writing and verifying the hash-chained event log."""

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, models
from django.utils import timezone

from .models import GENESIS, ChainHead, Event

# What each kind of event is called on screen; the stored summary keeps the particulars. Each app
# declares its actions as an `EventAction` enum and registers it in its AppConfig.ready(), so
# the kernel knows every label without importing an app above it. Services pass the enum's
# members, never a bare string (tests/poundadmin/test_event_actions.py holds them to it).
_LABELS = {}


class EventAction(models.TextChoices):
    """Base for each app's enum of event actions: value "area.verb", label for the timeline."""


def register_actions(actions):
    for action in actions:
        _LABELS[action.value] = action.label


def action_label(action):
    return _LABELS.get(action, action)


def registered_actions():
    return set(_LABELS)


def chain_for(*, pound=None, district=None):
    return f"pound:{pound.pk}" if pound is not None else f"district:{district.pk}"


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
    at=None,
):
    """Append an event to its pound's chain (or the district's, for district-wide changes).

    Call inside the business transaction: the chain head is locked until it commits, so the
    links of one chain are written one after another, never side by side.
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
    ChainHead.objects.get_or_create(chain=chain)
    head = ChainHead.objects.select_for_update().get(chain=chain)
    # Normalise the data as the JSON column will give it back, so the hash can be checked later.
    data = json.loads(json.dumps(data or {}, cls=DjangoJSONEncoder))
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
    # The row is written once, with its hash: the event table refuses updates.
    event.hash = event.compute_hash()
    event.save(force_insert=True)
    head.seq, head.hash = event.seq, event.hash
    head.save(update_fields=["seq", "hash"])
    return event


def verify_chain(chain=None):
    """Check every link. Returns a list of (chain, seq, problem); empty when all is well."""
    problems = []
    chains = [chain] if chain else ChainHead.objects.values_list("chain", flat=True)
    for name in chains:
        expected_prev, expected_seq = GENESIS, 1
        for event in Event.objects.filter(chain=name).order_by("seq").iterator():
            if event.seq != expected_seq:
                problems.append((name, expected_seq, "missing link"))
                break
            if event.prev_hash != expected_prev:
                problems.append((name, event.seq, "does not follow the link before it"))
                break
            if event.compute_hash() != event.hash:
                problems.append((name, event.seq, "content changed after it was written"))
                break
            expected_prev, expected_seq = event.hash, event.seq + 1
        else:
            head = ChainHead.objects.filter(chain=name).first()
            if head and (head.seq != expected_seq - 1 or head.hash != expected_prev):
                problems.append((name, expected_seq, "links after this one are missing"))
    return problems
