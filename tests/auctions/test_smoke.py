from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from auctions import services
from auctions.models import Auction, Lot, S16Case
from impounding.models import AnimalState
from kernel.events import verify_chain
from ledger.checks import run_checks
from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
from tests.impounding.factories import cow, goat, make_entry


def test_unclaimed_path_end_to_end(pound, pound_keeper, police_officer, district, tariffs):
    conditions(district)
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9
    )
    services.record_proclamation(
        notice=notice,
        by=police_officer,
        channel="drum_village",
        made_on=notice.posted_on,
        made_by="Chowkidar Ram",
        place="Nigohan",
    )
    early = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    report_and_notice(early, pound_keeper, police_officer, sent_days_ago=3, posted_days_ago=3)
    with pytest.raises(ValidationError, match="earliest lawful date"):
        services.schedule_auction(
            pound=pound,
            kind=Auction.Kind.UNCLAIMED,
            by=police_officer,
            scheduled_for=timezone.now(),
            lots=[[early.animals.get().pk]],
            officer=police_officer,
        )
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=police_officer,
        scheduled_for=timezone.now(),
        lots=[[entry.animals.get().pk]],
        officer=police_officer,
    )
    bidder = services.register_bidder(
        auction=auction,
        by=police_officer,
        name="Mohd. Salim",
        address="Bakshi ka Talab",
        id_kind="voter",
        id_number="UP/12/345/678",
        phone="9999911111",
        declaration_signed=True,
    )
    lot = auction.lots.get()
    sale = services.sell_lot(
        lot=lot,
        buyer=bidder,
        price=Decimal("40000.00"),
        by=police_officer,
        expenses=Decimal("150.00"),
    )
    assert sale.surplus == Decimal("40000.00") - sale.fines - sale.feeding - Decimal("150.00")
    assert entry.animals.get().state == AnimalState.SOLD
    assert run_checks() == []
    assert verify_chain() == []


def test_staff_bidder_is_blocked(pound, pound_keeper, police_officer, district, tariffs):
    conditions(district)
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9)
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=police_officer,
        scheduled_for=timezone.now(),
        lots=[[entry.animals.get().pk]],
        officer=police_officer,
    )
    bidder = services.register_bidder(
        auction=auction,
        by=police_officer,
        name=pound_keeper.get_full_name(),
        address="x",
        id_kind="other",
        id_number="1",
        phone="9000000001",
        declaration_signed=True,
    )
    assert bidder.blocked
    with pytest.raises(ValidationError):
        services.sell_lot(
            lot=auction.lots.get(), buyer=bidder, price=Decimal("100.00"), by=police_officer
        )


def test_s16_sells_as_many_as_necessary(pound, pound_keeper, police_officer, district, tariffs):
    conditions(district)
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow(), cow(), goat()],
        arrived_at=timezone.now() - timedelta(days=3),
    )
    case = services.open_s16_case(
        entry=entry,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        by=pound_keeper,
        owner_name="Shyam",
        owner_address="Samesi",
    )
    S16Case.objects.filter(pk=case.pk).update(recorded_at=timezone.now() - timedelta(days=2))
    case.refresh_from_db()
    a1, a2, a3 = entry.animals.order_by("number")
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.OWNER_REFUSED,
        by=police_officer,
        s16_case=case,
        scheduled_for=timezone.now(),
        lots=[[a1.pk], [a2.pk], [a3.pk]],
        officer=police_officer,
    )
    bidder = services.register_bidder(
        auction=auction,
        by=police_officer,
        name="Mohd. Salim",
        address="x",
        id_kind="voter",
        id_number="AB123",
        phone="9999911111",
        declaration_signed=True,
    )
    lots = list(auction.lots.order_by("sequence"))
    services.sell_lot(lot=lots[0], buyer=bidder, price=Decimal("30000.00"), by=police_officer)
    case.refresh_from_db()
    assert case.status == S16Case.Status.OPEN
    services.sell_lot(lot=lots[1], buyer=bidder, price=Decimal("30000.00"), by=police_officer)
    case.refresh_from_db()
    assert case.status == S16Case.Status.COVERED
    assert Lot.objects.get(pk=lots[2].pk).status == Lot.Status.NOT_NEEDED
    services.settle_s16_case(
        case=case, by=police_officer, acknowledgement="register_page", register_page="9"
    )
    case.refresh_from_db()
    assert case.balance > 0
    a3.refresh_from_db()
    assert a3.state == AnimalState.RETURNED_S16
    assert run_checks() == []
    assert verify_chain() == []
