"""What is owed for impounded animals at a given moment. The one function every screen, service
and document uses (docs/domain.md decisions 2, 3 and 12).

- Fine (s.12): one per head, from the scale in force on the day of arrival at the pound.
- Feeding (s.5): per head for each Asia/Kolkata calendar day or part of one in custody, from the
  day of arrival to the day of release, both included, at the rate in force on each day; or, where
  the district has chosen so, per 24-hour block, or with the day of arrival free.
- Custody stops at death and pauses while the animal is out of the pound (escaped or rescued):
  a day the animal spent any part of in the pound counts once.
- A calf born in the pound carries no fine, and no feeding charge while it suckles: it leaves
  with its dam. (The Act is silent on the calf's feeding; we charge none, and say so.)
"""

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from accounts.models import DistrictPolicy, FeedingRule
from kernel import clock
from kernel.dates import ist_date

from .models import CustodyEvent
from .repeats import repeat_fine
from .tariffs import TariffBook

ZERO = Decimal("0.00")
OUT = {CustodyEvent.Kind.ESCAPED, CustodyEvent.Kind.RESCUED}


@dataclass
class FeedingPeriod:
    first: date
    last: date
    days: int
    rate: Decimal
    order: str

    @property
    def amount(self):
        return self.rate * self.days


@dataclass
class AnimalDues:
    animal: object
    scale: str = ""
    category_code: str = ""
    category: str = ""
    category_en: str = ""  # the category in both languages, for the bilingual receipt
    category_hi: str = ""
    fine: Decimal = ZERO
    note: str = ""
    periods: list[FeedingPeriod] = field(default_factory=list)

    @property
    def feeding_days(self):
        return sum(p.days for p in self.periods)

    @property
    def feeding(self):
        return sum((p.amount for p in self.periods), ZERO)

    @property
    def total(self):
        return self.fine + self.feeding


@dataclass
class Statement:
    as_of: datetime
    rule: str
    lines: list[AnimalDues]

    @property
    def rule_text(self):
        return FeedingRule(self.rule).label

    @property
    def fines(self):
        return sum((line.fine for line in self.lines), ZERO)

    @property
    def feeding(self):
        return sum((line.feeding for line in self.lines), ZERO)

    @property
    def total(self):
        return self.fines + self.feeding

    @property
    def feeding_days(self):
        return sum(line.feeding_days for line in self.lines)


def custody_intervals(animal, as_of):
    """[(start, end)] of the time the animal was in the pound, up to `as_of` or the end."""
    moves = [(e.kind, e.at) for e in animal.custody_events.all()]
    return intervals_between(
        animal.born_at or animal.impoundment.arrived_at, animal.custody_ended_at, moves, as_of
    )


def intervals_between(came, ended, moves, as_of):
    """custody_intervals from plain values: custody from `came` to `ended` (or `as_of`), paused
    from each escape or rescue in `moves` [(kind, at)] until the return that follows it."""
    start = came
    end = min(ended or as_of, as_of)
    if end < start:
        return []
    intervals, current = [], start
    events = sorted(
        ((kind, at) for kind, at in moves if kind in OUT | {CustodyEvent.Kind.RETURNED}),
        key=lambda e: e[1],
    )
    for kind, at in events:
        if at > end:
            break
        if kind in OUT and current is not None:
            intervals.append((current, at))
            current = None
        elif kind == CustodyEvent.Kind.RETURNED and current is None:
            current = at
    if current is not None:
        intervals.append((current, end))
    return intervals


def _charged_days(animal, intervals, rule):
    """The days (each with the date whose rate applies) that feeding is charged for."""
    if rule == FeedingRule.BLOCKS_24H:
        # The blocks run from the start of custody, and one the animal spent any part of in the
        # pound counts once: an escape and return within a block does not start a new one.
        # (Whole timedeltas, so a part of a second past 24 hours is a part of a block too.)
        if not intervals:
            return []
        origin, block, blocks = intervals[0][0], timedelta(days=1), set()
        for start, end in intervals:
            first = (start - origin) // block
            last = max(first, -((origin - end) // block) - 1)
            blocks.update(range(first, last + 1))
        return [ist_date(origin + k * block) for k in sorted(blocks)]
    dates = set()
    for start, end in intervals:
        day, last = ist_date(start), ist_date(end)
        while day <= last:
            dates.add(day)
            day += timedelta(days=1)
    if rule == FeedingRule.ARRIVAL_DAY_FREE and animal.born_at is None:
        dates.discard(ist_date(animal.impoundment.arrived_at))
    return sorted(dates)


def animal_dues(animal, *, as_of, book, rule):
    line = AnimalDues(animal=animal)
    if animal.born_at is not None:
        line.note = str(_("Born in the pound: no fine, no feeding charge; leaves with its dam."))
        return line
    arrival = ist_date(animal.impoundment.arrived_at)
    scale, category = book.fine_category(animal, arrival)
    line.scale, line.category_code = str(scale), category.code
    line.category, line.fine = category.display_label, category.amount
    line.category_en, line.category_hi = category.label, category.label_hi
    if (repeat := repeat_fine(animal, animal.impoundment.rule_pack_id)) is not None:
        # The State's pack fines a repeat seizure apart (ADR 0078): its figure, its citation.
        row, cite = repeat
        line.fine = row.amount
        line.scale = f"{cite.instrument}{f', {cite.section}' if cite.section else ''}"
        line.note = str(
            _("Seized before (%(count)s): the State's fine for a repeat seizure.")
            % {"count": animal.prior_seizures}
        )
    periods = []
    for day in _charged_days(animal, custody_intervals(animal, as_of), rule):
        order, rate = book.feeding_rate(animal, day)
        last = periods[-1] if periods else None
        if (
            last
            and last.rate == rate.amount
            and last.order == str(order)
            and last.last in (day, day - timedelta(days=1))
        ):
            last.last, last.days = day, last.days + 1
        else:
            periods.append(FeedingPeriod(day, day, 1, rate.amount, str(order)))
    line.periods = periods
    return line


def dues(animals, *, as_of=None, book=None):
    """The itemised dues of `animals` (of one pound) at `as_of` (default: now).

    Prefetch `custody_events` and select `impoundment__pound__district` to keep it to a fixed
    number of queries. Raises TariffMissing when no order covers a day.
    """
    animals = list(animals)
    as_of = as_of or clock.now(animals[0].impoundment.pound if animals else None)
    if not animals:
        return Statement(as_of=as_of, rule=FeedingRule.CALENDAR_DAYS, lines=[])
    pound = animals[0].impoundment.pound
    book = book or TariffBook(pound)
    rule = DistrictPolicy.for_district(pound.district).feeding_rule
    lines = [animal_dues(a, as_of=as_of, book=book, rule=rule) for a in animals]
    return Statement(as_of=as_of, rule=rule, lines=lines)
