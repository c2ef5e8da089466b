"""The public auction of unclaimed cattle (s.14): conditions, scheduling, lots, the hammer and
where the money goes (s.17)."""

from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Counter, IssuedDocument
from accounts.roles import Role
from auctions import services
from auctions.models import (
    Auction,
    AuctionConditions,
    Bid,
    Lot,
    LotAnimal,
    Sale,
    Shortfall,
)
from auctions.selectors import sold_lot
from impounding import services as impounding
from impounding.models import Animal, AnimalState
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import AccountKind, Transaction, TransactionKind
from tests.accounts.factories import PoliceStationFactory, staff
from tests.auctions.factories import (
    balances,
    conditions,
    ready_for_sale,
    register,
    report_and_notice,
    schedule,
    unclaimed_entry,
)
from tests.impounding.factories import cow, goat, make_entry

IST = ZoneInfo("Asia/Kolkata")
ZERO = Decimal("0.00")


def fmt(day):
    return day.strftime("%d-%m-%Y")


def at_eleven(day):
    return datetime(day.year, day.month, day.day, 11, tzinfo=IST)


def written():
    """Every table a refused step could have touched."""
    return (
        Auction.objects.count(),
        Lot.objects.count(),
        Sale.objects.count(),
        Bid.objects.count(),
        Shortfall.objects.count(),
        AuctionConditions.objects.count(),
        Transaction.objects.count(),
        IssuedDocument.objects.count(),
        Event.objects.count(),
        list(Counter.objects.order_by("key").values_list("key", "value")),
        list(Lot.objects.order_by("pk").values_list("status", flat=True)),
    )


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def standing_order(district, dm_clerk):
    return conditions(district, by=dm_clerk)


@pytest.fixture
def ready(pound, pound_keeper, police_officer, standing_order, tariffs):
    """A cow impounded 20 days ago whose notice was posted 9 days ago: she may be sold today.
    Her dues today: the fine ₹20,000 and 21 days of feeding at ₹500."""
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    return entry


# --- The District Magistrate's standing orders ---------------------------------------------


def order(district, by, valid_from, valid_to=None, reference="DM/Auction/2"):
    return conditions(
        district, by=by, valid_from=valid_from, valid_to=valid_to, order_reference=reference
    )


def test_new_standing_order_supersedes_the_open_one(district, dm_clerk):
    first = order(district, dm_clerk, date(2024, 4, 1), reference="DM/Auction/1")

    second = order(district, dm_clerk, date(2025, 1, 1), reference="DM/Auction/2")

    first.refresh_from_db()
    assert first.valid_to == date(2024, 12, 31)
    assert services.conditions_on(district, date(2024, 12, 31)) == first
    assert services.conditions_on(district, date(2025, 1, 1)) == second
    event = Event.objects.filter(action="s14.conditions_set").order_by("seq").last()
    assert (event.section, event.chain, event.data["superseded"]) == (
        "s.14",
        f"district:{district.pk}",
        [first.pk],
    )


@pytest.mark.parametrize(
    ("valid_from", "valid_to"),
    [
        (date(2024, 6, 1), date(2024, 8, 1)),  # inside the ended order
        (date(2024, 12, 1), None),  # from within the ended order, open-ended
        (date(2025, 1, 1), None),  # the same start as the order in force
        (date(2023, 1, 1), date(2024, 4, 1)),  # ends on the first order's first day
    ],
)
def test_overlapping_standing_order_refused(district, dm_clerk, valid_from, valid_to):
    order(district, dm_clerk, date(2024, 4, 1), reference="DM/Auction/1")
    order(district, dm_clerk, date(2025, 1, 1), reference="DM/Auction/2")
    before = written()

    with pytest.raises(ValidationError) as refused:
        order(district, dm_clerk, valid_from, valid_to, reference="DM/Auction/3")

    assert "valid_from" in refused.value.message_dict
    assert written() == before


