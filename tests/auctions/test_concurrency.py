"""Races at the auction: two officers knocking down one lot, two clerks registering bidders,
and an owner's claim against the hammer. Needs PostgreSQL's row locks; each thread has its own
connection and commits for real."""

import uuid
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from accounts.models import IssuedDocument
from auctions import services
from auctions.models import Bidder, Lot, Sale
from auctions.selectors import sold_lot
from impounding.models import Animal, AnimalState, Release
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Transaction
from tests.auctions.factories import conditions, ready_for_sale, register, schedule
from tests.impounding.factories import pay
from tests.impounding.test_concurrency import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def sale_ready(pound, district, pound_keeper, police_officer, tariffs):
    conditions(district)
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    return entry


@pytest.fixture
def auction(sale_ready, pound, police_officer):
    return schedule(pound, police_officer, [sale_ready.animals.all()])


def test_two_officers_selling_one_lot_at_once_leave_exactly_one_sale(auction, police_officer):
    lot = auction.lots.get()
    first = register(auction, police_officer)
    second = register(
        auction, police_officer, name="Ramesh Chandra Gupta", phone="9123456781", id_number="UPV76"
    )

    def sell(buyer, price):
        return lambda: services.sell_lot(
            lot=lot, buyer=buyer, price=Decimal(price), by=police_officer
        )

    results, errors = race(sell(first, "35000.00"), sell(second, "36000.00"))

    (winner,) = [r for r in results if r is not None]
    (loser,) = [e for e in errors if e is not None]
    assert isinstance(loser, ValidationError)
    assert "is not open" in str(loser)
    sale = Sale.objects.get()
    assert sale.pk == winner.pk
    assert Transaction.objects.filter(source=f"auctions.sale:{sale.pk}").count() == 1
    assert Transaction.objects.filter(source__startswith="auctions.sale:").count() == 1
    assert IssuedDocument.objects.filter(kind=IssuedDocument.Kind.SALE_CERTIFICATE).count() == 1
    assert Event.objects.filter(action="auction.sold").count() == 1
    assert Lot.objects.get(pk=lot.pk).status == Lot.Status.SOLD
    assert sold_lot(Animal.objects.get(lotanimal__lot=lot)).pk == lot.pk
    assert run_checks() == []
    assert verify_chain() == []


def test_two_bidders_registered_at_once_get_different_numbers(auction, police_officer):
    def enrol(name, phone):
        return lambda: (
            register(auction, police_officer, name=name, phone=phone, id_number=f"ID{phone}").number
        )

    results, errors = race(
        enrol("Ramesh Chandra Gupta", "9123456781"),
        enrol("Mohd. Salim Qureshi", "9123456782"),
        enrol("Bhagwati Prasad Tiwari", "9123456783"),
    )

    assert errors == [None, None, None]
    assert sorted(results) == [1, 2, 3]
    assert sorted(Bidder.objects.values_list("number", flat=True)) == [1, 2, 3]
    assert verify_chain() == []


@pytest.mark.parametrize("attempt", range(4))
def test_claim_racing_the_hammer_lets_exactly_one_through(
    sale_ready, auction, pound_keeper, police_officer, attempt
):
    lot = auction.lots.get()
    bidder = register(auction, police_officer)
    animal = sale_ready.animals.get()

    def claim():
        return pay(sale_ready, pound_keeper, [animal], key=uuid.uuid4())

    def hammer():
        return services.sell_lot(
            lot=lot, buyer=bidder, price=Decimal("35000.00"), by=police_officer
        )

    calls = [claim, hammer] if attempt % 2 else [hammer, claim]
    results, errors = race(*calls)

    failures = [e for e in errors if e is not None]
    assert len(failures) == 1, errors
    assert isinstance(failures[0], ValidationError), repr(failures[0])
    animal.refresh_from_db()
    lot.refresh_from_db()
    if animal.state == AnimalState.SOLD:
        assert (Sale.objects.count(), Release.objects.count()) == (1, 0)
        assert lot.status == Lot.Status.SOLD
        assert "no longer in the pound" in str(failures[0])
    else:
        assert animal.state == AnimalState.RELEASED_PAID
        assert (Sale.objects.count(), Release.objects.count()) == (0, 1)
        assert lot.status == Lot.Status.WITHDRAWN
        assert Event.objects.filter(action="auction.withdrawn").count() == 1
    assert Transaction.objects.count() == 1
    assert run_checks() == []
    assert verify_chain() == []
