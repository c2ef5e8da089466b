"""Writing and verifying the hash-chained event log."""

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import GENESIS, ChainHead, Event

# What each kind of event is called on screen; the stored summary keeps the particulars.
ACTION_LABELS = {
    "register.entered": _("Entered in the register"),
    "register.amended": _("Register corrected"),
    "custody.died": _("Died"),
    "custody.escaped": _("Escaped"),
    "custody.rescued": _("Rescued from custody"),
    "custody.returned": _("Back in the pound"),
    "custody.born": _("Calf born in the pound"),
    "custody.fed": _("Fed and watered"),
    "release.paid": _("Released on payment"),
    "release.deposit": _("Released on deposit"),
    "release.court_order": _("Released by court order"),
    "complaint.recorded": _("Complaint recorded"),
    "complaint.upheld": _("Complaint upheld: seizure illegal"),
    "complaint.dismissed": _("Complaint dismissed"),
    "deposit.applied": _("Deposit applied as payment"),
    "deposit.refunded": _("Deposit refunded"),
    "tariff.fine_scale_recorded": _("Fine scale recorded"),
    "tariff.feeding_order_recorded": _("Feeding rates recorded"),
    "register.copy_issued": _("Copy of the entry issued to the seizer"),
    "s14.reported": _("Reported to the officer as unclaimed"),
    "s14.notice_posted": _("Notice posted"),
    "s14.proclaimed": _("Proclamation made"),
    "s14.conditions_set": _("Conditions of sale set"),
    "auction.scheduled": _("Auction scheduled"),
    "auction.bidder_registered": _("Bidder registered"),
    "auction.bidder_blocked": _("Bidder blocked: may be staff"),
    "auction.block_overridden": _("Bidder cleared by the Magistrate"),
    "auction.sold": _("Sold at auction"),
    "auction.unsold": _("Not sold at auction"),
    "auction.withdrawn": _("Lot withdrawn: claimed before the hammer"),
    "auction.closed": _("Auction closed"),
    "s16.refused": _("Owner refused to pay: sale ordered"),
    "s16.covered": _("Sale proceeds cover the dues"),
    "s16.settled": _("Remaining cattle and balance returned"),
    "disposal.proposed": _("Disposal proposed"),
    "disposal.approved": _("Disposal approved"),
    "disposal.rejected": _("Disposal not approved"),
}


def action_label(action):
    return ACTION_LABELS.get(action, action)


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
        by=by,
        action=action,
        section=section,
        summary=str(summary)[:300],
        district=district,
        pound=pound,
        impoundment=impoundment,
        animal=animal,
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
