"""s.16: the owner appears and refuses or omits to pay. As many animals as necessary are sold,
one lot at a time in the officer's order; the rest go back to him with the balance and the
account of items (a)-(f). Any shortfall is split expenses, feeding, fines (docs/domain.md,
decision 7)."""

from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import IssuedDocument
from auctions import services
from auctions.models import Auction, Lot, S16Case, Sale, Shortfall
from auctions.selectors import returned_by
from impounding import services as impounding
from impounding.models import Animal, AnimalState
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import AccountKind, Transaction, TransactionKind
from tests.auctions.factories import (
    balances,
    conditions,
    ready_for_sale,
    refused,
    register,
    schedule,
)
from tests.impounding.factories import cow, goat, make_entry, pay

IST = ZoneInfo("Asia/Kolkata")
ZERO = Decimal("0.00")


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def standing_order(district, dm_clerk):
    return conditions(district, by=dm_clerk)


@pytest.fixture
def herd(pound, pound_keeper, standing_order, tariffs):
    """Two cows and a goat that arrived three days ago. Their dues today (four days of
    feeding): each cow ₹20,000 + ₹2,000, the goat ₹1,400 + ₹1,200; ₹46,600 in all."""
    return make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow(), cow(), goat()],
        arrived_at=timezone.now() - timedelta(days=3),
    )


def s16_auction(pound, officer, case, lots, **kw):
    return schedule(pound, officer, lots, kind="s16", s16_case=case, **kw)


def written():
    return (
        S16Case.objects.count(),
        list(S16Case.objects.order_by("pk").values_list("status", flat=True)),
        Auction.objects.count(),
        Sale.objects.count(),
        Shortfall.objects.count(),
        Transaction.objects.count(),
        IssuedDocument.objects.count(),
        Event.objects.count(),
        list(Lot.objects.order_by("pk").values_list("status", flat=True)),
    )


# --- The refusal ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("refused_to_pay", "word"), [(True, "refused"), (False, "omitted")])
def test_refusal_recorded_under_s16(herd, pound_keeper, refused_to_pay, word):
    animals = list(herd.animals.all())

    case = services.open_s16_case(
        entry=herd,
        animal_ids=[a.pk for a in animals],
        by=pound_keeper,
        owner_name="Shyam Lal",
        owner_address="Samesi",
        refused=refused_to_pay,
    )

    assert (case.status, case.refused, case.pound, case.impoundment) == (
        S16Case.Status.OPEN,
        refused_to_pay,
        herd.pound,
        herd,
    )
    assert set(case.animals.all()) == set(animals)
    event = Event.objects.get(action="s16.refused")
    assert (event.section, event.impoundment, event.by) == ("s.16", herd, pound_keeper)
    assert f"the owner {word} to pay for 3 animals" in event.summary  # its link names no one
    assert f"Shyam Lal {word} to pay for 3 animals" in event.summary_text
    assert event.data["animals"] == [a.reference for a in animals]


def test_refusal_for_a_dam_takes_her_calf(herd, pound_keeper):
    dam = herd.animals.get(number=1)
    calf = impounding.record_birth(
        dam=dam, by=pound_keeper, at=timezone.now() - timedelta(days=1), sex="male", colour="Red"
    )

    case = refused(herd, pound_keeper, [dam])

    assert set(case.animals.all()) == {dam, calf}


def test_refusal_refused_for_an_animal_no_longer_in_the_pound(herd, pound_keeper):
    first = herd.animals.get(number=1)
    pay(herd, pound_keeper, [first])
    before = written()

    with pytest.raises(ValidationError) as refusal:
        refused(herd, pound_keeper, [first])

    assert "animals" in refusal.value.message_dict
    assert written() == before


def test_refusal_refused_for_an_animal_of_another_entry(herd, pound, pound_keeper):
    other = make_entry(pound=pound, by=pound_keeper)
    before = written()

    with pytest.raises(ValidationError, match="Choose the owner's animals"):
        services.open_s16_case(
            entry=herd,
            animal_ids=[other.animals.get().pk],
            by=pound_keeper,
            owner_name="Shyam Lal",
            owner_address="Samesi",
        )

    assert written() == before


def test_refusal_recorded_only_by_the_pound_keeper(herd, police_officer):
    before = written()

    with pytest.raises(PermissionDenied):
        refused(herd, police_officer)

    assert written() == before


