"""The daily run acts as one system user, checked by has_permission like any person: it applies
the deposits a Magistrate confirmed in advance (s.15) and credits expired surplus to revenue
(s.17), and may do nothing else. Nobody can sign in as it, and no assignment gives it more."""

from datetime import date
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from accounts.models import StaffAssignment, User
from accounts.roles import SYSTEM_PERMISSIONS, SYSTEM_USERNAME, Permission, Role
from accounts.scoping import grants_for, has_permission, system_actor
from auctions import services as auctions
from auctions.models import DisposalOrder, Lot
from kernel.models import Event
from ledger.models import Transaction, TransactionKind
from office import services as office
from office.deadlines import run
from tests.auctions.factories import (
    conditions,
    ready_for_sale,
    register,
    schedule,
    unclaimed_entry,
)
from tests.impounding.factories import deposit, make_entry
from tests.office.factories import noon, received_surplus, written


@pytest.fixture
def standing_order(district, pound, dm_clerk, tariffs):
    # After the pound: a user's reach is worked out once and kept on him, as in a request.
    return conditions(district, by=dm_clerk)


def test_the_runs_work_is_recorded_as_the_system_actor(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk, magistrate
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    confirmed = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper).deposit
    office.confirm_deposit_application(deposit=confirmed, by=magistrate)
    time_machine.move_to(noon(date(2026, 12, 1)), tick=False)

    done = run()

    system = system_actor()
    assert (done["deposits_applied"], done["surplus_transferred"]) == (1, 1)
    confirmed.refresh_from_db()
    held.refresh_from_db()
    # Who decided is kept beside who acted on the day.
    assert (confirmed.application_confirmed_by, confirmed.applied_by) == (magistrate, system)
    assert held.transfer_memo.issued_by == system
    for action in ("deposit.applied", "ledger.surplus_transferred"):
        assert Event.objects.get(action=action).by_id == system.pk
    for kind in (TransactionKind.DEPOSIT_APPLIED, TransactionKind.SURPLUS_TRANSFERRED):
        assert Transaction.objects.get(kind=kind).by == system
    assert User.objects.filter(username=SYSTEM_USERNAME).count() == 1


def test_the_system_actor_holds_only_the_permissions_of_the_run(pound, district):
    system = system_actor()

    for perm in Permission:
        assert has_permission(system, perm, pound) == (perm in SYSTEM_PERMISSIONS), perm
        assert has_permission(system, perm, district) == (perm in SYSTEM_PERMISSIONS), perm
    assert SYSTEM_PERMISSIONS == {Permission.APPLY_DEPOSIT, Permission.TRANSFER_SURPLUS}


def test_the_system_actor_cannot_approve_a_disposal(pound, pound_keeper, dm_clerk, tariffs):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    auctions.send_report(entry=entry, by=pound_keeper)
    order = auctions.propose_disposal(
        pound=pound,
        animal_ids=[entry.animals.get().pk],
        by=dm_clerk,
        reason="Old and blind: no fair price at auction",
        mode=DisposalOrder.Mode.GAUSHALA,
        recipient="Shri Krishna Gaushala",
    )
    before = written()

    with pytest.raises(PermissionDenied):
        auctions.decide_disposal(order=order, by=system_actor(), approve=True)

    order.refresh_from_db()
    assert order.status == DisposalOrder.Status.PROPOSED
    assert written() == before


def test_the_system_actor_cannot_sell_a_lot(standing_order, pound, pound_keeper, police_officer):
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    auction = schedule(pound, police_officer, [[entry.animals.get()]])
    bidder = register(auction, police_officer)
    lot = auction.lots.get()
    before = written()

    with pytest.raises(PermissionDenied):
        auctions.sell_lot(lot=lot, buyer=bidder, price=Decimal("40000.00"), by=system_actor())

    lot.refresh_from_db()
    assert lot.status == Lot.Status.OPEN
    assert written() == before


def test_no_person_credits_a_surplus_to_revenue(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk, magistrate
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    time_machine.move_to(noon(date(2026, 12, 1)), tick=False)
    before = written()

    for person in (magistrate, dm_clerk):
        with pytest.raises(PermissionDenied):
            office.transfer_expired_surplus(deposit=held, by=person)

    assert written() == before


def test_a_role_assigned_to_the_system_actor_gives_it_nothing_more(pound, district):
    system = system_actor()
    StaffAssignment.objects.create(
        user=system, role=Role.MAGISTRATE, district=district, valid_from=date(2020, 1, 1)
    )

    assert [g.role for g in grants_for(system_actor())] == ["system"]
    assert not has_permission(system_actor(), Permission.APPROVE, pound)


def test_nobody_can_sign_in_as_the_system_actor(client):
    system = system_actor()

    response = client.post(
        reverse("login"), {"username": SYSTEM_USERNAME, "password": "any-password-at-all"}
    )

    assert not system.has_usable_password()
    assert response.status_code == 200  # the form again, not a redirect home
    assert "_auth_user_id" not in client.session


def test_the_run_refuses_a_system_actor_given_a_password_or_switched_off():
    system = system_actor()
    system.set_password("a-password-someone-chose")
    system.save(update_fields=["password"])

    with pytest.raises(PermissionDenied):
        run()
    assert grants_for(User.objects.get(pk=system.pk)) == ()

    system.set_unusable_password()
    system.is_active = False
    system.save(update_fields=["password", "is_active"])

    with pytest.raises(PermissionDenied):
        run()
