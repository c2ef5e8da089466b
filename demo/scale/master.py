"""The master data of a scale data set: the demo's State, districts, pounds, staff and tariffs,
and as many more districts and pounds as asked for, each with its keeper and its accounts."""

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts import services as staff
from accounts.models import (
    District,
    DistrictPolicy,
    PoliceStation,
    Pound,
    PoundVillage,
    StaffAssignment,
    State,
    User,
    Village,
)
from accounts.roles import Role
from auctions.models import AuctionConditions
from demo import register as register_demo
from demo import staff as demo
from demo import tariffs as demo_tariffs
from impounding import tariffs
from impounding.models import FeedingRateOrder, FineScale
from ledger import services as ledger
from ledger.models import Account

from . import gaushalas
from .plan import YEARS

# The scale pounds' establishment, and the Magistrates' conditions of sale: before the first
# day of the deepest data set (ten years, scale.shape()).
SINCE = date(2015, 4, 1)


@dataclass
class PoundInfo:
    """What the generator needs to know of one pound, read once."""

    pk: int
    code: str
    name: str
    name_hi: str
    station_id: int
    station: str
    district_id: int
    keeper_id: int
    office_id: int  # who confirms a deposit's application (s.15): the district's office
    magistrate_id: int  # who decides what the office prepares (maker-checker)
    officer_id: int  # the officer for the pound: the s.14 notice and the sale
    village_ids: list
    accounts: dict = field(default_factory=dict)  # {(pound_id or None, kind): account id}
    scale: str = ""
    feeding_order: str = ""
    complaint_days: int = 10
    conditions: list = field(default_factory=list)  # [(valid_from, id, place, max expenses)]
    local_fund: bool = False  # unclaimed surplus goes to the local fund (s.31), not the State
    district_name: str = ""
    gaushalas: list = field(default_factory=list)  # the district's register, the pound's room


