"""A year of history for one demo district, so that charts and returns show real shapes.

Built through the services, back-dated: arrivals most days; most cattle claimed within the
week, some released on deposit, a few dying; the unclaimed reported, noticed and sold (or, when
no fair price is likely, disposed of by order); fines remitted monthly; surplus received and,
after three months, credited to revenue by the daily run. Seeded, so it is the same every time.
"""

import random
import uuid
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from accounts.models import District, Pound, User
from accounts.roles import Role
from auctions import services as sales
from auctions.models import Auction, Report, Shortfall
from impounding import services as register
from impounding.dues import dues
from impounding.models import (
    AgeClass,
    Animal,
    AnimalState,
    Deposit,
    Impoundment,
    SeizerCapacity,
    SeizureBasis,
    Sex,
    Species,
)
from impounding.selectors import custody_counts
from office import services as office
from office.deadlines import run as run_deadlines
from office.models import SurplusDeposit

KINDS = [
    (Species.CATTLE, Sex.FEMALE, AgeClass.ADULT, 40),
    (Species.CATTLE, Sex.CASTRATED, AgeClass.ADULT, 15),
    (Species.CATTLE, Sex.MALE, AgeClass.YOUNG, 10),
    (Species.BUFFALO, Sex.FEMALE, AgeClass.ADULT, 15),
    (Species.GOAT, Sex.FEMALE, AgeClass.ADULT, 12),
    (Species.SHEEP, Sex.MALE, AgeClass.ADULT, 5),
    (Species.ASS, Sex.MALE, AgeClass.ADULT, 3),
]
COLOURS = ["White", "Black", "Brown", "Grey", "Red", "Spotted white and black", "Light brown"]
OWNERS = [
    "Ram Kishore",
    "Sunita Devi",
    "Mohd. Yusuf",
    "Hari Om",
    "Geeta",
    "Rafiq Ahmad",
    "Balram",
    "Kamla",
    "Shiv Kumar",
    "Jamuna Prasad",
    "Anwar",
    "Sarla",
]
VILLAGES = ["Kursi", "Safdarganj", "Dewa", "Fatehpur", "Ramnagar"]


def _staff(district, role):
    return User.objects.filter(assignments__role=role, assignments__district=district).first()


def _pick(rng):
    weights = [k[3] for k in KINDS]
    species, sex, age, _w = rng.choices(KINDS, weights=weights)[0]
    return {
        "species": species,
        "sex": sex,
        "age_class": age,
        "colour": rng.choice(COLOURS),
        "marks": "",
        "ear_tag": "",
    }


def _release(entry, keeper, animals, at, rng, deposit=False):
    statement = dues(
        Animal.objects.filter(pk__in=[a.pk for a in animals])
        .select_related("impoundment__pound__district")
        .prefetch_related("custody_events"),
        as_of=at,
    )
    owner = entry.owner_name or rng.choice(OWNERS)
    common = dict(
        entry=entry,
        by=keeper,
        animal_ids=[a.pk for a in animals],
        idempotency_key=uuid.uuid4(),
        amount_tendered=statement.total,
        at=at,
        claimant_name=owner,
        claimant_address=rng.choice(VILLAGES),
        claimant_role="owner",
        owner_name=owner,
        payment_mode="cash" if rng.random() < 0.7 else "upi",
        acknowledgement="register_page",
        register_page=str(rng.randint(1, 200)),
    )
    common["payment_reference"] = (
        "" if common["payment_mode"] == "cash" else f"UPI{rng.randint(10**11, 10**12 - 1)}"
    )
    if deposit:
        return register.release_on_deposit(ground="Says the cattle were on his own land", **common)
    return register.release_on_payment(**common)


@dataclass(frozen=True)
class _Staff:
    keeper: User
    officer: User
    clerk: User
    magistrate: User


def _staff_of(district, pound):
    keeper = (
        _staff(district, Role.POUND_KEEPER)
        or User.objects.filter(
            assignments__role=Role.POUND_KEEPER, assignments__pound=pound
        ).first()
    )
    officer = User.objects.filter(
        assignments__role=Role.POLICE_OFFICER,
        assignments__police_station=pound.nearest_police_station,
    ).first()
    return _Staff(
        keeper, officer, _staff(district, Role.DM_CLERK), _staff(district, Role.MAGISTRATE)
    )