def test_standing_order_before_the_first_is_accepted(district, dm_clerk):
    first = order(district, dm_clerk, date(2024, 4, 1), reference="DM/Auction/1")

    earlier = order(district, dm_clerk, date(2023, 1, 1), date(2024, 3, 31), reference="DM/0")

    first.refresh_from_db()
    assert first.valid_to is None
    assert services.conditions_on(district, date(2023, 6, 1)) == earlier


@pytest.mark.parametrize("who", ["pound_keeper", "police_officer", "auditor", "outsider"])
def test_standing_order_set_only_by_the_magistrates_office(request, district, who):
    user = request.getfixturevalue(who)
    before = written()

    with pytest.raises(PermissionDenied):
        order(district, user, date(2024, 4, 1))

    assert written() == before


def test_magistrate_may_set_the_standing_order_too(district, magistrate):
    assert order(district, magistrate, date(2024, 4, 1)).created_by == magistrate


# --- Scheduling --------------------------------------------------------------------------------


@pytest.mark.parametrize("days_after_notice", range(9))
def test_schedule_refused_before_the_eighth_day_after_the_notice(
    pound, pound_keeper, police_officer, standing_order, tariffs, days_after_notice
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=2, posted_days_ago=0
    )
    when = at_eleven(notice.posted_on + timedelta(days=days_after_notice))
    before = written()

    if days_after_notice < 8:
        with pytest.raises(ValidationError) as refused:
            schedule(pound, police_officer, [entry.animals.all()], when=when)
        message = refused.value.message_dict["scheduled_for"][0]
        assert f"earliest lawful date of sale for {entry.animals.get().reference}" in message
        assert fmt(notice.posted_on + timedelta(days=8)) in message
        assert f"posted on {fmt(notice.posted_on)}" in message
        assert written() == before
    else:
        auction = schedule(pound, police_officer, [entry.animals.all()], when=when)
        assert (auction.status, auction.scheduled_for) == (Auction.Status.SCHEDULED, when)
        assert auction.conditions == standing_order
        assert auction.place == standing_order.place
        event = Event.objects.get(action="auction.scheduled")
        assert (event.section, event.data["auction"]) == ("s.14", auction.number)


def test_sale_before_the_eighth_day_and_the_hour_is_refused_for_the_hour(
    pound, pound_keeper, police_officer, standing_order, tariffs
):
    """Both rules forbid the sale; the true reason is the hour announced."""
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=2, posted_days_ago=0
    )
    auction = schedule(
        pound,
        police_officer,
        [entry.animals.all()],
        when=at_eleven(notice.posted_on + timedelta(days=8)),
    )
    bidder = register(auction, police_officer)
    before = written()

    with pytest.raises(ValidationError, match="announced for .*no lot is sold") as refused:
        services.sell_lot(
            lot=auction.lots.get(), buyer=bidder, price=Decimal("30000.00"), by=police_officer
        )
    with pytest.raises(ValidationError, match="announced for .*no bid is taken"):
        services.record_bid(
            lot=auction.lots.get(), bidder=bidder, amount=Decimal("100.00"), by=police_officer
        )

    assert "eighth day" not in str(refused.value)

    assert written() == before
    assert entry.animals.get().state == AnimalState.IMPOUNDED


def test_sale_refused_before_the_announced_hour(ready, pound, police_officer, time_machine):
    """The public were told the hour of the auction: no hammer falls before it, even on a
    lawful day; a paper record entered late cannot be dated before it, nor in the future."""
    announced = timezone.now() + timedelta(hours=2)
    auction = schedule(pound, police_officer, [ready.animals.all()], when=announced)
    bidder = register(auction, police_officer)
    before = written()

    def sell(at=None):
        return services.sell_lot(
            lot=auction.lots.get(),
            buyer=bidder,
            price=Decimal("30000.00"),
            by=police_officer,
            at=at,
        )

    with pytest.raises(ValidationError, match="announced for .*no lot is sold before then"):
        sell()
    with pytest.raises(ValidationError, match="cannot be dated in the future"):
        sell(at=announced)
    time_machine.move_to(announced + timedelta(minutes=30))
    with pytest.raises(ValidationError, match="announced for .*no lot is sold before then"):
        sell(at=announced - timedelta(minutes=1))

    assert written() == before
    assert ready.animals.get().state == AnimalState.IMPOUNDED
    assert sell(at=announced).sold_at == announced