def test_second_case_for_the_same_animals_refused_until_the_first_is_settled(
    herd, pound, pound_keeper, police_officer
):
    case = refused(herd, pound_keeper)
    before = written()
    with pytest.raises(ValidationError, match="already open"):
        refused(herd, pound_keeper, [herd.animals.get(number=3)])
    assert written() == before

    # Covered but not settled: the remaining goat is still the first case's.
    auction = s16_auction(pound, police_officer, case, [[a] for a in herd.animals.all()])
    bidder = register(auction, police_officer)
    for lot in auction.lots.order_by("sequence")[:2]:
        services.sell_lot(lot=lot, buyer=bidder, price=Decimal("30000"), by=police_officer)
    case.refresh_from_db()
    assert case.status == S16Case.Status.COVERED
    with pytest.raises(ValidationError, match="already open"):
        refused(herd, pound_keeper, [herd.animals.get(number=3)])


def test_animal_in_an_open_s16_case_cannot_be_put_in_a_s14_auction(
    pound, pound_keeper, police_officer, standing_order, tariffs
):
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    refused(entry, pound_keeper)
    before = written()

    with pytest.raises(ValidationError, match="already open"):
        schedule(pound, police_officer, [entry.animals.all()])

    assert written() == before


# --- Scheduling the s.16 sale ---------------------------------------------------------------------


@pytest.mark.parametrize(("gap", "days", "accepted"), [(3, 2, False), (3, 3, True), (0, 0, True)])
def test_sale_held_no_sooner_than_the_gap_the_conditions_set(
    pound, district, dm_clerk, pound_keeper, police_officer, tariffs, gap, days, accepted
):
    conditions(district, by=dm_clerk, s16_min_gap_days=gap)
    entry = make_entry(pound=pound, by=pound_keeper)
    case = services.open_s16_case(
        entry=entry,
        animal_ids=[entry.animals.get().pk],
        by=pound_keeper,
        owner_name="Shyam Lal",
        owner_address="Samesi",
    )
    today = timezone.localdate()
    day = today + timedelta(days=days)
    when = max(datetime(day.year, day.month, day.day, 15, tzinfo=IST), timezone.now())
    before = written()

    if accepted:
        auction = s16_auction(pound, police_officer, case, [entry.animals.all()], when=when)
        assert (auction.kind, auction.s16_case) == (Auction.Kind.OWNER_REFUSED, case)
        assert Event.objects.get(action="auction.scheduled").section == "s.16"
    else:
        with pytest.raises(ValidationError) as refusal:
            s16_auction(pound, police_officer, case, [entry.animals.all()], when=when)
        lawful = (today + timedelta(days=gap)).strftime("%d-%m-%Y")
        assert lawful in refusal.value.message_dict["scheduled_for"][0]
        assert written() == before


def test_sale_refused_at_the_hammer_before_the_gap(
    pound, district, dm_clerk, pound_keeper, police_officer, tariffs
):
    conditions(district, by=dm_clerk, s16_min_gap_days=3)
    entry = make_entry(pound=pound, by=pound_keeper)
    case = refused(entry, pound_keeper, days_ago=1)
    auction = s16_auction(
        pound, police_officer, case, [entry.animals.all()], when=timezone.now() + timedelta(days=2)
    )
    bidder = register(auction, police_officer)
    before = written()

    with pytest.raises(ValidationError) as refusal:
        sell(auction.lots.get(), bidder, "30000.00", police_officer)

    # Before the gap and before the hour announced: the hour is the true reason.
    hour = timezone.localtime(auction.scheduled_for).strftime("%d-%m-%Y %H:%M IST")
    assert refusal.value.messages == [
        f"The auction was announced for {hour}: no bid is taken and no lot is sold before then."
    ]
    assert written() == before


def test_s16_sale_needs_a_recorded_refusal(herd, pound, police_officer):
    before = written()

    with pytest.raises(ValidationError, match="recorded refusal"):
        schedule(pound, police_officer, [herd.animals.filter(number=1)], kind="s16")

    assert written() == before


def test_s16_sale_only_of_the_owners_animals_in_the_case(herd, pound, pound_keeper, police_officer):
    case = refused(herd, pound_keeper, [herd.animals.get(number=1)])
    before = written()

    with pytest.raises(ValidationError, match="Only the owner's animals"):
        s16_auction(pound, police_officer, case, [herd.animals.filter(number=2)])

    assert written() == before


# --- One lot at a time, until the dues are covered ------------------------------------------------


@pytest.fixture
def case(herd, pound_keeper):
    return refused(herd, pound_keeper)


