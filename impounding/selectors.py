"""Read models that are not a single queryset chain: who was in the pound on which IST day, the
days on which animals were in custody but nobody recorded feeding them (s.9, s.27), and the
keeper's today board.

Custody is worked out with the same intervals as the dues (`dues.custody_intervals`): from
arrival (or birth in the pound) to release or death, paused while the animal was out after an
escape or a rescue. A day counts when the animal was in the pound at any time of that IST day.
Each function runs a fixed number of queries, whatever the number of animals or days.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.db.models import Count, Exists, F, OuterRef, Q, Window, prefetch_related_objects
from django.db.models.functions import RowNumber
from django.utils import timezone

from accounts.models import DistrictPolicy, Pound
from accounts.roles import Permission
from accounts.scoping import lookup, visible_pound_ids
from accounts.training import pound_offsets
from kernel import clock
from kernel.dates import days_between, ist_date
from kernel.lookups import first_key, without

from .dues import OUT, dues, intervals_between
from .inspections import requirement, requiring_packs
from .models import (
    OUT_OF_POUND,
    Animal,
    AnimalState,
    Claim,
    CourtOrder,
    CustodyEvent,
    Direction,
    FeedingLog,
    Finding,
    Fitness,
    Impoundment,
    Inspection,
)
from .tariffs import TariffBook, TariffMissing

# The register's list: its order, and the entries on a page (paged by keyset).
REGISTER_ORDER = ["-register_year", "-register_serial", "-pk"]
REGISTER_PAGE = 25
# What the register's page shows of an entry and its pound, and the keyset's fields: the other
# columns (the seizure, the seizer, the notes) are not read for a list.
REGISTER_COLUMNS = (
    "register_number",
    "register_year",
    "register_serial",
    "arrived_at",
    "owner_name",
    "pound__name",
    "pound__name_hi",
)
# Searched between dates, by arrival, the latest first (ADR 0065): the days asked for are then an
# index range (imp_arrived, imp_pound_arrived) read from its end and stopped at the page. In the
# number's order the database walked every later entry in scope to reach an old month's.
ARRIVAL_ORDER = ["-arrived_at", "-pk"]


def register_order(data):
    """The order of the register's list for its search (RegisterSearchForm's cleaned data)."""
    return ARRIVAL_ORDER if data.get("date_from") or data.get("date_to") else REGISTER_ORDER


def entry_for(user, pk, perm=None):
    """A register entry the user may see (404 otherwise), checked for `perm` (403)."""
    return lookup(user, Impoundment.objects.select_related("pound__district"), pk, perm)


def animal_for(user, pk, perm=None):
    """An animal the user may see (404 otherwise), checked for `perm` (403)."""
    queryset = Animal.objects.select_related("impoundment__pound__district")
    return lookup(user, queryset, pk, perm)


def pound_for(user, pk, perm=None):
    """A pound the user may see (404 otherwise), checked for `perm` (403)."""
    return lookup(user, Pound.objects.select_related("district"), pk, perm)


def animals_readable_by(user):
    """The animals whose register `user` may read; none for an anonymous visitor."""
    if not user.is_authenticated:
        return Animal.objects.none()
    pound_ids = visible_pound_ids(user, Permission.VIEW_RECORDS)
    return Animal.objects.filter(impoundment__pound_id__in=pound_ids)


def _day_start(day):
    return datetime.combine(day, time.min, tzinfo=timezone.get_default_timezone())


def _moves():
    """The custody events that pause or resume custody: escapes, rescues and returns."""
    return CustodyEvent.objects.filter(kind__in=[*OUT, CustodyEvent.Kind.RETURNED])


def custody_days(pound_ids, first, last, offsets=None):
    """{pound id: {date: number of animals in the pound at any time of that IST day}} for
    first..last, for several pounds at once. One query, two when an animal went out (escaped,
    rescued) or came back, whatever the number of animals or pounds.

    Only the animals that can have been in the pound in the period are read, each arm served by
    an index: those in it now, those whose custody ended since `start`, and those out (escaped,
    rescued) since `start`. An animal out since before `start` adds no day; reading every animal
    the pounds ever had to learn that grew with the register's history. The animals are read as
    plain values, not objects; the escape, rescue and return events only for those that have
    any, and the intervals are `dues.custody_intervals`' own rule (`intervals_between`).

    Custody is counted to each pound's now (ADR 0080): `offsets` are the training pounds'
    clocks (`pound_offsets`), read here when not given and the period reaches past real now."""
    counts = {pk: dict.fromkeys(days_between(first, last), 0) for pk in pound_ids}
    if not pound_ids or first > last:
        return counts
    start, end = _day_start(first), _day_start(last + timedelta(days=1))
    as_of = _as_of(pound_ids, end, offsets)
    of_pounds = Animal.objects.filter(pound_id__in=pound_ids).values("pk")
    candidates = of_pounds.in_custody().union(
        of_pounds.filter(custody_ended_at__gte=start),
        CustodyEvent.objects.filter(
            kind__in=OUT, at__gte=start, animal__pound_id__in=pound_ids
        ).values("animal_id"),
    )
    went_out = _moves().filter(animal=OuterRef("pk"))
    # born_at is never before the entry's arrival, so filtering on the arrival is enough here;
    # the animal carries its entry's arrival (ADR 0091), so no entry is joined.
    rows = (
        Animal.objects.filter(pk__in=candidates, entry_arrived_at__lt=end)
        .filter(Q(custody_ended_at__isnull=True) | Q(custody_ended_at__gte=start))
        .annotate(moved=Exists(went_out))
        .order_by()
        .values_list(
            "pk", "pound_id", "born_at", "entry_arrived_at", "custody_ended_at", "moved",
        )
    )  # fmt: skip
    rows = list(rows)
    moved = [row[0] for row in rows if row[5]]
    moves = defaultdict(list)
    for animal_id, kind, at in (
        _moves().filter(animal_id__in=moved).values_list("animal_id", "kind", "at") if moved else ()
    ):
        moves[animal_id].append((kind, at))
    zone = timezone.get_default_timezone()
    first_day, last_day = first.toordinal(), last.toordinal()
    tallies = defaultdict(Counter)
    for pk, pound_id, born_at, arrived_at, ended_at, _moved in rows:
        days = set()  # an animal counts once a day, however often it went out and came back
        until = as_of.get(pound_id, as_of[None])
        for begin, finish in intervals_between(born_at or arrived_at, ended_at, moves[pk], until):
            a = max(begin.astimezone(zone).date().toordinal(), first_day)
            b = min(finish.astimezone(zone).date().toordinal(), last_day)
            days.update(range(a, b + 1))
        tallies[pound_id].update(days)
    for pound_id, tally in tallies.items():
        for day, n in tally.items():
            counts[pound_id][date.fromordinal(day)] = n
    return counts


def _as_of(pound_ids, end, offsets):
    """{pound id: the moment custody is counted to}, with the real districts' under None: each
    pound's now (its training clock's), but never past `end`. A period that ends before real
    now needs no clock, and no query."""
    now = timezone.now()
    if end <= now:
        return {None: end}
    if offsets is None:
        offsets = pound_offsets(pound_ids)
    return {None: now, **{pk: min(now + ahead, end) for pk, ahead in offsets.items()}}


def _offsets(pounds):
    """`pound_offsets` of pounds in hand (their districts loaded): no query for a real one."""
    return {p.pk: ahead for p in pounds if (ahead := clock.offset(p))}


def custody_counts(pound, first, last):
    """{date: number of animals in the pound at any time of that IST day} for first..last."""
    return custody_days([pound.pk], first, last, _offsets([pound]))[pound.pk]


def animals_in_custody_on(pound, day):
    """How many animals were in the pound at any time of the IST day `day`."""
    return custody_counts(pound, day, day)[day]


def missing_feeding_days(pound, first, last):
    """The dates in first..last (both included) on which animals were in the pound and no
    feeding and watering record exists: each is a possible s.27 offence."""
    return missing_feeding_by_pound([pound.pk], first, last, _offsets([pound])).get(pound.pk, [])


# The feeding page's period, and the field app's count of its gaps (api/field.py).
FEEDING_LOG_DAYS = 30


def past_feeding_gaps(pound, today=None):
    """The days of the feeding page's period before today with no feeding record: the count the
    page's first line and the field app's feeding round show."""
    today = today or clock.today(pound)
    first = today - timedelta(days=FEEDING_LOG_DAYS - 1)
    return missing_feeding_days(pound, first, today - timedelta(days=1))


def missing_feeding_by_pound(pound_ids, first, last, offsets=None):
    """{pound id: [dates]}: missing_feeding_days for several pounds at once, in at most four
    queries whatever the number of pounds or animals. The days with a record need no custody
    figures; a pound holding an animal that came before the period and never went out had
    cattle every day of it; only the other pounds' custody days are worked out.

    A day still to come has nothing missing yet: each pound's days end at its own day, its
    training clock's (ADR 0080; `offsets` as for custody_days). A period that ends before real
    today needs no clock, and no query."""
    real_today, caps = timezone.localdate(), {}
    if last >= real_today:
        if offsets is None:
            offsets = pound_offsets(pound_ids)
        caps = {pk: timezone.localdate(timezone.now() + ahead) for pk, ahead in offsets.items()}
        last = min(last, max([real_today, *caps.values()]))
    fed = defaultdict(set)
    for pound_id, day in FeedingLog.objects.filter(
        pound_id__in=pound_ids, date__range=(first, last)
    ).values_list("pound_id", "date"):
        fed[pound_id].add(day)
    days = list(days_between(first, last))
    unfed = [p for p in pound_ids if any(d not in fed[p] for d in days)]
    if not unfed:
        return {}
    start = _day_start(first)
    moves = _moves().filter(animal=OuterRef("pk"))
    in_pounds = (
        Animal.objects.in_custody()
        .filter(pound_id__in=unfed, entry_arrived_at__lt=start)
        .filter(Q(born_at__isnull=True) | Q(born_at__lt=start))
    )
    # Each animal's moves looked up by key, not every escape and return hashed (ADR 0088).
    throughout = set(
        without(in_pounds, "moved", moves).order_by().values_list("pound_id", flat=True).distinct()
    )
    rest = [p for p in unfed if p not in throughout]
    counts = custody_days(rest, first, last, offsets) if rest else {}
    missing = {}
    for pound_id in unfed:
        held = days if pound_id in throughout else [d for d, n in counts[pound_id].items() if n]
        cap = caps.get(pound_id, real_today)
        if gaps := sorted(d for d in held if d not in fed[pound_id] and d <= cap):
            missing[pound_id] = gaps
    return missing


@dataclass
class FeedingDay:
    """A day of the feeding log: the animals in custody and the day's rounds, the first round
    first. A later round feeds the animals that came after the first."""

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


# A 12-digit tag names one animal; a tag typed in several entries (a recapture) names a few.
TAG_MATCHES = 100


def filter_register(qs, data):
    """The register's search (RegisterSearchForm's cleaned data), for the screen and the API."""
    if data.get("q"):
        q = data["q"].strip()
        # The ear tag's entries fetched first, as a list of ids, not a join (no DISTINCT over
        # the scope) nor a subquery (inside the OR it stops the planner from combining the
        # trigram indexes of impounding 0003, and it walks every entry in scope instead).
        tagged = list(
            Animal.objects.filter(ear_tag=q.replace(" ", ""))
            .values_list("impoundment_id", flat=True)
            .order_by()[:TAG_MATCHES]
        )
        qs = qs.filter(
            Q(register_number__iexact=q)
            | Q(register_number__iendswith="/" + q.lstrip("0").zfill(5))
            | Q(pk__in=tagged)
            | Q(owner_name__icontains=q)
        )
    if data.get("pound"):
        qs = qs.filter(pound=data["pound"])
    if data.get("date_from"):
        start = timezone.make_aware(datetime.combine(data["date_from"], datetime.min.time()))
        qs = qs.filter(arrived_at__gte=start)
    if data.get("date_to"):
        end = timezone.make_aware(
            datetime.combine(data["date_to"] + timedelta(days=1), datetime.min.time())
        )
        qs = qs.filter(arrived_at__lt=end)
    return qs


# --- The keeper's today board ------------------------------------------------------------------

# The board lists at most this many animals a pound, longest in the pound first, with the
# pound's full count beside them: a pound with a backlog stays one screen, not thousands of rows.
BOARD_ROWS = 50


def _custody(pound_ids):
    return Animal.objects.filter(
        pound_id__in=pound_ids, state__in=[AnimalState.IMPOUNDED, *OUT_OF_POUND]
    )


def _custody_animals(pound_ids, per_pound):
    """The first `per_pound` animals in custody of each pound, and how many each pound holds
    ({pound id: count}). A window numbers and counts each pound's animals by arrival over the
    index of the animals in custody (`animal_custody_arrival`, ADR 0091), in its order, neither
    joined to their entries nor sorted; only the first rows are fetched whole."""
    first = list(
        _custody(pound_ids)
        .annotate(
            row=Window(
                RowNumber(),
                partition_by=F("pound_id"),
                order_by=(F("entry_arrived_at").asc(), F("number").asc(), F("pk").asc()),
            ),
            held=Window(Count("pk"), partition_by=F("pound_id")),
        )
        .filter(row__lte=per_pound)
        # Not in the model's order (by entry), which would join every animal to its entry.
        .order_by()
        .values_list("pk", "pound_id", "held")
    )
    counts = {pound_id: held for _pk, pound_id, held in first}
    links = Animal.reports.through.objects  # to the s.14 reports (auctions), probed by key
    animals = (
        Animal.objects.filter(pk__in=[pk for pk, _pound, _held in first])
        .select_related("impoundment")  # its pound is one the board holds (_day_board)
        .prefetch_related("custody_events")
        .annotate(report_link=first_key(links.filter(animal=OuterRef("pk"))))  # ADR 0088
        .order_by("entry_arrived_at", "number", "pk")
    )
    return animals, counts


def _board_row(animal, line, today, held):
    arrived = timezone.localtime(animal.born_at or animal.impoundment.arrived_at).date()
    return {
        "animal": animal,
        "days": (today - arrived).days + 1,
        "dues": line,
        "on_hold": animal.impoundment_id in held,
        "report_due": (today - arrived).days >= 8
        and animal.state == "impounded"
        and not animal.born_at
        and animal.report_link is None,
    }


def pound_day_board(pounds, now=None, per_pound=BOARD_ROWS):
    """For each pound: how many animals it holds, the first `per_pound` of them (longest in the
    pound first) with days and dues now, the days of the last week with no feeding record (s.27)
    and the entries awaiting their veterinary inspection. A fixed number of queries, whatever
    the pounds hold and however many they are.

    Without `now`, each pound's board is as of its own now, a training district's clock's (ADR
    0080): the pounds are taken a clock at a time, so the queries grow with the clocks in view
    (one for the real districts, one a training district), never with the pounds."""
    if now is not None:
        return _day_board(pounds, now, per_pound, {})
    offsets, clocks = _offsets(pounds), defaultdict(list)
    for pound in pounds:
        clocks[offsets.get(pound.pk, timedelta(0))].append(pound)
    real, rows = timezone.now(), {}
    for ahead, group in clocks.items():
        for row in _day_board(group, real + ahead, per_pound, offsets):
            rows[row["pound"].pk] = row
    return [rows[p.pk] for p in pounds]


def _day_board(pounds, now, per_pound, offsets):
    today = timezone.localdate(now)
    by_pound = {p.pk: [] for p in pounds}
    held = Claim.objects.held_entry_ids(list(by_pound))  # competing claims (decision 14)
    animals, counts = _custody_animals(list(by_pound), per_pound) if pounds else ([], {})
    prefetch_related_objects(pounds, "district")  # none when the caller selected them
    pound_of = {p.pk: p for p in pounds}  # not a pound and a district built for each animal
    for animal in animals:
        animal.impoundment.pound = animal.pound = pound_of[animal.pound_id]
        by_pound[animal.pound_id].append(animal)
    DistrictPolicy.prime(a[0].impoundment.pound.district for a in by_pound.values() if a)
    since = min((ist_date(a.impoundment.arrived_at) for a in animals), default=None)
    books = TariffBook.for_pounds([p for p in pounds if by_pound[p.pk]], since=since)  # at once
    unfed = missing_feeding_by_pound(list(by_pound), today - timedelta(days=7), today, offsets)
    uninspected = inspections_due_by_pound(list(by_pound), now)
    unfit = unfit_by_pound(list(by_pound))
    board = []
    for pound in pounds:
        animals = by_pound[pound.pk]
        problem = None
        try:
            statement = dues(animals, as_of=now, book=books[pound.pk]) if animals else None
        except TariffMissing as exc:
            statement, problem = None, exc.messages[0]
        lines = statement.lines if statement else [None] * len(animals)
        board.append(
            {
                "pound": pound,
                "rows": [
                    _board_row(a, ln, today, held) for a, ln in zip(animals, lines, strict=True)
                ],
                "in_custody": counts.get(pound.pk, 0),
                "shown_all": counts.get(pound.pk, 0) <= len(animals),
                "total": statement.total if statement else None,
                "tariff_problem": problem,
                "missing_feeding": unfed.get(pound.pk, []),
                "inspections_due": uninspected.get(pound.pk, []),
                "unfit": unfit.get(pound.pk, []),
            }
        )
    return board


# The rejected orders the keeper's home shows, for this many days after the check.
REJECTED_SHOWN_DAYS = 14


def court_orders_for_keeper(user, size=10):
    """The court orders at the user's pounds awaiting their check, and those rejected in the
    last REJECTED_SHOWN_DAYS days (the animals stayed), for the keeper's home. One query."""
    since = timezone.now() - timedelta(days=REJECTED_SHOWN_DAYS)
    return list(
        CourtOrder.objects.filter(
            impoundment__pound_id__in=visible_pound_ids(user, Permission.RELEASE_ANIMAL)
        )
        .filter(
            Q(status=CourtOrder.Status.AWAITING)
            | Q(status=CourtOrder.Status.REJECTED, reviewed_at__gte=since)
        )
        .select_related("impoundment__pound", "verification")
        .order_by("-recorded_at", "-pk")[:size]
    )