def test_schedule_in_the_past_refused(ready, pound, police_officer):
    before = written()

    with pytest.raises(ValidationError) as refused:
        schedule(
            pound, police_officer, [ready.animals.all()], when=timezone.now() - timedelta(days=1)
        )

    assert "scheduled_for" in refused.value.message_dict
    assert written() == before


def test_schedule_refused_without_a_standing_order(
    pound, pound_keeper, police_officer, district, dm_clerk, tariffs
):
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    before = written()

    with pytest.raises(ValidationError, match="No standing order") as refused:
        schedule(pound, police_officer, [entry.animals.all()])

    assert fmt(timezone.localdate()) in refused.value.messages[0]
    assert written() == before


def test_schedule_refused_on_a_day_after_the_standing_order_ended(
    pound, pound_keeper, police_officer, district, dm_clerk, tariffs
):
    conditions(district, by=dm_clerk, valid_to=timezone.localdate() + timedelta(days=2))
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)

    assert schedule(pound, police_officer, [entry.animals.all()]).pk
    with pytest.raises(ValidationError, match="No standing order"):
        schedule(
            pound,
            police_officer,
            [entry.animals.all()],
            when=timezone.now() + timedelta(days=3),
        )


def test_schedule_refused_for_an_animal_without_a_notice(
    pound, pound_keeper, police_officer, standing_order, tariffs
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    services.send_report(entry=entry, by=pound_keeper)
    before = written()

    with pytest.raises(ValidationError, match="has no notice under s.14"):
        schedule(pound, police_officer, [entry.animals.all()])

    assert written() == before


def test_schedule_refused_for_an_animal_of_another_pound(ready, pound, other_pound, police_officer):
    keeper = staff(Role.POUND_KEEPER, "keeper2", pound=other_pound)
    stranger = make_entry(pound=other_pound, by=keeper)

    with pytest.raises(ValidationError, match="not in this pound"):
        schedule(pound, police_officer, [ready.animals.all(), stranger.animals.all()])


def test_schedule_refused_with_an_animal_twice(ready, pound, police_officer):
    animal = ready.animals.get()

    with pytest.raises(ValidationError, match="exactly one lot"):
        schedule(pound, police_officer, [[animal], [animal]])


def test_animal_cannot_be_in_two_open_lots(ready, pound, police_officer):
    first = schedule(pound, police_officer, [ready.animals.all()])
    before = written()

    with pytest.raises(ValidationError, match="already in a lot of another auction"):
        schedule(
            pound, police_officer, [ready.animals.all()], when=timezone.now() + timedelta(days=1)
        )

    assert written() == before
    assert first.lots.get().status == Lot.Status.OPEN


# --- Who conducts the sale ---------------------------------------------------------------------


def test_schedule_refused_to_anyone_without_run_auction(ready, pound, pound_keeper):
    before = written()

    with pytest.raises(PermissionDenied):
        schedule(pound, pound_keeper, [ready.animals.all()])

    assert written() == before


@pytest.mark.parametrize("who", ["pound_keeper", "dm_clerk", "magistrate", "stranger_officer"])
def test_conducting_officer_must_hold_run_auction_on_the_pound(
    request, ready, pound, police_officer, other_district, who
):
    if who == "stranger_officer":
        station = PoliceStationFactory(district=other_district)
        officer = staff(Role.POLICE_OFFICER, "stranger", police_station=station)
    else:
        officer = request.getfixturevalue(who)
    before = written()

    with pytest.raises(ValidationError) as refused:
        schedule(pound, police_officer, [ready.animals.all()], officer=officer)

    assert "officer" in refused.value.message_dict
    assert written() == before


def test_deputy_must_hold_run_auction_on_the_pound(ready, pound, police_officer, dm_clerk):
    before = written()

    with pytest.raises(ValidationError) as refused:
        schedule(pound, police_officer, [ready.animals.all()], deputy=dm_clerk)

    assert "deputy" in refused.value.message_dict
    assert written() == before


def test_officer_of_the_station_deputed_to_conduct_the_sale(
    ready, pound, police_station, police_officer
):
    deputy = staff(Role.POLICE_OFFICER, "deputy", police_station=police_station)

    auction = schedule(
        pound,
        police_officer,
        [ready.animals.all()],
        deputy=deputy,
        deputation_order="PS/Order/7",
    )

    assert (auction.officer, auction.deputy, auction.deputation_order) == (
        police_officer,
        deputy,
        "PS/Order/7",
    )
    bidder = register(auction, deputy)
    assert services.sell_lot(
        lot=auction.lots.get(), buyer=bidder, price=Decimal("31000.00"), by=deputy
    ).sold_by == (deputy)


def test_officer_the_magistrate_appointed_for_the_pound_may_conduct_the_sale(ready, pound):
    appointed = staff(Role.POLICE_OFFICER, "appointed", pound=pound)

    auction = schedule(pound, appointed, [ready.animals.all()])

    assert auction.officer == appointed


# --- Lots --------------------------------------------------------------------------------------


@pytest.fixture
def dam_and_calf(ready, pound_keeper):
    dam = ready.animals.get()
    calf = impounding.record_birth(
        dam=dam, by=pound_keeper, at=timezone.now() - timedelta(days=2), sex="male", colour="Red"
    )
    return dam, calf


@pytest.fixture
def second_cow(pound, pound_keeper, police_officer):
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    return entry.animals.get()


def test_dam_and_her_calf_make_one_lot(pound, police_officer, dam_and_calf):
    dam, calf = dam_and_calf

    auction = schedule(pound, police_officer, [[calf, dam]])

    assert set(auction.lots.get().animals.all()) == {dam, calf}


def test_two_animals_not_dam_and_calf_refused_as_one_lot(pound, police_officer, ready, second_cow):
    before = written()

    with pytest.raises(ValidationError, match="one animal, or a dam with her suckling calf"):
        schedule(pound, police_officer, [[ready.animals.get(), second_cow]])

    assert written() == before


def test_three_animals_refused_as_one_lot(pound, police_officer, dam_and_calf, second_cow):
    with pytest.raises(ValidationError, match="one animal, or a dam with her suckling calf"):
        schedule(pound, police_officer, [[*dam_and_calf, second_cow]])


def test_calf_cannot_be_separated_from_its_dam_in_two_lots(pound, police_officer, dam_and_calf):
    dam, calf = dam_and_calf

    with pytest.raises(ValidationError, match=f"{dam.reference} goes in one lot with her calf"):
        schedule(pound, police_officer, [[dam], [calf]])


def test_dam_cannot_be_sold_without_her_calf(pound, police_officer, dam_and_calf):
    dam, _calf = dam_and_calf
    before = written()

    with pytest.raises(ValidationError, match=f"{dam.reference} goes in one lot with her calf"):
        schedule(pound, police_officer, [[dam]])

    assert written() == before


def test_calf_cannot_be_sold_without_its_dam(pound, police_officer, dam_and_calf):
    dam, calf = dam_and_calf
    before = written()

    with pytest.raises(ValidationError, match=f"{dam.reference} goes in one lot with her calf"):
        schedule(pound, police_officer, [[calf]])

    assert written() == before


def test_calf_whose_dam_died_is_a_lot_of_its_own(pound, pound_keeper, police_officer, dam_and_calf):
    dam, calf = dam_and_calf
    impounding.record_death(
        animal=dam, by=pound_keeper, at=timezone.now() - timedelta(hours=5), cause="Illness"
    )

    auction = schedule(pound, police_officer, [[calf]])

    assert list(auction.lots.get().animals.all()) == [calf]


# --- The hammer ----------------------------------------------------------------------------------


@pytest.fixture
def auction(ready, pound, police_officer):
    return schedule(pound, police_officer, [ready.animals.all()])


@pytest.fixture
def bidder(auction, police_officer):
    return register(auction, police_officer)


def sell(auction, bidder, price, by, **kw):
    return services.sell_lot(
        lot=auction.lots.get(), buyer=bidder, price=Decimal(price), by=by, **kw
    )


@pytest.mark.parametrize(
    ("price", "expenses", "paid", "surplus", "short"),
    [
        # price, expenses -> (expenses, feeding, fines) paid, surplus, (expenses, feeding, fines)
        ("40000.00", "150.00", ("150.00", "10500.00", "20000.00"), "9350.00", None),
        ("30700.00", "200.00", ("200.00", "10500.00", "20000.00"), "0.00", None),
        ("25000.00", "200.00", ("200.00", "10500.00", "14300.00"), "0.00", ("0", "0", "5700")),
        ("5000.00", "200.00", ("200.00", "4800.00", "0.00"), "0.00", ("0", "5700", "20000")),
        ("100.00", "200.00", ("100.00", "0.00", "0.00"), "0.00", ("100", "10500", "20000")),
    ],
    ids=["surplus", "exact", "short-of-fines", "short-of-feeding", "short-of-expenses"],
)
def test_proceeds_go_to_expenses_then_feeding_then_fines_and_the_surplus_to_the_magistrate(
    district, pound, ready, auction, bidder, police_officer, price, expenses, paid, surplus, short
):
    sale = sell(auction, bidder, price, police_officer, expenses=Decimal(expenses))

    paid_expenses, paid_feeding, paid_fines = (Decimal(x) for x in paid)
    assert (sale.expenses, sale.feeding, sale.fines, sale.surplus) == (
        paid_expenses,
        paid_feeding,
        paid_fines,
        Decimal(surplus),
    )
    expected = {
        AccountKind.POUND_CASH: Decimal(price),
        AccountKind.SALE_EXPENSES: -paid_expenses,
        AccountKind.FEEDING_PK: -paid_feeding,
        AccountKind.FINES_DUE_DM: -paid_fines,
        AccountKind.DM_SURPLUS_HELD: -Decimal(surplus),
    }
    assert balances(district, pound) == {kind: v for kind, v in expected.items() if v}
    (txn,) = Transaction.objects.all()
    assert (txn.kind, txn.section, txn.source) == (
        TransactionKind.SALE_S14,
        "s.17",
        f"auctions.sale:{sale.pk}",
    )
    if short is None:
        assert sale.shortfall == ZERO
        assert not Shortfall.objects.exists()
    else:
        record = Shortfall.objects.get()
        assert (record.sale, record.pound, record.status) == (sale, pound, "pending")
        assert (record.expenses, record.feeding, record.fines) == tuple(Decimal(x) for x in short)
        assert sale.shortfall == record.total
        assert Decimal(price) + record.total == Decimal("30500.00") + Decimal(expenses)


def test_sale_records_the_animal_the_certificate_and_the_event(
    ready, auction, bidder, police_officer, pound
):
    animal = ready.animals.get()

    sale = sell(
        auction,
        bidder,
        "35000.00",
        police_officer,
        payment_mode="upi",
        payment_reference="UPI 4455",
    )

    lot = auction.lots.get()
    animal.refresh_from_db()
    assert lot.status == Lot.Status.SOLD
    assert (animal.state, sold_lot(animal)) == (AnimalState.SOLD, lot)
    assert animal.custody_ended_at == sale.sold_at
    assert not Animal.objects.in_custody().filter(pk=animal.pk).exists()
    assert LotAnimal.objects.get(lot=lot).sold
    assert (sale.buyer, sale.price, sale.sold_by) == (bidder, Decimal("35000.00"), police_officer)
    certificate = IssuedDocument.objects.get(pk=sale.certificate_id)
    assert (certificate.kind, certificate.subject_type, certificate.subject_id) == (
        IssuedDocument.Kind.SALE_CERTIFICATE,
        "auctions.sale",
        sale.pk,
    )
    assert (certificate.pound, certificate.issued_by) == (pound, police_officer)
    assert balances(auction.pound.district, pound)[AccountKind.POUND_DIGITAL] == Decimal("35000.00")
    event = Event.objects.get(action="auction.sold")
    assert (event.section, event.impoundment_id) == ("s.14", ready.pk)
    assert event.data["price"] == "35000.00"
    assert event.data["surplus"] == "4500.00"


def test_lot_is_sold_once(auction, bidder, police_officer):
    other = register(
        auction,
        police_officer,
        name="Ramesh Chandra Gupta",
        phone="9123456781",
        id_number="UPV7654321",
    )
    sell(auction, bidder, "35000.00", police_officer)
    before = written()

    with pytest.raises(ValidationError, match="is not open: it is Sold"):
        sell(auction, other, "36000.00", police_officer)

    assert written() == before
    assert Sale.objects.get().buyer == bidder


def test_animal_sold_once_even_against_a_direct_database_write(
    ready, pound, auction, bidder, police_officer
):
    sell(auction, bidder, "35000.00", police_officer)
    services.close_auction(auction=auction, by=police_officer)
    second = Auction.objects.create(
        pound=pound,
        kind="s14",
        number="AUC/TEST/1",
        scheduled_for=timezone.now(),
        place="x",
        conditions=auction.conditions,
        officer=police_officer,
        created_by=police_officer,
    )
    lot = Lot.objects.create(auction=second, number=1, sequence=1)
    LotAnimal.objects.create(lot=lot, animal=ready.animals.get())

    with pytest.raises(IntegrityError), transaction.atomic():
        LotAnimal.objects.filter(lot=lot).update(sold=True)


@pytest.mark.postgres
def test_database_refuses_a_sold_animal_without_a_sold_lot(ready, auction):
    # In an open lot, but not knocked down: LotAnimal.sold is still False.
    assert LotAnimal.objects.filter(animal__impoundment=ready, sold=False).exists()

    with pytest.raises(IntegrityError), transaction.atomic():
        Animal.objects.filter(impoundment=ready).update(state=AnimalState.SOLD)

    assert ready.animals.get().state == AnimalState.IMPOUNDED


def test_price_below_the_reserve_refused(ready, pound, police_officer):
    auction = schedule(pound, police_officer, [ready.animals.all()], reserve_prices={1: "5000"})
    bidder = register(auction, police_officer)
    before = written()

    with pytest.raises(ValidationError) as refused:
        sell(auction, bidder, "4999.99", police_officer)

    assert "₹5,000.00" in refused.value.message_dict["price"][0]
    assert written() == before
    assert sell(auction, bidder, "5000.00", police_officer).price == Decimal("5000.00")


@pytest.mark.parametrize("price", ["0.00", "-5.00"])
def test_price_must_be_positive(auction, bidder, police_officer, price):
    before = written()

    with pytest.raises(ValidationError) as refused:
        sell(auction, bidder, price, police_officer)

    assert "price" in refused.value.message_dict
    assert written() == before


@pytest.mark.parametrize("expenses", ["200.01", "-1.00"])
def test_expenses_beyond_the_conditions_refused(auction, bidder, police_officer, expenses):
    before = written()

    with pytest.raises(ValidationError) as refused:
        sell(auction, bidder, "35000.00", police_officer, expenses=Decimal(expenses))

    assert "₹200.00" in refused.value.message_dict["expenses"][0]
    assert written() == before


def test_digital_payment_needs_a_reference(auction, bidder, police_officer):
    before = written()

    with pytest.raises(ValidationError) as refused:
        sell(auction, bidder, "35000.00", police_officer, payment_mode="upi")

    assert "payment_reference" in refused.value.message_dict
    assert written() == before


def test_buyer_of_another_auction_refused(ready, pound, auction, police_officer, second_cow):
    elsewhere = schedule(pound, police_officer, [[second_cow]])
    stranger = register(elsewhere, police_officer)
    before = written()

    with pytest.raises(ValidationError, match="registered for another auction"):
        sell(auction, stranger, "35000.00", police_officer)

    assert written() == before


def test_sale_recorded_only_by_an_officer_of_the_pound(auction, bidder, pound_keeper, outsider):
    before = written()

    for user in (pound_keeper, outsider):
        with pytest.raises(PermissionDenied):
            sell(auction, bidder, "35000.00", user)

    assert written() == before


def test_animal_that_died_before_the_hammer_withdraws_its_lot(
    ready, auction, bidder, pound_keeper, police_officer
):
    impounding.record_death(
        animal=ready.animals.get(),
        by=pound_keeper,
        at=timezone.now() - timedelta(minutes=5),
        cause="Illness",
    )
    sales = (Sale.objects.count(), Transaction.objects.count())

    with pytest.raises(ValidationError, match="the lot is withdrawn"):
        sell(auction, bidder, "35000.00", police_officer)

    lot = auction.lots.get()
    assert lot.status == Lot.Status.WITHDRAWN
    assert Event.objects.filter(action="auction.withdrawn", data__lot=lot.pk).exists()
    assert (Sale.objects.count(), Transaction.objects.count()) == sales
    services.close_auction(auction=auction, by=police_officer)


# --- Bids -----------------------------------------------------------------------------------------


def test_bids_must_rise(auction, bidder, police_officer):
    lot = auction.lots.get()
    other = register(
        auction,
        police_officer,
        name="Ramesh Chandra Gupta",
        phone="9123456781",
        id_number="UPV7654321",
    )
    services.record_bid(lot=lot, bidder=bidder, amount=Decimal("20000"), by=police_officer)

    with pytest.raises(ValidationError, match="₹20,000.00"):
        services.record_bid(lot=lot, bidder=other, amount=Decimal("20000"), by=police_officer)

    services.record_bid(lot=lot, bidder=other, amount=Decimal("20500"), by=police_officer)
    assert list(lot.bids.values_list("bidder__number", "amount")) == [
        (1, Decimal("20000.00")),
        (2, Decimal("20500.00")),
    ]


@pytest.mark.parametrize("amount", ["0", "-10"])
def test_bid_must_be_positive(auction, bidder, police_officer, amount):
    before = written()

    with pytest.raises(ValidationError) as refused:
        services.record_bid(
            lot=auction.lots.get(), bidder=bidder, amount=Decimal(amount), by=police_officer
        )

    assert "amount" in refused.value.message_dict
    assert written() == before


# --- Unsold lots, re-auction and closing ------------------------------------------------------


def test_unsold_lot_is_re_auctioned_in_a_new_auction(ready, pound, auction, bidder, police_officer):
    lot = services.mark_unsold(lot=auction.lots.get(), by=police_officer)
    assert (lot.status, lot.note) == (Lot.Status.UNSOLD, "No bid, or no fair price")
    event = Event.objects.get(action="auction.unsold")
    assert event.data["lot"] == lot.pk and event.summary.endswith(
        "not sold: No bid, or no fair price"
    )
    with pytest.raises(ValidationError, match="not open"):
        services.mark_unsold(lot=lot, by=police_officer)
    services.close_auction(auction=auction, by=police_officer)

    again = schedule(pound, police_officer, [ready.animals.all()], when=timezone.now())
    buyer = register(again, police_officer)
    sale = services.sell_lot(
        lot=again.lots.get(), buyer=buyer, price=Decimal("28000.00"), by=police_officer
    )

    assert sale.lot.auction == again
    animal = ready.animals.get()
    assert (animal.state, sold_lot(animal)) == (AnimalState.SOLD, again.lots.get())


def test_close_requires_no_open_lot(auction, bidder, police_officer):
    before = written()

    with pytest.raises(ValidationError, match="Every lot must be sold"):
        services.close_auction(auction=auction, by=police_officer)

    assert written() == before
    sell(auction, bidder, "35000.00", police_officer)
    closed = services.close_auction(auction=auction, by=police_officer)
    assert closed.status == Auction.Status.CLOSED
    assert closed.closed_at and closed.officer_declaration_at == closed.closed_at
    event = Event.objects.get(action="auction.closed")
    assert event.data["auction"] == auction.number and event.summary == f"{auction.number} closed"
    with pytest.raises(ValidationError, match="already closed"):
        services.close_auction(auction=auction, by=police_officer)
    with pytest.raises(ValidationError, match="closed"):
        register(auction, police_officer, name="Late Comer Singh")


def test_whole_auction_of_several_entries(
    pound, district, pound_keeper, police_officer, standing_order, tariffs
):
    cows, _ = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(), cow()]
    )
    goats, _ = ready_for_sale(
        pound=pound,
        keeper=pound_keeper,
        officer=police_officer,
        animals=[goat()],
        days_ago=17,
        posted_days_ago=8,
    )
    c1, c2 = cows.animals.order_by("number")
    auction = schedule(pound, police_officer, [[c1], [goats.animals.get()], [c2]])
    bidder = register(auction, police_officer)
    lots = list(auction.lots.order_by("sequence"))

    services.sell_lot(lot=lots[0], buyer=bidder, price=Decimal("31000"), by=police_officer)
    services.sell_lot(lot=lots[1], buyer=bidder, price=Decimal("2000"), by=police_officer)
    services.mark_unsold(lot=lots[2], by=police_officer)
    services.close_auction(auction=auction, by=police_officer)

    # The goat: fine ₹1,400, 18 days' feeding at ₹300 = ₹5,400; ₹2,000 pays feeding first.
    goat_sale = Sale.objects.get(lot=lots[1])
    assert (goat_sale.feeding, goat_sale.fines, goat_sale.shortfall) == (
        Decimal("2000.00"),
        ZERO,
        Decimal("4800.00"),
    )
    assert balances(district, pound)[AccountKind.POUND_CASH] == Decimal("33000.00")
    assert Shortfall.objects.count() == 1