@pytest.fixture
def auction(herd, pound, case, police_officer):
    cow1, cow2, the_goat = herd.animals.order_by("number")
    return s16_auction(pound, police_officer, case, [[cow1], [cow2], [the_goat]])


@pytest.fixture
def bidder(auction, police_officer):
    return register(auction, police_officer)


def lots_of(auction):
    return list(auction.lots.order_by("sequence"))


def sell(lot, bidder, price, by, expenses="150.00"):
    return services.sell_lot(
        lot=lot, buyer=bidder, price=Decimal(price), by=by, expenses=Decimal(expenses)
    )


def test_no_shortfall_is_foretold_while_another_lot_may_cover_the_dues(auction):
    first = lots_of(auction)[0]
    assert services.shortfall_if_sold(first, price="1000", expenses="150") == ZERO


def test_lots_are_sold_one_at_a_time_in_the_officers_order(auction, bidder, police_officer):
    first, second, _third = lots_of(auction)
    before = written()

    with pytest.raises(ValidationError, match="A lot is still open"):
        sell(second, bidder, "30000.00", police_officer)

    assert written() == before
    services.mark_unsold(lot=first, by=police_officer)
    assert sell(second, bidder, "30000.00", police_officer).lot == second


def test_sale_stops_when_the_proceeds_cover_the_dues(
    herd, case, auction, bidder, police_officer, district, pound
):
    first, second, third = lots_of(auction)

    sale = sell(first, bidder, "30000.00", police_officer)

    # s.16 proceeds are held until the owner's account is settled.
    assert (sale.fines, sale.feeding, sale.surplus) == (ZERO, ZERO, ZERO)
    assert Transaction.objects.get().kind == TransactionKind.SALE_S16
    assert balances(district, pound) == {
        AccountKind.POUND_CASH: Decimal("30000.00"),
        AccountKind.SALE_PROCEEDS_HELD: Decimal("-30000.00"),
    }
    position = services.s16_position(case)
    assert (position["owed"], position["proceeds"], position["covered"]) == (
        Decimal("46750.00"),
        Decimal("30000.00"),
        False,
    )
    case.refresh_from_db()
    assert case.status == S16Case.Status.OPEN

    sell(second, bidder, "30000.00", police_officer)

    case.refresh_from_db()
    third.refresh_from_db()
    assert case.status == S16Case.Status.COVERED
    assert (third.status, third.note) == (Lot.Status.NOT_NEEDED, "Dues covered")
    event = Event.objects.get(action="s16.covered")
    assert (event.section, event.data["proceeds"], event.data["owed"]) == (
        "s.16",
        "60000.00",
        "46900.00",
    )
    assert herd.animals.get(number=3).state == AnimalState.IMPOUNDED
    before = written()
    with pytest.raises(ValidationError, match="not open: it is Not needed"):
        sell(third, bidder, "3000.00", police_officer)
    with pytest.raises(ValidationError, match="recorded refusal"):
        s16_auction(auction.pound, police_officer, case, [herd.animals.filter(number=3)])
    assert written() == before


# --- Settling: the rest and the balance go back with the account ----------------------------------


def test_settlement_returns_the_rest_and_pays_the_balance_with_the_account(
    herd, case, auction, bidder, police_officer, district, pound
):
    first, second, _third = lots_of(auction)
    sell(first, bidder, "30000.00", police_officer)
    sell(second, bidder, "30000.00", police_officer)

    settled = services.settle_s16_case(
        case=case, by=police_officer, acknowledgement="register_page", register_page="41"
    )

    # (c) fines ₹41,400 and feeding ₹5,200 (four days each), sale expenses ₹300; (e) ₹60,000.
    assert (
        settled.fines,
        settled.feeding,
        settled.expenses,
        settled.proceeds,
        settled.balance,
        settled.shortfall,
    ) == (
        Decimal("41400.00"),
        Decimal("5200.00"),
        Decimal("300.00"),
        Decimal("60000.00"),
        Decimal("13100.00"),
        ZERO,
    )
    assert (settled.status, settled.closed_by, settled.register_page) == (
        S16Case.Status.CLOSED,
        police_officer,
        "41",
    )
    the_goat = herd.animals.order_by("number").last()
    assert (the_goat.state, returned_by(the_goat)) == (AnimalState.RETURNED_S16, settled)
    assert the_goat.custody_ended_at == settled.closed_at
    assert not herd.animals.in_custody().exists()
    assert [a.state for a in herd.animals.order_by("number")] == ["sold", "sold", "returned_s16"]
    document = IssuedDocument.objects.get(pk=settled.account_document_id)
    assert (document.kind, document.subject_type, document.subject_id) == (
        IssuedDocument.Kind.S16_ACCOUNT,
        "auctions.s16case",
        settled.pk,
    )
    # The cash the buyers paid, less the balance handed to the owner.
    assert balances(district, pound) == {
        AccountKind.POUND_CASH: Decimal("46900.00"),
        AccountKind.FINES_DUE_DM: Decimal("-41400.00"),
        AccountKind.FEEDING_PK: Decimal("-5200.00"),
        AccountKind.SALE_EXPENSES: Decimal("-300.00"),
    }
    assert list(Transaction.objects.order_by("pk").values_list("kind", flat=True)) == [
        TransactionKind.SALE_S16,
        TransactionKind.SALE_S16,
        TransactionKind.S16_SETTLED,
        TransactionKind.S16_BALANCE_PAID,
    ]
    assert not Shortfall.objects.exists()
    event = Event.objects.get(action="s16.settled")
    assert (event.section, event.data["balance"], event.data["returned"]) == (
        "s.16",
        "13100.00",
        [the_goat.reference],
    )