@transaction.atomic
def seed_history(district_code="bbk", days=365, seed=1871):
    district = District.objects.filter(code=district_code).first()
    pound = Pound.objects.filter(district=district).first() if district else None
    if pound is None or Impoundment.objects.filter(pound=pound).exists():
        return 0
    rng = random.Random(seed)
    staff = _staff_of(district, pound)
    now = timezone.now()
    start = now - timedelta(days=days)
    # The same random draws in the same order every time: the history is the same every time.
    pending, unclaimed = _arrivals(pound, staff.keeper, rng, start, days)
    _claims_and_deaths(pending, staff.keeper, rng, now)
    for entry in unclaimed:
        _sell_or_dispose(entry, pound, staff, rng, now)
    _office_decisions(pound, staff.magistrate)
    _feeding_log(pound, staff.keeper, start)
    _money_to_the_office(pound, staff)
    run_deadlines()
    return Report.objects.filter(pound=pound).count()


def _arrivals(pound, keeper, rng, start, days):
    """Arrivals most days, more after the monsoon sowing and at harvest. Returns what is to come
    of them: (kind, animal ids, entry, when) for claims, deposits and deaths; and the unclaimed."""
    pending = []
    unclaimed = []
    for day in range(days - 20):
        moment = start + timedelta(days=day, hours=rng.randint(7, 17))
        month = timezone.localtime(moment).month
        rate = 0.9 if month in (7, 8, 9, 10, 3, 4) else 0.45
        for _n in range(sum(1 for _k in range(4) if rng.random() < rate / 4)):
            entry = _arrival(pound, keeper, rng, moment)
            roll = rng.random()
            ids = list(entry.animals.values_list("pk", flat=True))
            if roll < 0.62:
                at = moment + timedelta(days=rng.randint(0, 6), hours=rng.randint(1, 5))
                pending.append(("pay", ids, entry, at))
            elif roll < 0.70:
                at = moment + timedelta(days=rng.randint(0, 4), hours=3)
                pending.append(("deposit", ids, entry, at))
            elif roll < 0.73:
                pending.append(("die", ids[:1], entry, moment + timedelta(days=rng.randint(1, 5))))
            else:
                unclaimed.append(entry)
    pending.sort(key=lambda p: p[3])
    return pending, unclaimed


def _arrival(pound, keeper, rng, moment):
    animals = [_pick(rng) for _a in range(rng.choice([1, 1, 1, 2, 2, 3]))]
    return register.create_entry(
        pound=pound,
        by=keeper,
        arrived_at=moment,
        seized_at=moment - timedelta(hours=rng.randint(1, 20)),
        seizure_place=f"Field near {rng.choice(VILLAGES)}",
        basis=SeizureBasis.S10_LAND,
        seizer_name="Cultivator",
        seizer_residence=rng.choice(VILLAGES),
        seizer_capacity=SeizerCapacity.CULTIVATOR,
        owner_name=rng.choice(OWNERS) if rng.random() < 0.6 else "",
        animals=animals,
    )


def _claims_and_deaths(pending, keeper, rng, now):
    for kind, ids, entry, at in pending:
        if at > now - timedelta(hours=1):
            continue
        animals = list(Animal.objects.filter(pk__in=ids, state=AnimalState.IMPOUNDED))
        if not animals:
            continue
        if kind == "die":
            register.record_death(animal=animals[0], by=keeper, at=at, cause="Illness")
        else:
            _release(entry, keeper, animals, at, rng, deposit=(kind == "deposit"))


