"""The retention rule (docs/retention.md, docs/decisions/0010-retention-and-erasure.md): personal
data of owners, claimants, seizers and bidders is erased once the case it served is long over,
and login records once they are older than the security logs must be kept; the relatives a
member of staff declared for the s.19 check, once she has left the service long enough.

A case is over when every animal of its register entry has left the pound; the clock runs from
the last one's leaving. Erasure blanks the personal fields in place and deletes the signatures
and scans; the records, their numbers and their money stay, and one event per entry says that
the personal data was erased, under which rule. The events' own personal fields are deleted
with their salts; each link keeps their digest, so `verify_chain` still passes.
"""

from datetime import timedelta

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.db import transaction
from django.db.models import Exists, Max, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import DeclaredRelative, StaffAssignment, StaffEvent
from auctions.models import Bidder, DisposalOrder, DisposalTerms, S16Case
from impounding.models import (
    Amendment,
    Animal,
    Complaint,
    Impoundment,
    Receipt,
    Release,
    TagLookup,
)
from impounding.services.intake import PERSONAL_ENTRY_FIELDS
from impounding.services.lost import lapse_and_erase
from kernel.events import erase_personal, record_event
from kernel.messages import Message
from kernel.models import Event
from kernel.sweep import remove_older
from messaging.services import prune_early_reports

from .actions import Action
from .models import PreparedFile, SurplusClaim

ERASED = "[erased]"
SURPLUS_CLAIM_ACTIONS = (
    Action.SURPLUS_CLAIMED,
    Action.SURPLUS_CLAIM_ALLOWED,
    Action.SURPLUS_CLAIM_REJECTED,
)
SECTION = "DPDP Act 2023 s.8(7)"


def _files(queryset, field):
    for record in queryset.exclude(**{field: ""}):
        getattr(record, field).delete(save=False)
    queryset.update(**{field: ""})


