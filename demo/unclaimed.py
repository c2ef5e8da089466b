"""Demo data for the unclaimed-cattle path: animals at each stage, built through the services.

Runs after demo.register (which fills the live pound). Safe to run twice.
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from accounts.models import District, Pound, User, Village
from auctions import services
from auctions.models import Auction, AuctionConditions, Lot, Report, S16Case
from impounding.models import AgeClass, AnimalState, Sex, Species

from . import handover as handover_demo
from . import media as demo_media
from . import register as register_demo

animal = register_demo.animal
F, M, C = Sex.FEMALE, Sex.MALE, Sex.CASTRATED
ADULT = AgeClass.ADULT


def seed_conditions():
    for district in District.objects.all():
        clerk = User.objects.filter(
            assignments__role="dm_clerk", assignments__district=district
        ).first()
        if clerk is None or AuctionConditions.objects.filter(district=district).exists():
            continue
        services.set_auction_conditions(
            district=district,
            by=clerk,
            order_reference=f"DM/{district.code.upper()}/Auction/2024",
            order_date=date(2024, 3, 25),
            valid_from=date(2024, 4, 1),
            place=f"Cattle market yard, {district.name}",
            hours="Tuesdays, 11:00 to 15:00",
            reserve_policy="No reserve, unless the officer fixes one for a lot with reasons",
            earnest_money=Decimal("500.00"),
            buyer_declarations=(
                "I am not an officer of police, a pound-keeper or any other officer appointed "
                "under the Cattle-Trespass Act, 1871, and I am not buying for one, directly or "
                "indirectly (s.19). I will not send the animal for slaughter where the law "
                "forbids it, and I will carry a transport permit where one is required."
            ),
            chargeable_expenses="Drum proclamation, lot tickets and the auctioneer's fee",
            max_expenses_per_lot=Decimal("250.00"),
            s16_min_gap_days=1,
        )


@dataclass(frozen=True)
class _Cast:
    """Who does what in the demo pound, and when "now" is."""

    pound: Pound
    keeper: User
    officer: User
    clerk: User
    magistrate: User
    village: Village | None
    now: datetime
    today: date


def _old_entry(cast, days_ago, animals, **kw):
    seizure = {
        "seizure_village": cast.village,
        "seizure_place": "Paddy field near the Gosainganj road",
    }
    return register_demo.entry_days_ago(
        cast.pound, cast.keeper, days_ago, animals, **(seizure | kw)
    )


def _reported(cast, entry, *, sent_days_ago, posted_days_ago):
    """Report `entry`, and have the officer post the notice; returns the notice."""
    report = services.send_report(
        entry=entry, by=cast.keeper, at=cast.now - timedelta(days=sent_days_ago)
    )
    return services.post_notice(
        report=report,
        by=cast.officer,
        posted_on=cast.today - timedelta(days=posted_days_ago),
        posted_at="Notice board, Mohanlalganj police station",
    )


def _drum(cast, notice, channel, made_on, place, village=None, photo=None):
    services.record_proclamation(
        photo=photo,
        notice=notice,
        by=cast.officer,
        channel=channel,
        made_on=made_on,
        made_by="Chowkidar Bhola",
        village=village,
        place=place,
    )


def _bidder(cast, auction, name, address, id_kind, id_number, phone):
    return services.register_bidder(
        auction=auction,
        by=cast.officer,
        name=name,
        address=address,
        id_kind=id_kind,
        id_number=id_number,
        phone=phone,
        declaration_signed=True,
    )


@transaction.atomic
def seed_unclaimed():
    pound = Pound.objects.filter(code=register_demo.DEMO_POUND).first()
    if pound is None or Report.objects.filter(pound=pound).exists():
        return 0
    cast = _Cast(
        pound=pound,
        keeper=User.objects.get(username="keeper"),
        officer=User.objects.get(username="officer"),
        clerk=User.objects.get(username="clerk"),
        magistrate=User.objects.get(username="magistrate"),
        village=Village.objects.filter(code="lko-gosainganj").first(),
        now=timezone.now(),
        today=timezone.localdate(),
    )
    _seed_reported(cast)
    _seed_claim_week(cast)
    _seed_auction_today(cast)
    _seed_sold(cast)
    handover_demo.seed_handover(cast, old_entry=_old_entry, reported=_reported)
    _seed_s16(cast)
    return Report.objects.filter(pound=pound).count()


def _seed_reported(cast):
    """Reported, the notice not yet posted."""
    entry = _old_entry(
        cast, 9, [animal(Species.CATTLE, F, ADULT, "Brown", "White star on the forehead")]
    )
    services.send_report(entry=entry, by=cast.keeper, at=cast.now - timedelta(hours=20))


def _seed_claim_week(cast):
    """Notice posted four days ago: in its claim week; drum in the village and the market."""
    buffalo = animal(
        Species.BUFFALO,
        M,
        ADULT,
        "Black",
        "Left horn cut",
        photo=demo_media.animal_photo(coat=(45, 45, 50), patches=(30, 30, 35)),
    )
    entry = _old_entry(cast, 13, [buffalo])
    notice = _reported(cast, entry, sent_days_ago=5, posted_days_ago=4)
    _drum(
        cast,
        notice,
        "drum_village",
        notice.posted_on,
        "Gosainganj chaupal",
        cast.village,
        photo=demo_media.proclamation_photo(),
    )
    _drum(
        cast, notice, "drum_market", notice.posted_on + timedelta(days=1), "Nigohan weekly market"
    )


def _seed_auction_today(cast):
    """Notice run out: to be sold. An auction is scheduled for today with a blocked bidder."""
    entry = _old_entry(
        cast,
        20,
        [
            animal(Species.CATTLE, C, ADULT, "Grey bullock", "Nose ring"),
            animal(Species.GOAT, F, ADULT, "Brown"),
        ],
    )
    notice = _reported(cast, entry, sent_days_ago=12, posted_days_ago=10)
    # Proclaimed in the village and at the market-place before the auction is scheduled (s.14).
    _drum(cast, notice, "drum_village", notice.posted_on, "Gosainganj chaupal", cast.village)
    _drum(cast, notice, "drum_market", notice.posted_on, "Nigohan weekly market")
    bullock, goat = entry.animals.order_by("number")
    auction = services.schedule_auction(
        pound=cast.pound,
        kind=Auction.Kind.UNCLAIMED,
        by=cast.officer,
        officer=cast.officer,
        scheduled_for=cast.now + timedelta(hours=2),
        lots=[[bullock.pk], [goat.pk]],
    )
    _bidder(
        cast, auction, "Mohd. Salim Qureshi", "Bakshi ka Talab", "voter", "UPV1234567", "9839000001"
    )
    # The pound-keeper: blocked (s.19).
    _bidder(cast, auction, "Ramesh Yadav", "Mohanlalganj", "aadhaar", "4321", "9450000001")


def _seed_sold(cast):
    """Sold earlier: a cow sold at auction, surplus held by the District Magistrate (s.17)."""
    entry = _old_entry(cast, 30, [animal(Species.CATTLE, F, ADULT, "White", "Tag 44 torn")])
    notice = _reported(cast, entry, sent_days_ago=22, posted_days_ago=20)
    _drum(cast, notice, "drum_village", notice.posted_on, "Gosainganj chaupal", cast.village)
    _drum(
        cast, notice, "drum_market", notice.posted_on + timedelta(days=1), "Nigohan weekly market"
    )
    sold = services.schedule_auction(
        pound=cast.pound,
        kind=Auction.Kind.UNCLAIMED,
        by=cast.officer,
        officer=cast.officer,
        scheduled_for=cast.now - timedelta(hours=1),
        at=cast.now - timedelta(days=1),
        lots=[[entry.animals.get().pk]],
    )
    buyer = _bidder(cast, sold, "Jagdish Prasad", "Malihabad", "voter", "UPV7654321", "9839000002")
    services.sell_lot(
        lot=sold.lots.get(),
        buyer=buyer,
        price=Decimal("42000.00"),
        by=cast.officer,
        expenses=Decimal("200.00"),
    )
    services.close_auction(auction=sold, by=cast.officer)


def _seed_s16(cast):
    """s.16: the owner came and refused to pay for three goats; two sold covered the dues."""
    entry = _old_entry(
        cast,
        5,
        [
            animal(Species.GOAT, F, ADULT, "Black"),
            animal(Species.GOAT, F, ADULT, "White"),
            animal(Species.GOAT, M, ADULT, "Brown"),
        ],
        owner_name="Bansi Lal",
        owner_residence="Samesi",
    )
    case = services.open_s16_case(
        entry=entry,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        by=cast.keeper,
        owner_name="Bansi Lal",
        owner_address="Samesi",
    )
    S16Case.objects.filter(pk=case.pk).update(recorded_at=cast.now - timedelta(days=3))
    case.refresh_from_db()
    auction = services.schedule_auction(
        pound=cast.pound,
        kind=Auction.Kind.OWNER_REFUSED,
        by=cast.officer,
        officer=cast.officer,
        s16_case=case,
        scheduled_for=cast.now - timedelta(hours=1),
        at=cast.now - timedelta(days=1),
        lots=[[goat.pk] for goat in entry.animals.order_by("number")],
    )
    buyer = _bidder(cast, auction, "Kallu Khan", "Nigohan", "voter", "UPV5550001", "9839000003")
    for lot in auction.lots.order_by("sequence"):
        lot.refresh_from_db()
        if lot.status != Lot.Status.OPEN:
            continue
        services.sell_lot(
            lot=lot,
            buyer=buyer,
            price=Decimal("6500.00"),
            by=cast.officer,
            expenses=Decimal("100.00"),
        )
    services.settle_s16_case(
        case=case, by=cast.officer, acknowledgement="register_page", register_page="58"
    )
    services.close_auction(auction=auction, by=cast.officer)
    assert entry.animals.filter(state=AnimalState.RETURNED_S16).exists()
