"""What happens to each register entry of a scale data set, drawn from a seeded generator: its
animals, when they came and how they left. No database work here; the rows are made later."""

import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from decimal import Decimal

from django.conf import settings
from django.utils import timezone

from impounding.models import AgeClass, AnimalState, Sex, Species

from .. import tariffs as demo_tariffs
from .names import PEOPLE, ear_tag, mobile

# The data set's depth when none is asked for (scale.shape() chooses one by its size).
YEARS = 3
# The current intake, part of it still unclaimed, falls within this many days of the end: 3% of
# the arrivals of three years, and as many a day at any other depth (RECENT_SHARE / years).
RECENT_DAYS = 20
RECENT_SHARE = 0.09
# The report of unclaimed cattle falls due on the eighth day (s.14).
REPORT_DAY = 8

SPECIES = [
    (Species.CATTLE, 58),
    (Species.BUFFALO, 25),
    (Species.GOAT, 9),
    (Species.SHEEP, 3),
    (Species.HORSE, 2),
    (Species.ASS, 2),
    (Species.CAMEL, 1),
]
COLOURS = ["white", "black", "brown", "grey", "red", "black and white", "fawn", "spotted"]
MARKS = ["", "", "", "notch in left ear", "brand on right flank", "broken horn", "white blaze"]
# Of the register entries: the cattle nobody claims, reported, proclaimed and sold (s.14).
UNCLAIMED = 0.02
# Of the bovines (cattle, buffalo): those with a 12-digit national ear tag.
TAGGED = 0.8
# Of the seizers and of the claimants: those who give a mobile number.
SEIZER_PHONE, CLAIMANT_PHONE = 0.6, 0.85
# Of the deposits (s.15): those complained of within the ten days (s.20); of the complaints
# decided, those upheld (the deposit refunded, s.22) rather than dismissed (the deposit applied).
COMPLAINED, UPHELD = 0.12, 0.4
# Of the claims: those where two people claim the cattle and the officer decides (decision 14);
# of the releases on payment, those whose receipt was issued in error and cancelled (decision 11).
COMPETING, CANCELLED = 0.005, 0.003
# Of the claims: those the owner wins by a court's order (s.19) instead of paying.
BY_ORDER = 0.003
# Of the claims: those where the owner refuses to pay, and his cattle are sold (s.16).
REFUSED = 0.003
PLACES = ["wheat field east of the village", "sugarcane field by the canal", "mustard field",
          "paddy field near the school", "orchard by the main road", "vegetable plot"]  # fmt: skip


# The settings' zone, held once: the generator asks for a local date a few times an entry.
ZONE = zoneinfo.ZoneInfo(settings.TIME_ZONE)


def local_date(at):
    return at.astimezone(ZONE).date()


def at_local(day, hour, minute=0):
    return datetime.combine(day, time(hour, minute), tzinfo=ZONE)


@dataclass
class AnimalPlan:
    number: int
    species: str
    sex: str
    age_class: str
    colour: str
    marks: str
    fine: Decimal
    category: str
    code: str
    rate: Decimal
    state: str = AnimalState.IMPOUNDED
    end_at: object = None  # death or escape
    id: int = 0
    release_id: int = None
    custody_ended_at: object = None
    ear_tag: str = ""
    court_order_id: int = None
    notice_posted_on: object = None  # the day of the s.14 notice naming it, if any


@dataclass
class EntryPlan:
    arrived_at: object
    seized_at: object
    animals: list
    seizer: str
    owner: str
    place: str
    outcome: str  # "open", "paid", "deposit", "unclaimed"
    seizer_phone: str = ""
    claimant: str = ""
    claimant_phone: str = ""
    # A deposit's complaint (s.20): (filed at, decided at or None, upheld), or None.
    complaint: tuple = None
    claimed_at: object = None
    payment_mode: str = "cash"
    reported_at: object = None
    extras: dict = field(default_factory=dict)


def _fine_rule(species, age):
    """The demo scale's category for an animal: a rule naming its age class wins."""
    category = None
    for rule in demo_tariffs.FINE_RULES:
        if rule["species"] == species and rule.get("age_class") in (None, age):
            if category is None or rule.get("age_class") == age:
                category = rule["category"]
    return next(c for c in demo_tariffs.FINE_CATEGORIES if c["code"] == (category or "5"))


FEEDING = {
    (r["species"], r.get("age_class", AgeClass.ADULT)): Decimal(r["amount"])
    for r in demo_tariffs.feeding_rates()
}


def _animal(rng, number):
    species = rng.choices([s for s, _ in SPECIES], [w for _, w in SPECIES])[0]
    age = AgeClass.YOUNG if rng.random() < 0.15 else AgeClass.ADULT
    sex = rng.choice([Sex.FEMALE, Sex.FEMALE, Sex.MALE, Sex.CASTRATED])
    category = _fine_rule(species, age)
    rate = FEEDING.get((species, age)) or FEEDING[(species, AgeClass.ADULT)]
    return AnimalPlan(
        number=number,
        species=species,
        sex=sex,
        age_class=age,
        colour=rng.choice(COLOURS),
        marks=rng.choice(MARKS),
        fine=Decimal(category["amount"]),
        category=f"{category['code']}. {category['label']}",
        code=category["code"],
        rate=rate,
        ear_tag=ear_tag(rng)
        if species in (Species.CATTLE, Species.BUFFALO) and rng.random() < TAGGED
        else "",
    )


