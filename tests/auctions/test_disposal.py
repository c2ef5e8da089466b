"""The proviso to s.14: cattle unlikely to fetch a fair price are disposed of as the District
Magistrate thinks fit. His office proposes; only the Magistrate approves."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from auctions import services
from auctions.models import DisposalOrder, Lot
from auctions.selectors import disposal_order
from impounding import services as impounding
from impounding.models import Animal, AnimalState
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from tests.auctions.factories import conditions, ready_for_sale, schedule, unclaimed_entry
from tests.impounding.factories import cow, make_entry, pay


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def entry(pound, district, pound_keeper, police_officer, tariffs):
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(), cow()]
    )
    return entry


def propose(pound, by, animals, **kw):
    fields = (
        dict(
            reason="Old and lame: no bid at two auctions",
            mode=DisposalOrder.Mode.GAUSHALA,
            recipient="Shri Krishna Gaushala, Mohanlalganj",
        )
        | kw
    )
    return services.propose_disposal(
        pound=pound, animal_ids=[a.pk for a in animals], by=by, **fields
    )


def written():
    return (
        DisposalOrder.objects.count(),
        list(DisposalOrder.objects.order_by("pk").values_list("status", flat=True)),
        list(Animal.objects.order_by("pk").values_list("state", flat=True)),
        list(Lot.objects.order_by("pk").values_list("status", flat=True)),
        Event.objects.count(),
    )


# --- The proposal ------------------------------------------------------------------------------


def test_office_proposes_a_disposal(entry, pound, dm_clerk):
    animals = list(entry.animals.all())

    order = propose(pound, dm_clerk, animals)

    assert (order.status, order.prepared_by, order.pound) == (
        DisposalOrder.Status.PROPOSED,
        dm_clerk,
        pound,
    )
    assert set(order.animals.all()) == set(animals)
    assert order.number.startswith(f"DSP/{pound.code.upper()}/")
    event = Event.objects.get(action="disposal.proposed")
    assert (event.section, event.pound, event.data["order"]) == ("s.14", pound, order.number)
    assert all(a.state == AnimalState.IMPOUNDED for a in entry.animals.all())


@pytest.mark.parametrize("who", ["pound_keeper", "police_officer", "auditor", "outsider"])
def test_proposal_only_by_the_magistrates_office(request, entry, pound, who):
    user = request.getfixturevalue(who)
    before = written()

    with pytest.raises(PermissionDenied):
        propose(pound, user, entry.animals.all())

    assert written() == before


def test_unreported_animal_refused(entry, pound, pound_keeper, dm_clerk):
    fresh = make_entry(pound=pound, by=pound_keeper)
    before = written()

    with pytest.raises(ValidationError, match="has not been reported as unclaimed"):
        propose(pound, dm_clerk, [*entry.animals.all(), fresh.animals.get()])

    assert written() == before


def test_animal_no_longer_in_the_pound_refused(entry, pound, pound_keeper, dm_clerk):
    first, second = entry.animals.order_by("number")
    pay(entry, pound_keeper, [first])
    before = written()

    with pytest.raises(ValidationError, match="Choose animals in the pound"):
        propose(pound, dm_clerk, [first, second])

    assert written() == before


def test_proposal_needs_a_reason(entry, pound, dm_clerk):
    before = written()

    with pytest.raises(ValidationError) as refused:
        propose(pound, dm_clerk, entry.animals.all(), reason="  ")

    assert "reason" in refused.value.message_dict
    assert written() == before


def test_proposal_for_a_dam_takes_her_calf(entry, pound, pound_keeper, dm_clerk):
    dam = entry.animals.get(number=1)
    calf = impounding.record_birth(
        dam=dam, by=pound_keeper, at=timezone.now() - timedelta(days=1), sex="male", colour="Red"
    )

    order = propose(pound, dm_clerk, [dam])

    assert set(order.animals.all()) == {dam, calf}


# --- The Magistrate's decision ------------------------------------------------------------------


@pytest.fixture
def order(entry, pound, dm_clerk):
    return propose(pound, dm_clerk, entry.animals.all())


@pytest.mark.parametrize("who", ["dm_clerk", "police_officer", "pound_keeper", "auditor"])
def test_only_the_magistrate_decides(request, order, who):
    user = request.getfixturevalue(who)
    before = written()

    with pytest.raises(PermissionDenied):
        services.decide_disposal(order=order, by=user, approve=True)

    assert written() == before


def test_approved_order_disposes_of_the_animals_and_withdraws_their_open_lots(
    entry, pound, order, magistrate, police_officer
):
    first, second = entry.animals.order_by("number")
    auction = schedule(pound, police_officer, [[first], [second]])

    decided = services.decide_disposal(
        order=order, by=magistrate, approve=True, note="Approved: to the gaushala"
    )

    assert (decided.status, decided.decided_by, decided.decision_note) == (
        DisposalOrder.Status.APPROVED,
        magistrate,
        "Approved: to the gaushala",
    )
    assert decided.decided_at is not None
    for animal in entry.animals.all():
        assert (animal.state, disposal_order(animal)) == (AnimalState.DISPOSED, decided)
        assert animal.custody_ended_at == decided.decided_at
    assert not entry.animals.in_custody().exists()
    assert set(auction.lots.values_list("status", flat=True)) == {Lot.Status.WITHDRAWN}
    services.close_auction(auction=auction, by=police_officer)
    event = Event.objects.get(action="disposal.approved")
    assert (event.section, event.by, event.data["order"]) == ("s.14", magistrate, order.number)


def test_rejected_order_leaves_the_animals_in_the_pound(entry, order, magistrate):
    decided = services.decide_disposal(
        order=order, by=magistrate, approve=False, note="Try one more auction"
    )

    assert decided.status == DisposalOrder.Status.REJECTED
    assert all(a.state == AnimalState.IMPOUNDED for a in entry.animals.all())
    assert all(disposal_order(a) is None for a in entry.animals.all())
    event = Event.objects.get(action="disposal.rejected")
    assert (event.section, event.data["note"]) == ("s.14", "Try one more auction")


def test_order_decided_once(order, magistrate):
    services.decide_disposal(order=order, by=magistrate, approve=False)
    before = written()

    with pytest.raises(ValidationError, match="already been decided"):
        services.decide_disposal(order=order, by=magistrate, approve=True)

    assert written() == before


def test_approval_refused_when_an_animal_was_claimed_meanwhile(
    entry, order, magistrate, pound_keeper
):
    pay(entry, pound_keeper, [entry.animals.get(number=1)])
    before = written()

    with pytest.raises(ValidationError, match="no longer in the pound"):
        services.decide_disposal(order=order, by=magistrate, approve=True)

    assert written() == before
    order.refresh_from_db()
    assert order.status == DisposalOrder.Status.PROPOSED


@pytest.mark.postgres
def test_database_refuses_a_disposed_animal_without_an_order(pound, pound_keeper, tariffs):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=10)

    with pytest.raises(IntegrityError), transaction.atomic():
        Animal.objects.filter(impoundment=entry).update(state=AnimalState.DISPOSED)

    assert entry.animals.get().state == AnimalState.IMPOUNDED
