"""Demo data for the unclaimed-cattle path: animals at each stage, built through the services.

Runs after impounding.demo (which fills the live pound). Safe to run twice.
"""

from datetime import date, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from accounts.models import District, Pound, User, Village
from impounding import demo as register_demo
from impounding.models import AgeClass, AnimalState, Sex, Species

from . import services
from .models import Auction, AuctionConditions, Report


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


def _old_entry(pound, keeper, days_ago, animals, **kw):
    return register_demo._entry(pound, keeper, days_ago, animals, **kw)


@transaction.atomic
def seed_unclaimed():
    pound = Pound.objects.filter(code=register_demo.DEMO_POUND).first()
    if pound is None or Report.objects.filter(pound=pound).exists():
        return 0
    keeper = User.objects.get(username="keeper")
    officer = User.objects.get(username="officer")
    clerk = User.objects.get(username="clerk")
    magistrate = User.objects.get(username="magistrate")
    now, today = timezone.now(), timezone.localdate()
    cow, buffalo, goat = Species.CATTLE, Species.BUFFALO, Species.GOAT
    F, M, C = Sex.FEMALE, Sex.MALE, Sex.CASTRATED
    adult = AgeClass.ADULT
    animal = register_demo._animal
    village = Village.objects.filter(code="lko-gosainganj").first()
    common = {"seizure_village": village, "seizure_place": "Paddy field near the Gosainganj road"}

    # Reported, the notice not yet posted.
    e1 = _old_entry(
        pound, keeper, 9, [animal(cow, F, adult, "Brown", "White star on the forehead")], **common
    )
    services.send_report(entry=e1, by=keeper, at=now - timedelta(hours=20))
    # Notice posted four days ago: in its claim week; drum in the village and the market.
    e2 = _old_entry(
        pound, keeper, 13, [animal(buffalo, M, adult, "Black", "Left horn cut")], **common
    )
    r2 = services.send_report(entry=e2, by=keeper, at=now - timedelta(days=5))
    n2 = services.post_notice(
        report=r2,
        by=officer,
        posted_on=today - timedelta(days=4),
        posted_at="Notice board, Mohanlalganj police station",
    )
    services.record_proclamation(
        notice=n2,
        by=officer,
        channel="drum_village",
        made_on=n2.posted_on,
        made_by="Chowkidar Bhola",
        village=village,
        place="Gosainganj chaupal",
    )
    services.record_proclamation(
        notice=n2,
        by=officer,
        channel="drum_market",
        made_on=n2.posted_on + timedelta(days=1),
        made_by="Chowkidar Bhola",
        place="Nigohan weekly market",
    )
    # Notice run out: to be sold. An auction is scheduled for today with a blocked bidder.
    e3 = _old_entry(
        pound,
        keeper,
        20,
        [animal(cow, C, adult, "Grey bullock", "Nose ring"), animal(goat, F, adult, "Brown")],
        **common,
    )
    r3 = services.send_report(entry=e3, by=keeper, at=now - timedelta(days=12))
    n3 = services.post_notice(
        report=r3,
        by=officer,
        posted_on=today - timedelta(days=10),
        posted_at="Notice board, Mohanlalganj police station",
    )
    services.record_proclamation(
        notice=n3,
        by=officer,
        channel="drum_village",
        made_on=n3.posted_on,
        made_by="Chowkidar Bhola",
        village=village,
        place="Gosainganj chaupal",
    )
    a31, a32 = e3.animals.order_by("number")
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=officer,
        officer=officer,
        scheduled_for=now + timedelta(hours=2),
        lots=[[a31.pk], [a32.pk]],
    )
    services.register_bidder(
        auction=auction,
        by=officer,
        name="Mohd. Salim Qureshi",
        address="Bakshi ka Talab",
        id_kind="voter",
        id_number="UPV1234567",
        phone="9839000001",
        declaration_signed=True,
    )
    services.register_bidder(
        auction=auction,
        by=officer,
        name="Ramesh Yadav",
        address="Mohanlalganj",
        id_kind="aadhaar",
        id_number="4321",
        phone="9450000001",
        declaration_signed=True,
    )  # the pound-keeper
    # Sold earlier: a cow sold at auction, surplus held by the District Magistrate (s.17).
    e4 = _old_entry(pound, keeper, 30, [animal(cow, F, adult, "White", "Tag 44 torn")], **common)
    r4 = services.send_report(entry=e4, by=keeper, at=now - timedelta(days=22))
    n4 = services.post_notice(
        report=r4,
        by=officer,
        posted_on=today - timedelta(days=20),
        posted_at="Notice board, Mohanlalganj police station",
    )
    sold = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=officer,
        officer=officer,
        scheduled_for=now - timedelta(hours=1),
        at=now - timedelta(days=1),
        lots=[[e4.animals.get().pk]],
    )
    buyer = services.register_bidder(
        auction=sold,
        by=officer,
        name="Jagdish Prasad",
        address="Malihabad",
        id_kind="voter",
        id_number="UPV7654321",
        phone="9839000002",
        declaration_signed=True,
    )
    services.sell_lot(
        lot=sold.lots.get(),
        buyer=buyer,
        price=Decimal("42000.00"),
        by=officer,
        expenses=Decimal("200.00"),
    )
    services.close_auction(auction=sold, by=officer)
    del n4
    # An old, weak bullock nobody will pay a fair price for: the DM orders it to a gaushala.
    e5 = _old_entry(
        pound, keeper, 26, [animal(cow, C, adult, "White, very old", "Blind left eye")], **common
    )
    r5 = services.send_report(entry=e5, by=keeper, at=now - timedelta(days=18))
    services.post_notice(
        report=r5,
        by=officer,
        posted_on=today - timedelta(days=17),
        posted_at="Notice board, Mohanlalganj police station",
    )
    order = services.propose_disposal(
        pound=pound,
        animal_ids=[e5.animals.get().pk],
        by=clerk,
        reason="Old and blind bullock: no bid at two auctions and no fair price likely",
        mode="gaushala",
        recipient="Shri Krishna Gaushala, Nigohan",
    )
    services.decide_disposal(
        order=order, by=magistrate, approve=True, note="Approved under the proviso to s.14"
    )
    # s.16: the owner came and refused to pay for three goats; two sold covered the dues.
    e6 = _old_entry(
        pound,
        keeper,
        5,
        [
            animal(goat, F, adult, "Black"),
            animal(goat, F, adult, "White"),
            animal(goat, M, adult, "Brown"),
        ],
        owner_name="Bansi Lal",
        owner_residence="Samesi",
        **common,
    )
    case = services.open_s16_case(
        entry=e6,
        animal_ids=list(e6.animals.values_list("pk", flat=True)),
        by=keeper,
        owner_name="Bansi Lal",
        owner_address="Samesi",
    )
    type(case).objects.filter(pk=case.pk).update(recorded_at=now - timedelta(days=3))
    case.refresh_from_db()
    g1, g2, g3 = e6.animals.order_by("number")
    s16 = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.OWNER_REFUSED,
        by=officer,
        officer=officer,
        s16_case=case,
        scheduled_for=now - timedelta(hours=1),
        at=now - timedelta(days=1),
        lots=[[g1.pk], [g2.pk], [g3.pk]],
    )
    goat_buyer = services.register_bidder(
        auction=s16,
        by=officer,
        name="Kallu Khan",
        address="Nigohan",
        id_kind="voter",
        id_number="UPV5550001",
        phone="9839000003",
        declaration_signed=True,
    )
    for lot in s16.lots.order_by("sequence"):
        lot.refresh_from_db()
        if lot.status != "open":
            continue
        services.sell_lot(
            lot=lot,
            buyer=goat_buyer,
            price=Decimal("6500.00"),
            by=officer,
            expenses=Decimal("100.00"),
        )
    services.settle_s16_case(
        case=case, by=officer, acknowledgement="register_page", register_page="58"
    )
    services.close_auction(auction=s16, by=officer)
    assert e6.animals.filter(state=AnimalState.RETURNED_S16).exists()
    return Report.objects.filter(pound=pound).count()
