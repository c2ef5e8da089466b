"""Races of the gaushala handover (ADR 0070): two clerks handing cows to a body with room for
one, and two Magistrates approving one upkeep claim. Needs PostgreSQL's row locks; each thread
has its own connection and commits for real."""

from datetime import timedelta

import pytest
import time_machine
from django.core.exceptions import ValidationError

from accounts.roles import Role
from auctions.models import DisposalOrder, Handover
from auctions.services import gaushala as gaushalas
from ledger.checks import run_checks
from ledger.models import Transaction
from tests.accounts.factories import staff
from tests.auctions.factories import conditions, ready_for_sale
from tests.auctions.test_gaushala import BODY, hand_over
from tests.impounding.test_concurrency import race
from tests.rulepacks.factories import take

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _cows(district, pound, pound_keeper, police_officer, n):
    take(district, "up")
    conditions(district)
    return [
        ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)[0]
        for _ in range(n)
    ]


def test_two_clerks_handing_cows_to_a_body_with_room_for_one_make_one_order(
    district, pound, pound_keeper, police_officer, dm_clerk, tariffs
):
    first, second = _cows(district, pound, pound_keeper, police_officer, 2)
    body = gaushalas.register_gaushala(district=district, by=dm_clerk, **{**BODY, "capacity": 1})
    other_clerk = staff(Role.DM_CLERK, district=district)

    def propose(entry, clerk):
        return lambda: gaushalas.propose_handover(
            pound=pound,
            gaushala_id=body.pk,
            animal_ids=list(entry.animals.values_list("pk", flat=True)),
            by=clerk,
            reason="No auction",
        )

    results, errors = race(propose(first, dm_clerk), propose(second, other_clerk))

    assert len([r for r in results if r is not None]) == 1
    (refused,) = [e for e in errors if e is not None]
    assert isinstance(refused, ValidationError) and "has room for 1" in str(refused)
    assert DisposalOrder.objects.count() == Handover.objects.count() == 1


def test_two_magistrates_approving_one_claim_post_it_once(
    district, pound, pound_keeper, police_officer, dm_clerk, magistrate, tariffs
):
    (entry,) = _cows(district, pound, pound_keeper, police_officer, 1)
    body = gaushalas.register_gaushala(district=district, by=dm_clerk, **BODY)
    order = hand_over(pound, entry, body, dm_clerk, magistrate)
    other = staff(Role.MAGISTRATE, district=district)
    first = (order.handover.received_on.replace(day=1) + timedelta(days=32)).replace(day=1)
    with time_machine.travel(first + timedelta(days=40)):
        claim = gaushalas.prepare_claim(
            gaushala=body, month=first, animal_days_claimed=10, by=dm_clerk
        )

    def approve(by):
        return lambda: gaushalas.decide_claim(claim=claim, by=by, approve=True)

    results, errors = race(approve(magistrate), approve(other))

    assert len([r for r in results if r is not None]) == 1
    (refused,) = [e for e in errors if e is not None]
    assert "already been decided" in str(refused)
    assert Transaction.objects.filter(kind="upkeep_claimed").count() == 1
    assert run_checks() == []


def test_two_deaths_recorded_at_once_flag_each_over_paid_day_once(
    district, pound, pound_keeper, police_officer, dm_clerk, magistrate, tariffs
):
    from datetime import UTC, date, datetime

    from auctions.models import UpkeepOverpayment
    from auctions.services import gaushala_holding as holding
    from tests.impounding.factories import cow

    take(district, "up")
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(), cow()]
    )
    body = gaushalas.register_gaushala(district=district, by=dm_clerk, **BODY)
    order = hand_over(pound, entry, body, dm_clerk, magistrate)
    Handover.objects.filter(pk=order.handover.pk).update(received_on=date(2027, 1, 1))
    handover = Handover.objects.get(pk=order.handover.pk)
    other_clerk = staff(Role.DM_CLERK, district=district)
    with time_machine.travel(datetime(2027, 3, 15, 6, tzinfo=UTC)):
        claim = gaushalas.prepare_claim(
            gaushala=body, month=date(2027, 1, 1), animal_days_claimed=50, by=dm_clerk
        )  # 12 fewer than held: the first death alone over-paid only 10 days
        gaushalas.decide_claim(claim=claim, by=magistrate, approve=True)

        def died(animal, clerk):
            return lambda: holding.record_end(
                handover=handover,
                animal_id=animal.pk,
                kind="died",
                on=date(2027, 1, 10),
                cause="old age",
                reference="GS/1/2027",
                by=clerk,
            )

        cows = list(order.animals.order_by("pk"))
        _results, errors = race(died(cows[0], dm_clerk), died(cows[1], other_clerk))

    assert errors == [None, None]
    # Paid 50, held 18 after both: 32 over-paid, which two deaths each seeing only their own
    # would undercount (10 + 10): the claims' row lock (and the chain's) serialise them.
    assert sorted(UpkeepOverpayment.objects.values_list("days", flat=True)) == [10, 22]
    assert run_checks() == []


def test_an_escape_and_a_death_of_one_animal_recorded_at_once_make_one_end(
    district, pound, pound_keeper, police_officer, dm_clerk, magistrate, tariffs
):
    """Two clerks record, at once, the escape and the death of the same animal: the animal's
    row lock lets one through; the other then finds it no longer held and is refused."""
    from datetime import UTC, date, datetime

    from auctions.models import HoldingEnd
    from auctions.services import gaushala_holding as holding

    (entry,) = _cows(district, pound, pound_keeper, police_officer, 1)
    body = gaushalas.register_gaushala(district=district, by=dm_clerk, **BODY)
    order = hand_over(pound, entry, body, dm_clerk, magistrate)
    Handover.objects.filter(pk=order.handover.pk).update(received_on=date(2027, 1, 1))
    handover = Handover.objects.get(pk=order.handover.pk)
    animal = order.animals.get()
    other_clerk = staff(Role.DM_CLERK, district=district)

    def end(kind, clerk, **kw):
        return lambda: holding.record_end(
            handover=handover,
            animal_id=animal.pk,
            kind=kind,
            on=date(2027, 1, 10),
            reference="GS/1/2027",
            by=clerk,
            **kw,
        )

    with time_machine.travel(datetime(2027, 3, 15, 6, tzinfo=UTC)):
        _results, errors = race(end("escaped", dm_clerk), end("died", other_clerk, cause="old age"))

    assert sorted(e is None for e in errors) == [False, True]
    assert all(isinstance(e, ValidationError) for e in errors if e is not None)
    assert HoldingEnd.objects.count() == 1