# --- The veterinary inspection at intake (ADR 0071) ---------------------------------------------

# The board lists at most this many entries a pound awaiting their inspection.
INSPECTIONS_SHOWN = 20


def awaiting_inspection(pound_ids=None):
    """The open register entries (an animal still in the pound) whose pack requires a veterinary
    inspection and that have none recorded: only what is open is read, never the history."""
    in_pound = Animal.objects.filter(impoundment=OuterRef("pk"), state=AnimalState.IMPOUNDED)
    inspected = Inspection.objects.filter(impoundment=OuterRef("pk"))
    entries = Impoundment.objects.filter(requiring_packs()).filter(Exists(in_pound))
    if pound_ids is not None:
        entries = entries.filter(pound_id__in=pound_ids)
    return entries.exclude(Exists(inspected))


def inspections_due_by_pound(pound_ids, now=None):
    """For the today board: each pound's entries awaiting their inspection, the oldest first, at
    most INSPECTIONS_SHOWN a pound, each with `due_at` and `overdue`. One query."""
    now = now or timezone.now()
    entries = (
        awaiting_inspection(pound_ids)
        .annotate(
            row=Window(RowNumber(), partition_by=F("pound_id"), order_by=(F("arrived_at"), F("pk")))
        )
        .filter(row__lte=INSPECTIONS_SHOWN)
        .order_by("pound_id", "arrived_at", "pk")
    )
    by_pound = defaultdict(list)
    for entry in entries:
        rule = requirement(entry)
        entry.due_at, entry.overdue = rule.due_at, rule.overdue(now)
        by_pound[entry.pound_id].append(entry)
    return by_pound


