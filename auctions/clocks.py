"""The two clocks of s.14, counted in Asia/Kolkata calendar days (GCA s.9; docs/domain.md,
decision 1).

- Impounded on day D: the claim week is D+1..D+7; the report to the officer is due on D+8.
- Notice posted on day N: the claim week is N+1..N+7; the earliest lawful sale is N+8.
"""

from datetime import timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.models import StaffAssignment
from accounts.roles import Role
from impounding.models import Animal, Impoundment
from kernel.dates import first_day_after, report_due_on, window_end

from .models import Report


def notice_dates(posted_on):
    """(last day to claim, earliest day of sale) for a notice posted on `posted_on`."""
    return window_end(posted_on, 7), first_day_after(posted_on, 7)


def reports_due(pound_ids, today=None):
    """Register entries with animals still unclaimed after the seven days of s.14 and not yet
    reported: [{"entry", "animals", "due_on", "days_overdue"}], oldest first. Two queries."""
    today = today or timezone.localdate()
    # Arrived on or before today - 8 (IST): the seven days after arrival have run out.
    latest_arrival = timezone.make_aware(
        timezone.datetime.combine(today - timedelta(days=7), timezone.datetime.min.time())
    )
    # The report's link table alone: whether a report names the animal, or its dam.
    named = Report.animals.through.objects
    # From the animals in the pounds (an index range a pound), not from the entries: a filter on
    # the entry's arrival would have the database read every entry of the register.
    animals = list(
        Animal.objects.in_custody()
        .filter(pound_id__in=pound_ids)
        .filter(~Exists(named.filter(animal_id=OuterRef("pk"))))
        # A calf born after its dam was reported goes under her notice (docs/domain.md decision 12).
        # No "dam is null or" before it: no report names a null dam, and inside an OR the
        # database cannot look the dam up by index but hashes every animal ever reported.
        .filter(~Exists(named.filter(animal_id=OuterRef("dam_id"))))
    )
    # Their entries, by primary key, those that arrived before the seven days.
    entries = Impoundment.objects.filter(
        pk__in={a.impoundment_id for a in animals}, arrived_at__lt=latest_arrival
    ).select_related("pound")
    entries = {e.pk: e for e in entries}
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
        due = report_due_on(entry.arrival_date())
        rows.append(
            {
                "entry": entry,
                "animals": animals_of_entry,
                "due_on": due,
                "days_overdue": (today - due).days,
            }
        )
    return rows


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