def _sell_or_dispose(entry, pound, staff, rng, now):
    """An unclaimed entry: reported on D+8, noticed the day after, sold from N+8 (or, now and
    then, disposed of by the Magistrate's order)."""
    arrived = entry.arrived_at
    report_at = arrived + timedelta(days=8, hours=2)
    notice_day = timezone.localtime(report_at).date() + timedelta(days=1)
    sale_at = timezone.make_aware(
        timezone.datetime.combine(
            notice_day + timedelta(days=8 + rng.randint(0, 4)), timezone.datetime.min.time()
        )
    ) + timedelta(hours=11)
    if sale_at > now - timedelta(hours=1):
        return
    report = sales.send_report(entry=entry, by=staff.keeper, at=report_at)
    notice = sales.post_notice(
        report=report,
        by=staff.officer,
        posted_on=notice_day,
        posted_at=f"Notice board, {pound.nearest_police_station.name} PS",
        # The register's place is not for publishing: the officer states it on the notice.
        seizure_place="Fields beside the village road",
    )
    # Proclaimed by beat of drum in the village and at the market-place (s.14).
    for channel, place, day in (
        ("drum_village", "Village chaupal", notice_day),
        ("drum_market", "Weekly haat, Dewa", notice_day + timedelta(days=1)),
    ):
        sales.record_proclamation(
            notice=notice,
            by=staff.officer,
            channel=channel,
            made_on=day,
            made_by="Village chowkidar",
            place=place,
        )
    animals = [a for a in entry.animals.order_by("pk") if a.state == AnimalState.IMPOUNDED]
    if not animals:
        return
    if rng.random() < 0.12:
        order = sales.propose_disposal(
            pound=pound,
            animal_ids=[a.pk for a in animals],
            by=staff.clerk,
            reason="Old and weak; no fair price likely",
            mode="gaushala",
            recipient="Gaushala, Dewa",
        )
        sales.decide_disposal(order=order, by=staff.magistrate, approve=True)
        return
    _auction(pound, staff.officer, animals, sale_at, rng)


def _auction(pound, officer, animals, sale_at, rng):
    auction = sales.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=officer,
        officer=officer,
        scheduled_for=sale_at,
        lots=[[a.pk] for a in animals],
        at=sale_at - timedelta(days=2),
    )
    buyer = sales.register_bidder(
        auction=auction,
        by=officer,
        name="Trader " + str(rng.randint(100, 999)),
        address="Barabanki",
        id_kind="voter",
        id_number=f"UPV{rng.randint(10**6, 10**7)}",
        phone=f"98{rng.randint(10**7, 10**8)}",
        declaration_signed=True,
    )
    for lot in auction.lots.order_by("sequence"):
        animal = lot.animals.get()
        base = {Species.CATTLE: 18000, Species.BUFFALO: 30000}.get(animal.species, 4000)
        price = Decimal(base + rng.randint(-2, 12) * 1000)
        sales.sell_lot(
            lot=lot,
            buyer=buyer,
            price=price,
            by=officer,
            at=sale_at,
            expenses=Decimal("150.00"),
        )
    sales.close_auction(auction=auction, by=officer)


def _office_decisions(pound, magistrate):
    """The Magistrate confirmed the older deposits (applied) and wrote off the shortfalls of sales
    more than a month old; recent ones wait."""
    for deposit in Deposit.objects.filter(
        release__impoundment__pound=pound,
        status="held",
        complaint_deadline__lt=timezone.localdate() - timedelta(days=20),
    ):
        office.confirm_deposit_application(deposit=deposit, by=magistrate)
    for shortfall in Shortfall.objects.filter(
        pound=pound,
        status=Shortfall.Status.PENDING,
        sale__sold_at__lt=timezone.now() - timedelta(days=30),
    ):
        office.write_off_shortfall(
            shortfall=shortfall, by=magistrate, note="The best bid at a public auction."
        )


def _feeding_log(pound, keeper, start):
    """The feeding log, kept every day there were animals."""
    day = timezone.localtime(start).date()
    counts = custody_counts(pound, day, timezone.localdate())
    while day <= timezone.localdate():
        count = counts.get(day, 0)
        if count:
            register.log_feeding(
                pound=pound,
                by=keeper,
                date=day,
                animals_fed=count,
                fodder="Bhusa and green fodder",
                cost=Decimal(90 * count),
            )
        day += timedelta(days=1)


def _money_to_the_office(pound, staff):
    """The surplus received by the office; the fines remitted and confirmed. The daily run then
    credits the expired surplus to revenue."""
    for surplus in SurplusDeposit.objects.filter(pound=pound):
        office.receive_surplus(
            deposit=surplus,
            by=staff.clerk,
            received_on=min(surplus.sale_date + timedelta(days=3), timezone.localdate()),
        )
    due = office.unremitted_fines(pound)
    cash = office.cash_in_hand(pound)
    if due and cash:
        remittance = office.send_remittance(
            pound=pound,
            by=staff.keeper,
            amount=min(due, cash),
            challan_number="TR-BBK-2026-117",
            treasury="District Treasury, Barabanki",
            remitted_on=timezone.localdate(),
        )
        office.confirm_remittance(remittance=remittance, by=staff.clerk)
