"""Two clerks record the same GRN for two surplus transfers at the same moment: one transfer is
settled by it, the other is refused (the defacement of ADR 0076). Needs PostgreSQL's unique
index; each thread has its own connection and commits for real."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.roles import Role
from kernel.events import verify_chain
from ledger.checks import run_checks
from office import services as office
from office import treasury
from office.models import SurplusDeposit, TreasuryChallan
from tests.accounts.factories import staff
from tests.auctions.factories import conditions
from tests.impounding.test_concurrency import race
from tests.office.factories import received_surplus

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _transferred(pound, keeper, officer, clerk):
    held = received_surplus(pound, keeper, officer, clerk)
    return office.transfer_expired_surplus(deposit=held, today=held.expires_on + timedelta(days=1))


@pytest.mark.parametrize("checked_first", [True, False])
def test_one_grn_recorded_twice_at_once_settles_one_transfer(
    monkeypatch, checked_first, district, pound, pound_keeper, police_officer, dm_clerk, tariffs
):
    conditions(district, by=dm_clerk)
    first = _transferred(pound, pound_keeper, police_officer, dm_clerk)
    second = _transferred(pound, pound_keeper, police_officer, dm_clerk)
    other_clerk = staff(Role.DM_CLERK, "dm_clerk_2", district=district)
    if not checked_first:
        # Both pass the look-up before either commits: the unique index alone decides.
        monkeypatch.setattr(treasury, "grn_used", lambda grn: False)

    def record(deposit_pk, by):
        def call():
            return treasury.record_surplus_transfer(
                deposit=SurplusDeposit.objects.get(pk=deposit_pk),
                by=by,
                grn="GRN-RACE-1",
                cin="0002390260511200099",
                scroll_number="SC-1",
                scroll_date=timezone.localdate(),
            )

        return call

    results, errors = race(record(first.pk, dm_clerk), record(second.pk, other_clerk))

    assert len([r for r in results if r is not None]) == 1
    (loser,) = [e for e in errors if e is not None]
    assert isinstance(loser, ValidationError)
    assert "already defaced" in str(loser)
    assert TreasuryChallan.objects.filter(grn="GRN-RACE-1").count() == 1
    assert run_checks() == []
    assert verify_chain() == []