def inspection_record(entry):
    """The entry's veterinary inspection for its page and the s.16 account: the latest recorded
    (with its findings and their counts by fitness), whether the pack requires one, and its
    deadline. Two queries."""
    latest = (
        Inspection.objects.filter(impoundment=entry)
        .select_related("recorded_by")
        .prefetch_related("findings__animal")
        .order_by("-visited_at", "-pk")
        .first()
    )
    rule = requirement(entry)
    counts = Counter(f.fitness for f in latest.findings.all()) if latest else Counter()
    unfit = [f for f in latest.findings.all() if f.fitness == Fitness.UNFIT] if latest else []
    if unfit:  # a third query, only where the officer found an animal unfit
        directions = {d.finding_id: d for d in Direction.objects.filter(finding__in=unfit)}
        for f in unfit:
            f.given = directions.get(f.pk)
    return {
        "unfit": unfit,
        "inspection": latest,
        "required": rule.required,
        "due_at": rule.due_at,
        "overdue": latest is None and rule.overdue(clock.now(entry)),
        "counts": counts,
    }


# --- An animal found unfit: the Magistrate's direction under rule 3(b) (ADR 0071) --------------


def awaiting_direction(pound_ids=None):
    """The findings of unfit whose animal is still in the pound, with no direction recorded
    and no later inspection of the animal: only what is open is read."""
    later = Finding.objects.filter(
        animal=OuterRef("animal"), inspection__visited_at__gt=OuterRef("inspection__visited_at")
    )
    findings = Finding.objects.filter(
        fitness=Fitness.UNFIT, animal__state=AnimalState.IMPOUNDED, direction__isnull=True
    ).exclude(Exists(later))
    if pound_ids is not None:
        findings = findings.filter(animal__impoundment__pound_id__in=pound_ids)
    return findings


def unfit_by_pound(pound_ids):
    """For the today board: each pound's unfit animals awaiting the Magistrate's direction, at
    most INSPECTIONS_SHOWN a pound. One query."""
    findings = (
        awaiting_direction(pound_ids)
        .select_related("animal__impoundment")
        .annotate(
            row=Window(
                RowNumber(),
                partition_by=F("animal__impoundment__pound_id"),
                order_by=(F("inspection__visited_at"), F("pk")),
            )
        )
        .filter(row__lte=INSPECTIONS_SHOWN)
        .order_by("animal__impoundment__pound_id", "inspection__visited_at", "pk")
    )
    by_pound = defaultdict(list)
    for finding in findings:
        by_pound[finding.animal.impoundment.pound_id].append(finding)
    return by_pound