# --- An animal found unfit (rule 3(b) of the 2017 Rules, ADR 0071) ----------------------------


def _found_unfit(entry, keeper, *, directed):
    from impounding.models import Direction, Finding, Inspection

    inspection = Inspection.objects.create(
        impoundment=entry,
        visited_at=entry.arrived_at,
        officer_name="Dr. Anita Verma",
        officer_designation="Veterinary Officer",
        officer_registration="UPSVC-4471",
        recorded_by=keeper,
    )
    found = Finding.objects.create(
        inspection=inspection, animal=entry.animals.get(), condition="Weak", fitness="unfit"
    )
    if directed:
        Direction.objects.create(
            finding=found,
            place_kind="infirmary",
            place_name="Veterinary infirmary, Mohanlalganj",
            magistrate_name="Smt. R. Sharma",
            order_reference="DM/PCA/2026/41",
            ordered_on=timezone.localdate(),
            recorded_by=keeper,
        )


def test_an_animal_the_magistrate_directed_elsewhere_is_not_put_up_for_auction(
    ready, pound, pound_keeper, police_officer
):
    _found_unfit(ready, pound_keeper, directed=True)
    with pytest.raises(ValidationError, match=r"rule 3\(b\)"):
        schedule(pound, police_officer, [ready.animals.all()])
    assert not Auction.objects.exists()


def test_an_unfit_animal_awaiting_a_direction_may_still_be_auctioned(
    ready, pound, pound_keeper, police_officer
):
    """The Rules let the Magistrate direct the animal elsewhere; they do not bar its sale
    before he does."""
    _found_unfit(ready, pound_keeper, directed=False)
    assert schedule(pound, police_officer, [ready.animals.all()]).pk