def entries_due(now=None):
    """Register entries whose last animal left the pound more than the retention period ago,
    and whose personal data is still there."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=365 * settings.RETENTION_PERSONAL_YEARS)
    in_pound = Animal.objects.filter(impoundment=OuterRef("pk"), custody_ended_at__isnull=True)
    return (
        Impoundment.objects.exclude(seizer_name=ERASED)
        .filter(~Exists(in_pound))
        .annotate(left=Max("animals__custody_ended_at"))
        .filter(left__lt=cutoff)
    )


def erase_entry(entry, *, by):
    """Blank the personal data of one register entry and of the records that hang on it."""
    with transaction.atomic():
        entry = Impoundment.objects.select_for_update(of=("self",)).get(pk=entry.pk)
        Impoundment.objects.filter(pk=entry.pk).update(
            seizer_name=ERASED,
            seizer_residence="",
            seizer_phone="",
            owner_name="",
            owner_residence="",
            owner_phone="",
        )
        releases = Release.objects.filter(impoundment=entry)
        releases.update(
            claimant_name=ERASED, claimant_address="", claimant_phone="", owner_name=ERASED
        )
        _files(releases, "signature")
        Receipt.objects.filter(pk__in=releases.values("receipt_id")).update(payer_name=ERASED)
        Complaint.objects.filter(impoundment=entry).update(complainant_name=ERASED, agent_name="")
        # A correction of a name, residence or phone keeps both values: erased too.
        Amendment.objects.filter(impoundment=entry, field__in=PERSONAL_ENTRY_FIELDS).update(
            old_value=ERASED, new_value=ERASED
        )
        cases = S16Case.objects.filter(impoundment=entry)
        cases.update(owner_name=ERASED, owner_address="")
        _files(cases, "signature")
        erase_personal(Event.objects.filter(impoundment_id=entry.pk))
        record_event(
            action=Action.PERSONAL_DATA_ERASED,
            section=SECTION,
            summary=Message(
                gettext_noop("Personal data of %(number)s erased under the retention rule"),
                number=entry.register_number,
            ),
            by=by,
            impoundment=entry,
        )


def departed_with_relatives(now=None):
    """Ids of the staff who left the service more than `RETENTION_RELATIVES_YEARS` ago (every
    appointment ended before then) and whose declared relatives are still kept."""
    now = now or timezone.now()
    cutoff = timezone.localdate(now) - timedelta(days=365 * settings.RETENTION_RELATIVES_YEARS)
    serving = StaffAssignment.objects.filter(user=OuterRef("user_id")).filter(
        Q(valid_to__isnull=True) | Q(valid_to__gte=cutoff)
    )
    held = StaffAssignment.objects.filter(user=OuterRef("user_id"))
    departed = DeclaredRelative.objects.filter(Exists(held), ~Exists(serving))
    return sorted(set(departed.values_list("user_id", flat=True)))


def erase_departed_relatives(*, by, now=None):
    """Delete the declarations of the staff who left long enough ago; one staff event each.
    Returns how many relatives were erased."""
    erased = 0
    for user_id in departed_with_relatives(now):
        with transaction.atomic():
            count, _ = DeclaredRelative.objects.filter(user_id=user_id).delete()
            StaffEvent.objects.create(
                user_id=user_id,
                action=StaffEvent.Action.RELATIVES_ERASED,
                by=by,
                note=f"{count} ({SECTION})",
            )
        erased += count
    return erased


def erase_private_buyers(cutoff):
    """Blank the buyer of every sale by private treaty decided before `cutoff` (s.14 proviso):
    his name, address, phone and document number, as a bidder's are. The order, its number, its
    price and its money stay. Returns how many buyers were erased."""
    orders = DisposalOrder.objects.filter(
        mode=DisposalOrder.Mode.PRIVATE_SALE, decided_at__lt=cutoff
    ).exclude(recipient=ERASED)
    ids = list(orders.values_list("pk", flat=True))
    DisposalTerms.objects.filter(order_id__in=ids).update(address="", phone="", id_number="")
    numbers = list(orders.values_list("number", flat=True))
    erase_personal(Event.objects.filter(action__startswith="disposal.", data__order__in=numbers))
    return orders.update(recipient=ERASED)


def apply_retention(*, by, now=None):
    """Apply the rule once; returns the counts of what it erased. Idempotent."""
    now = now or timezone.now()
    entries = 0
    for entry in entries_due(now).select_related("pound__district").iterator():
        erase_entry(entry, by=by)
        entries += 1
    cutoff = now - timedelta(days=365 * settings.RETENTION_PERSONAL_YEARS)
    bidders = Bidder.objects.filter(auction__scheduled_for__lt=cutoff).exclude(name=ERASED)
    bidder_count = bidders.update(name=ERASED, address="", phone="", id_number="")
    claims = SurplusClaim.objects.filter(decided_at__lt=cutoff).exclude(claimant_name=ERASED)
    claim_count = claims.count()
    _files(claims, "proof_scan")
    erase_personal(
        Event.objects.filter(
            action__in=SURPLUS_CLAIM_ACTIONS,
            data__claim__in=list(claims.values_list("pk", flat=True)),
        )
    )
    claims.update(claimant_name=ERASED, claimant_address="")
    prepared = PreparedFile.objects.filter(
        requested_at__lt=now - timedelta(days=settings.RETENTION_PREPARED_DAYS)
    )
    _files(prepared, "file")
    prepared_count, _ = prepared.delete()
    # The ear-tag registry's answers name owners: kept no longer than a month (ADR 0078).
    lookups, _ = TagLookup.objects.filter(looked_up_at__lt=now - timedelta(days=30)).delete()
    login_cutoff = now - timedelta(days=settings.RETENTION_LOGIN_DAYS)
    logins = (
        sum(
            model.objects.filter(attempt_time__lt=login_cutoff).delete()[0]
            for model in (AccessAttempt, AccessFailureLog)
        )
        + AccessLog.objects.filter(attempt_time__lt=login_cutoff).delete()[0]
    )
    return {
        "entries": entries,
        "bidders": bidder_count,
        "private_buyers": erase_private_buyers(cutoff),
        "claims": claim_count,
        "declared_relatives": erase_departed_relatives(by=by, now=now),
        "prepared_files": prepared_count,
        "tag_lookups": lookups,
        "login_records": logins,
        "lost_reports": lapse_and_erase(now),
        "kept_documents": remove_older("kept", now - timedelta(days=settings.RETENTION_KEPT_DAYS)),
        "early_delivery_reports": prune_early_reports(now),
    }
