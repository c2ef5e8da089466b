"""The two clocks of s.14, counted in Asia/Kolkata calendar days (GCA s.9; docs/domain.md,
decision 1), for the days the entry's rule pack gives (ADR 0068; seven and seven under the
central Act):

- Impounded on day D: the claim week is D+1..D+7; the report to the officer is due on D+8.
- Notice posted on day N: the claim week is N+1..N+7; the earliest lawful sale is N+8.

Each entry keeps the pack version it came in under, so a district that changes its pack changes
no clock already running. A pack that leaves a period for the State to fill stops the clock: the
step is refused with a message saying so, never run on an invented figure.
"""

from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, OuterRef
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import StaffAssignment
from accounts.roles import Role
from accounts.training import pounds_by_day
from impounding.models import Animal, AnimalState, Impoundment
from kernel.dates import first_day_after, window_end
from kernel.lookups import without
from rulepacks import services as rulepacks

from .models import Lot, LotAnimal, Report


def _days(entry, field):
    """The period `field` of the entry's pack; None when the pack leaves it to the State."""
    return getattr(rulepacks.pack_of(entry.rule_pack_id).rules.clocks, field)


def days_or_refuse(entry, field):
    days = _days(entry, field)
    if days is None:
        pinned = rulepacks.pack_of(entry.rule_pack_id)
        raise ValidationError(
            _(
                "The rule pack %(pack)s leaves this period for the State to fill: the clock "
                "cannot run until the State's notification gives it."
            )
            % {"pack": f"{pinned.code} {pinned.version}"}
        )
    return days


def report_due(entry):
    """The day the report of the entry's unclaimed animals is due; None when the pack leaves
    the claim period to the State."""
    days = _days(entry, "claim_days")
    return None if days is None else first_day_after(entry.arrival_date(), days)


def notice_dates(posted_on, *, entry=None):
    """(last day to claim, earliest day of sale) for the entry's notice posted on `posted_on`;
    without an entry, the central Act's seven days (the scale seed's)."""
    days = 7 if entry is None else days_or_refuse(entry, "notice_days")
    return window_end(posted_on, days), first_day_after(posted_on, days)


def unreported(animals):
    """The animals of `animals` that no s.14 report names, nor their dam (a calf born after its
    dam was reported goes under her notice, docs/domain.md decision 12): each looked up in the
    report's link table by key (kernel.lookups.without), not by hashing every link ever made
    (262,000 at 1M entries, 110-180 ms on the office's home) to keep the animals in the pounds.
    No "dam is null or" before the dam's: no report names a null dam."""
    named = Report.animals.through.objects
    animals = without(animals, "own_report", named.filter(animal_id=OuterRef("pk")))
    return without(animals, "dams_report", named.filter(animal_id=OuterRef("dam_id")))


def reports_due(pound_ids, today=None):
    """Register entries with animals still unclaimed after the claim period of s.14 (seven days
    under the central Act) and not yet reported: [{"entry", "animals", "due_on",
    "days_overdue"}], oldest first. Two queries, and one for each pack version not yet read."""
    if today is None:  # each pound's own day: a training district's clock (ADR 0080)
        days = pounds_by_day(list(pound_ids)) or {timezone.localdate(): []}
        if len(days) > 1:
            rows = [row for day, ids in days.items() for row in reports_due(ids, day)]
            return sorted(rows, key=lambda r: (r["entry"].arrived_at, r["entry"].pk))
        ((today, pound_ids),) = days.items()
    # Arrived before today: whether the claim period has run out is the entry's pack's to say.
    latest_arrival = timezone.make_aware(
        timezone.datetime.combine(today, timezone.datetime.min.time())
    )
    # From the animals in the pounds (an index range a pound), not from the entries: a filter on
    # the entry's arrival would have the database read every entry of the register.
    animals = list(unreported(Animal.objects.in_custody().filter(pound_id__in=pound_ids)))
    # Their entries, by primary key, those that arrived before the seven days.
    entries = Impoundment.objects.filter(
        pk__in={a.impoundment_id for a in animals}, arrived_at__lt=latest_arrival
    ).select_related("pound")
    entries = {e.pk: e for e in entries if (due := report_due(e)) is not None and due <= today}
    animals = [a for a in animals if a.impoundment_id in entries]
    for a in animals:
        a.impoundment = entries[a.impoundment_id]
    animals.sort(key=lambda a: (a.impoundment.arrived_at, a.impoundment_id, a.number))
    by_entry = {}
    for animal in animals:
        by_entry.setdefault(animal.impoundment_id, []).append(animal)
    rows = []
    for animals_of_entry in by_entry.values():
        entry = animals_of_entry[0].impoundment
        due = report_due(entry)
        rows.append(
            {
                "entry": entry,
                "animals": animals_of_entry,
                "due_on": due,
                "days_overdue": (today - due).days,
            }
        )
    return rows


def reports_due_counts(pound_ids, today):
    """{pound id: how many entries reports_due(pound_ids, today) gives}, for the office's
    overdue board: the same animals, grouped in the database by pound, pack version and day of
    arrival, so that a State's thousands of animals waiting in its pounds come back as a few
    rows, the pack's claim period then applied to each. One query."""
    latest_arrival = timezone.make_aware(
        timezone.datetime.combine(today, timezone.datetime.min.time())
    )
    in_pounds = Animal.objects.in_custody().filter(
        pound_id__in=pound_ids, impoundment__arrived_at__lt=latest_arrival
    )
    groups = (
        unreported(in_pounds)
        .values("pound_id", "impoundment__rule_pack_id")
        .annotate(day=TruncDate("impoundment__arrived_at"), n=Count("impoundment", distinct=True))
        .order_by()
    )
    counts = {}
    for row in groups:
        days = rulepacks.pack_of(row["impoundment__rule_pack_id"]).rules.clocks.claim_days
        if days is not None and first_day_after(row["day"], days) <= today:
            counts[row["pound_id"]] = counts.get(row["pound_id"], 0) + row["n"]
    return counts


def appointed_officer(pound, on=None):
    """The officer the District Magistrate appointed for this pound (s.14), if any."""
    assignment = (
        StaffAssignment.objects.active(on)
        .filter(role=Role.POLICE_OFFICER, pound=pound)
        .select_related("user")
        .order_by("-valid_from")
        .first()
    )
    return assignment.user if assignment else None


def run_out_unsold(today):
    """The cattle still in the pound named in a notice that has run out (its earliest lawful
    sale is `today` or before, s.14), none of whose report's cattle is in an open lot: as rows
    of the report's animals, to be scoped and counted by notice. Read from the cattle in the
    pound, an open set, rather than from every notice the pounds have ever posted."""
    open_lots = LotAnimal.objects.filter(lot__status=Lot.Status.OPEN).values("animal_id")
    in_a_lot = Report.animals.through.objects.filter(
        report_id=OuterRef("report_id"), animal__in=open_lots
    )
    # An animal a notice names carries that notice's day (Animal.notice_posted_on): the cattle
    # in the pound under a notice come from the board's partial index, not from every report.
    return Report.animals.through.objects.filter(
        animal__state=AnimalState.IMPOUNDED,
        animal__notice_posted_on__isnull=False,
        report__notice__earliest_sale__lte=today,
    ).filter(~Exists(in_a_lot))
