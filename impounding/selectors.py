"""Read models that are not a single queryset chain: who was in the pound on which IST day, and
the days on which animals were in custody but nobody recorded feeding them (s.9, s.27).

Custody is worked out with the same intervals as the dues (`dues.custody_intervals`): from
arrival (or birth in the pound) to release or death, paused while the animal was out after an
escape or a rescue. A day counts when the animal was in the pound at any time of that IST day.
Each function runs a fixed number of queries, whatever the number of animals or days.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.db.models import Count, Prefetch, Q
from django.utils import timezone

from poundadmin.dates import days_between, ist_date

from .dues import OUT, custody_intervals
from .models import Animal, AnimalState, CustodyEvent, FeedingLog


def _day_start(day):
    return datetime.combine(day, time.min, tzinfo=timezone.get_default_timezone())


def custody_counts(pound, first, last):
    """{date: number of animals in the pound at any time of that IST day} for first..last.

    Two queries: the animals that could have been in the pound in the period, and their
    escape, rescue and return events.
    """
    counts = dict.fromkeys(days_between(first, last), 0)
    if not counts:
        return counts
    start, end = _day_start(first), _day_start(last + timedelta(days=1))
    as_of = min(timezone.now(), end)
    of_pound = Animal.objects.filter(impoundment__pound=pound).values("pk")
    # Only the animals that can have been in the pound in the period, each arm served by an
    # index: those in it now, those whose custody ended since `start`, and those out (escaped,
    # rescued) since `start`. An animal out since before `start` adds no day; reading every
    # animal the pound ever had to learn that grew with the register's history.
    candidates = of_pound.filter(state=AnimalState.IMPOUNDED).union(
        of_pound.filter(custody_ended_at__gte=start),
        CustodyEvent.objects.filter(
            kind__in=OUT, at__gte=start, animal__impoundment__pound=pound
        ).values("animal_id"),
    )
    # born_at is never before the entry's arrival, so filtering on the arrival is enough here.
    animals = (
        Animal.objects.filter(pk__in=candidates, impoundment__arrived_at__lt=end)
        .filter(Q(custody_ended_at__isnull=True) | Q(custody_ended_at__gte=start))
        .select_related("impoundment")
        .prefetch_related(
            Prefetch(
                "custody_events",
                queryset=CustodyEvent.objects.filter(
                    kind__in=[*OUT, CustodyEvent.Kind.RETURNED]
                ).order_by("at", "pk"),
            )
        )
    )
    for animal in animals:
        days = set()
        for begin, finish in custody_intervals(animal, as_of):
            days.update(days_between(max(ist_date(begin), first), min(ist_date(finish), last)))
        for day in days:
            counts[day] += 1
    return counts


def animals_in_custody_on(pound, day):
    """How many animals were in the pound at any time of the IST day `day`."""
    return custody_counts(pound, day, day)[day]


def missing_feeding_days(pound, first, last):
    """The dates in first..last (both included) on which animals were in the pound and no
    feeding and watering record exists: each is a possible s.27 offence. Three queries."""
    counts = custody_counts(pound, first, last)
    fed = set(
        FeedingLog.objects.filter(pound=pound, date__range=(first, last)).values_list(
            "date", flat=True
        )
    )
    return [day for day, count in counts.items() if count and day not in fed]


@dataclass
class FeedingDay:
    """A day of the feeding log: the animals in custody and the day's rounds, the first round
    first. A later round feeds the animals that came after the first (issue 12)."""

    date: date
    in_custody: int
    logs: list = field(default_factory=list)

    @property
    def log(self):
        return self.logs[0] if self.logs else None

    @property
    def fed(self):
        return sum(log.animals_fed for log in self.logs)

    @property
    def unfed(self):
        return max(self.in_custody - self.fed, 0)

    @property
    def cost(self):
        costs = [log.cost for log in self.logs if log.cost is not None]
        return sum(costs) if costs else None

    @property
    def missing(self):
        return self.in_custody > 0 and not self.logs


def feeding_rounds(pound, first, last):
    """{date: [the day's feeding logs, by round]} for first..last. One query."""
    rounds = defaultdict(list)
    logs = FeedingLog.objects.filter(pound=pound, date__range=(first, last))
    for log in logs.select_related("recorded_by").order_by("date", "round"):
        rounds[log.date].append(log)
    return rounds


def feeding_days(pound, first, last):
    """One row per day, newest first, for the feeding log page: the animals in custody that
    day, and the day's record if there is one. Three queries."""
    counts = custody_counts(pound, first, last)
    rounds = feeding_rounds(pound, first, last)
    return [FeedingDay(day, counts[day], rounds[day]) for day in sorted(counts, reverse=True)]


def animal_counts(entry_ids):
    """{entry id: (animals, animals still in the pound)} for these register entries. One query
    keyed by the ids (none when there are none), so a page counts its own rows only."""
    if not entry_ids:
        return {}
    rows = (
        Animal.objects.filter(impoundment_id__in=entry_ids)
        .order_by()
        .values("impoundment_id")
        .annotate(total=Count("pk"), in_pound=Count("pk", filter=Q(state=AnimalState.IMPOUNDED)))
        .values_list("impoundment_id", "total", "in_pound")
    )
    return {pk: (total, in_pound) for pk, total, in_pound in rows}