def arrivals(rng, count, now, *, keep_open, years=YEARS):
    """`count` arrival times over the last `years` years, oldest first; RECENT_SHARE / years of
    them within RECENT_DAYS, and the last `keep_open` within the last day, so some cattle are
    still in the pound however small the data set."""
    span = years * 365 * 86400
    recent = RECENT_DAYS * 86400
    recent_share = RECENT_SHARE / years
    times = []
    for i in range(count):
        if i >= count - keep_open:
            ago = rng.uniform(3600, 86400)
        elif rng.random() < recent_share:
            ago = rng.uniform(3600, recent)
        else:
            ago = rng.uniform(recent + 5 * 86400, span)
        times.append(now - timedelta(seconds=int(ago)))
    return sorted(times)


def _claim_time(rng, entry):
    """When the owner comes: most within a few days, some after the s.14 report."""
    days = rng.choices([1, 2, 3, 4, 5, 6, 7, 9, 11, 14], [22, 20, 15, 10, 8, 5, 5, 6, 5, 4])[0]
    return entry.arrived_at + timedelta(days=days, hours=rng.uniform(2, 10))


def _ends(rng, entry, r):
    """About 4% of entries lose an animal to death, 2% to escape, in the first days."""
    if r < 0.04 or 0.04 <= r < 0.06:
        animal = entry.animals[0]
        animal.state = AnimalState.DIED if r < 0.04 else AnimalState.ESCAPED
        animal.end_at = entry.arrived_at + timedelta(hours=rng.uniform(3, 60))
        if animal.state == AnimalState.DIED:
            animal.custody_ended_at = animal.end_at


def _report_time(entry, now):
    day = local_date(entry.arrived_at) + timedelta(days=REPORT_DAY)
    at = timezone.make_aware(datetime.combine(day, time(10, 30)))
    return at if at < now else None


def plan_entry(rng, arrived_at, now):
    n = rng.choices([1, 2, 3, 4], [62, 26, 8, 4])[0]
    entry = EntryPlan(
        arrived_at=arrived_at,
        seized_at=arrived_at - timedelta(minutes=rng.randint(30, 600)),
        animals=[_animal(rng, i) for i in range(1, n + 1)],
        seizer=PEOPLE.name(rng, female=False),
        owner=PEOPLE.name(rng) if rng.random() < 0.7 else "",
        place=rng.choice(PLACES),
        outcome="open",
        seizer_phone=mobile(rng) if rng.random() < SEIZER_PHONE else "",
    )
    _ends(rng, entry, rng.random())
    if rng.random() < UNCLAIMED:
        # Nobody comes: reported on the eighth day, then the notice, the drum and the sale.
        entry.outcome = "unclaimed"
        entry.reported_at = _report_time(entry, now)
        return entry
    # Claimed by now, as a pound's cattle are: most go home within days, so a pound holds tens of
    # cattle at a time, not its whole intake of RECENT_DAYS. The rest are still in the pound.
    r = rng.random()
    outcome = (
        "deposit"
        if r < 0.07
        else "order"
        if r < 0.07 + BY_ORDER
        else "refused"
        if r < 0.07 + BY_ORDER + REFUSED
        else "paid"
    )
    claim_at = _claim_time(rng, entry)
    mode = rng.choices(["cash", "upi", "other"], [70, 25, 5])[0]
    entry.claimant = entry.owner or PEOPLE.name(rng)
    entry.claimant_phone = mobile(rng) if rng.random() < CLAIMANT_PHONE else ""
    if claim_at < now - timedelta(hours=1):
        entry.outcome, entry.claimed_at, entry.payment_mode = outcome, claim_at, mode
    if entry.outcome == "open" or local_date(entry.claimed_at) >= report_day(entry):
        entry.reported_at = _report_time(entry, now)
    if entry.reported_at is not None and entry.outcome != "open":
        entry.reported_at = min(entry.reported_at, entry.claimed_at - timedelta(minutes=5))
    for animal in entry.animals:
        if animal.end_at is not None and entry.claimed_at is not None:
            animal.end_at = min(animal.end_at, entry.claimed_at - timedelta(hours=1))
            if animal.custody_ended_at is not None:
                animal.custody_ended_at = animal.end_at
    return entry


def report_day(entry):
    return local_date(entry.arrived_at) + timedelta(days=REPORT_DAY)


def claimed(entry):
    """The animals the claimant takes back: those still in the pound at the claim."""
    return [a for a in entry.animals if a.state == AnimalState.IMPOUNDED]


def feeding_days(entry, at):
    """Days of feeding from the day of arrival to the day of release, both counted."""
    first = local_date(entry.arrived_at)
    return (local_date(at) - first).days + 1