def test_settlement_refused_before_the_dues_are_covered(case, auction, bidder, police_officer):
    sell(lots_of(auction)[0], bidder, "30000.00", police_officer)
    before = written()

    with pytest.raises(ValidationError, match="not yet covered"):
        services.settle_s16_case(
            case=case, by=police_officer, acknowledgement="register_page", register_page="41"
        )

    assert written() == before


def test_settlement_refused_twice(case, auction, bidder, police_officer):
    first, second, _third = lots_of(auction)
    sell(first, bidder, "30000.00", police_officer)
    sell(second, bidder, "30000.00", police_officer)
    services.settle_s16_case(
        case=case, by=police_officer, acknowledgement="register_page", register_page="41"
    )
    before = written()

    with pytest.raises(ValidationError, match="already settled"):
        services.settle_s16_case(
            case=case, by=police_officer, acknowledgement="register_page", register_page="41"
        )

    assert written() == before


@pytest.mark.parametrize(
    ("acknowledgement", "field"), [("register_page", "register_page"), ("signature", "signature")]
)
def test_settlement_needs_the_owners_receipt(
    case, auction, bidder, police_officer, acknowledgement, field
):
    first, second, _third = lots_of(auction)
    sell(first, bidder, "30000.00", police_officer)
    sell(second, bidder, "30000.00", police_officer)
    before = written()

    with pytest.raises(ValidationError) as refusal:
        services.settle_s16_case(case=case, by=police_officer, acknowledgement=acknowledgement)

    assert field in refusal.value.message_dict
    assert written() == before


def test_settlement_by_the_officer_only(case, auction, bidder, police_officer, pound_keeper):
    first, second, _third = lots_of(auction)
    sell(first, bidder, "30000.00", police_officer)
    sell(second, bidder, "30000.00", police_officer)
    before = written()

    with pytest.raises(PermissionDenied):
        services.settle_s16_case(
            case=case, by=pound_keeper, acknowledgement="register_page", register_page="41"
        )

    assert written() == before


# --- A sale that does not cover the dues ---------------------------------------------------------