def _user(username, role, **where):
    user, created = User.objects.get_or_create(
        username=username,
        defaults={"first_name": username.split("_")[0].title(), "last_name": "Scale"},
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
        staff.assign_role(
            user=user,
            role=role,
            by=None,
            valid_from=demo.SINCE,
            order_reference="Scale data set",
            **where,
        )
    return user


def _district(state, n):
    code = f"sc{n:02d}"
    district, _ = District.objects.get_or_create(
        code=code,
        defaults={
            "state": state,
            "name": f"Scale District {n}",
            "name_hi": f"ज़िला {n}",
            "dm_office_name": f"Office of the District Magistrate, Scale District {n}",
        },
    )
    PoliceStation.objects.get_or_create(
        code=f"{code}-ps", defaults={"district": district, "name": f"Kotwali {n}"}
    )
    _user(f"clerk_{code}", Role.DM_CLERK, district=district)
    _user(f"magistrate_{code}", Role.MAGISTRATE, district=district)
    return district


def _pound(district, n):
    code = f"{district.code}-p{n:03d}"
    station = PoliceStation.objects.filter(district=district).order_by("pk").first()
    pound, created = Pound.objects.get_or_create(
        code=code,
        defaults={
            "district": district,
            "name": f"Kanji House {n}, {district.name}",
            "address": f"Kanji House {n}, {district.name}",
            "nearest_police_station": station,
            "establishment_order": f"DM/{district.code.upper()}/Pound/{n}",
            "establishment_order_date": SINCE,
            "active_from": SINCE,
        },
    )
    if created:
        village = Village.objects.create(
            code=f"{code}-v", district=district, name=f"Village {n} of {district.name}"
        )
        PoundVillage.objects.create(
            pound=pound,
            village=village,
            valid_from=SINCE,
            order_reference=pound.establishment_order,
        )
    return pound


def _keeper(pound):
    assignment = (
        StaffAssignment.objects.filter(pound=pound, role=Role.POUND_KEEPER).order_by("pk").first()
    )
    if assignment is not None:
        return assignment.user
    return _user(f"keeper_{pound.code}", Role.POUND_KEEPER, pound=pound)


def _office(pound):
    """The district's Magistrate or clerk, else the keeper (a district with no office staff)."""
    assignment = (
        StaffAssignment.objects.filter(
            district_id=pound.district_id, role__in=[Role.MAGISTRATE, Role.DM_CLERK]
        )
        .order_by("role", "pk")
        .first()
    )
    return assignment.user if assignment is not None else _keeper(pound)


def _magistrate(pound):
    """The district's Magistrate, made for the scale's districts that have none."""
    assignment = (
        StaffAssignment.objects.filter(district_id=pound.district_id, role=Role.MAGISTRATE)
        .order_by("pk")
        .first()
    )
    if assignment is not None:
        return assignment.user
    return _user(f"magistrate_{pound.district.code}", Role.MAGISTRATE, district=pound.district)


def _officer(pound):
    """The officer for the pound (s.14): of its police station, or appointed for it."""
    assignment = (
        StaffAssignment.objects.filter(role=Role.POLICE_OFFICER)
        .filter(Q(pound=pound) | Q(police_station_id=pound.nearest_police_station_id))
        .order_by("pk")
        .first()
    )
    if assignment is not None:
        return assignment.user
    station = pound.nearest_police_station
    return _user(f"officer_{station.code}", Role.POLICE_OFFICER, police_station=station)


def _conditions(district, clerk_id):
    """The Magistrate's conditions of sale (s.14) in the district, one in force since SINCE."""
    orders = AuctionConditions.objects.filter(district=district).order_by("valid_from")
    if not orders.filter(valid_from__lte=SINCE).exists():
        AuctionConditions.objects.create(
            district=district,
            order_reference=f"DM/{district.code.upper()}/Auction/{SINCE.year}",
            order_date=SINCE,
            valid_from=SINCE,
            valid_to=orders.first().valid_from - timedelta(days=1) if orders.exists() else None,
            place=f"Cattle market yard, {district.name}",
            hours="Tuesdays, 11:00 to 15:00",
            reserve_policy="No reserve, unless the officer fixes one for a lot with reasons",
            earnest_money=Decimal("500.00"),
            buyer_declarations="I am not an officer under the Cattle-Trespass Act, 1871 (s.19).",
            chargeable_expenses="Drum proclamation, lot tickets and the auctioneer's fee",
            max_expenses_per_lot=Decimal("250.00"),
            created_by_id=clerk_id,
        )
    return [(o.valid_from, o.pk, o.place, o.max_expenses_per_lot) for o in orders]


@transaction.atomic
def build(*, districts, pounds, years=YEARS):
    """The demo's master data, grown to `districts` districts and `pounds` pounds in all, with
    tariffs reaching back `years` years."""
    demo.seed_all()
    state = State.objects.get(code=demo.STATE["code"])
    have = list(District.objects.order_by("pk"))
    for n in range(len(have) + 1, districts + 1):
        have.append(_district(state, n))
    have = have[:districts]
    existing = list(Pound.objects.filter(district__in=have).order_by("pk"))
    n = 0
    while len(existing) < pounds:
        n += 1
        district = have[n % len(have)]
        pound = _pound(district, n)
        if pound not in existing:
            existing.append(pound)
    register_demo.seed_tariffs()
    _tariffs_before(timezone.localdate() - timedelta(days=years * 365 + 1))
    infos = [_info(p) for p in existing[:pounds]]
    registers = {}
    for info in infos:
        if info.district_id not in registers:
            district = District.objects.get(pk=info.district_id)
            registers[info.district_id] = gaushalas.bodies(
                district, clerk_id=info.office_id, since=SINCE
            )
        info.gaushalas = registers[info.district_id]
    return infos


def _tariffs_before(first_day):
    """The demo's s.12 scale and s.5 order are in force from 1 April 2024. A data set that
    reaches further back gets, in each district, the notification and the order in force before
    them (at the same rates), so that every animal still in custody has its dues: an animal
    that escaped in 2023 is in custody until it comes back (decision 12), and without a scale
    for its arrival the today board showed no dues for any pound it was in."""
    for district, clerk in register_demo.district_clerks():
        if (until := _day_before_first(FineScale, district, first_day)) is not None:
            tariffs.create_fine_scale(
                district=district,
                by=clerk,
                notification_number=f"Notification No. 7/{first_day.year}-LG",
                notification_date=first_day - timedelta(days=15),
                valid_from=first_day,
                valid_to=until,
                title="Fines for cattle impounded (s.12)",
                categories=demo_tariffs.FINE_CATEGORIES,
                rules=demo_tariffs.FINE_RULES,
            )
        if (until := _day_before_first(FeedingRateOrder, district, first_day)) is not None:
            tariffs.create_feeding_order(
                district=district,
                by=clerk,
                order_reference=f"DM/{district.code.upper()}/s.5/{first_day.year}",
                order_date=first_day - timedelta(days=10),
                valid_from=first_day,
                valid_to=until,
                rates=demo_tariffs.feeding_rates(*register_demo.FIRST_FEEDING_RATES),
            )


def _day_before_first(model, district, first_day):
    """The day before the district's first scale or order (`model`) comes into force, when that
    is after `first_day`; None when it covers `first_day` already, or there is none."""
    first = model.objects.filter(district=district).order_by("valid_from").first()
    if first is None or first.valid_from <= first_day:
        return None
    return first.valid_from - timedelta(days=1)


def _info(pound):
    ledger.open_accounts(pound=pound)
    accounts = {
        (a.pound_id, a.kind): a.pk
        for a in Account.objects.filter(district_id=pound.district_id).filter(
            Q(pound=pound) | Q(pound__isnull=True)
        )
    }
    scale = FineScale.objects.filter(district=pound.district_id).order_by("-valid_from").first()
    order = (
        FeedingRateOrder.objects.filter(district=pound.district_id).order_by("-valid_from").first()
    )
    policy = DistrictPolicy.for_district(pound.district)
    office = _office(pound)
    return PoundInfo(
        pk=pound.pk,
        code=pound.code,
        name=pound.name,
        name_hi=pound.name_hi,
        station_id=pound.nearest_police_station_id,
        station=str(pound.nearest_police_station),
        district_id=pound.district_id,
        keeper_id=_keeper(pound).pk,
        office_id=office.pk,
        magistrate_id=_magistrate(pound).pk,
        officer_id=_officer(pound).pk,
        village_ids=list(
            pound.village_links.order_by("village_id").values_list("village_id", flat=True)
        ),
        accounts=accounts,
        scale=str(scale) if scale else "",
        feeding_order=str(order) if order else "",
        complaint_days=policy.complaint_days,
        conditions=_conditions(pound.district, office.pk),
        local_fund=policy.surplus_destination == "local_fund",
        district_name=pound.district.name,
    )