@pytest.mark.parametrize(
    ("price", "expenses", "short"),
    [
        # One cow: fine ₹20,000, feeding ₹2,000. Shortfall as (expenses, feeding, fines).
        ("15000.00", "200.00", ("0.00", "0.00", "7200.00")),
        ("1000.00", "200.00", ("0.00", "1200.00", "20000.00")),
        ("100.00", "200.00", ("100.00", "2000.00", "20000.00")),
    ],
    ids=["short-of-fines", "short-of-feeding", "short-of-expenses"],
)
def test_sale_that_does_not_cover_the_dues_records_the_shortfall_for_write_off(
    pound, district, pound_keeper, police_officer, standing_order, tariffs, price, expenses, short
):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=3))
    case = refused(entry, pound_keeper)
    auction = s16_auction(pound, police_officer, case, [entry.animals.all()])
    bidder = register(auction, police_officer)
    # The officer's check page foretells it: the case's last lot, so its shortfall is final.
    warned = services.shortfall_if_sold(auction.lots.get(), price=price, expenses=expenses)
    sell(auction.lots.get(), bidder, price, police_officer, expenses=expenses)
    case.refresh_from_db()
    assert case.status == S16Case.Status.OPEN  # never covered; nothing left to sell

    settled = services.settle_s16_case(
        case=case, by=police_officer, acknowledgement="register_page", register_page="7"
    )

    short_expenses, short_feeding, short_fines = (Decimal(x) for x in short)
    record = Shortfall.objects.get()
    assert (record.s16_case, record.sale, record.pound, record.status) == (
        settled,
        None,
        pound,
        Shortfall.Status.PENDING,
    )
    assert (record.expenses, record.feeding, record.fines) == (
        short_expenses,
        short_feeding,
        short_fines,
    )
    assert (settled.balance, settled.shortfall) == (ZERO, record.total)
    assert warned == record.total
    assert settled.proceeds + settled.shortfall == Decimal("22000.00") + Decimal(expenses)
    expected = {
        AccountKind.POUND_CASH: Decimal(price),
        AccountKind.SALE_EXPENSES: -(Decimal(expenses) - short_expenses),
        AccountKind.FEEDING_PK: -(Decimal("2000.00") - short_feeding),
        AccountKind.FINES_DUE_DM: -(Decimal("20000.00") - short_fines),
    }
    assert balances(district, pound) == {kind: v for kind, v in expected.items() if v}
    assert not Transaction.objects.filter(kind=TransactionKind.S16_BALANCE_PAID).exists()


def test_owner_who_pays_for_an_animal_during_the_sale_is_not_charged_twice(
    pound, district, pound_keeper, police_officer, standing_order, tariffs
):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow(), cow()],
        arrived_at=timezone.now() - timedelta(days=3),
    )
    case = refused(entry, pound_keeper)
    first_cow, second_cow = entry.animals.order_by("number")
    auction = s16_auction(pound, police_officer, case, [[first_cow], [second_cow]])
    bidder = register(auction, police_officer)
    first, second = lots_of(auction)
    sell(first, bidder, "10000.00", police_officer, expenses="0.00")

    # He thinks better of it and pays for the second cow: her lot is withdrawn.
    release = pay(entry, pound_keeper, [second_cow])
    second.refresh_from_db()
    assert second.status == Lot.Status.WITHDRAWN
    settled = services.settle_s16_case(
        case=case, by=police_officer, acknowledgement="register_page", register_page="8"
    )

    # The account is of the cow sold only: her dues, not the second cow's again.
    assert (settled.fines, settled.feeding) == (Decimal("20000.00"), Decimal("2000.00"))
    assert settled.shortfall == Decimal("12000.00")
    assert release.amount == Decimal("22000.00")
    # Fines: ₹20,000 paid with the claim, ₹8,000 of the first cow's out of her ₹10,000.
    assert balances(district, pound)[AccountKind.FINES_DUE_DM] == Decimal("-28000.00")


def test_animal_returned_to_the_owner_leaves_its_lot_at_a_s14_auction(
    pound, pound_keeper, police_officer, standing_order, tariffs
):
    # Under notice and put up at a s.14 auction, when the owner appears and will not pay.
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(), cow()]
    )
    first_cow, second_cow = entry.animals.order_by("number")
    s14 = schedule(pound, police_officer, [[first_cow]])
    case = refused(entry, pound_keeper)
    auction = s16_auction(pound, police_officer, case, [[second_cow]])
    # Dues of both cows: 2 x (₹20,000 + 21 days at ₹500) = ₹61,000.
    sell(auction.lots.get(), register(auction, police_officer), "62000.00", police_officer)
    case.refresh_from_db()
    assert case.status == S16Case.Status.COVERED

    services.settle_s16_case(
        case=case, by=police_officer, acknowledgement="register_page", register_page="3"
    )

    first_cow.refresh_from_db()
    assert first_cow.state == AnimalState.RETURNED_S16
    lot = s14.lots.get()
    assert (lot.status, lot.note) == (Lot.Status.WITHDRAWN, "Returned to the owner (s.16)")
    services.close_auction(auction=s14, by=police_officer)


@pytest.mark.postgres
def test_database_refuses_an_animal_returned_under_s16_without_its_case(herd, case):
    # The case names the goat among its animals, but not among those it returned.
    the_goat = herd.animals.order_by("number").last()
    assert case.animals.filter(pk=the_goat.pk).exists()
    assert not case.returned_animals.exists()

    with pytest.raises(IntegrityError), transaction.atomic():
        Animal.objects.filter(pk=the_goat.pk).update(state=AnimalState.RETURNED_S16)

    the_goat.refresh_from_db()
    assert the_goat.state == AnimalState.IMPOUNDED
