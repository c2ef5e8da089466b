"""The daily run overlapping with itself (cron firing twice, a manual run during the nightly one):
the row locks let each transfer and each application happen once between them. Needs
PostgreSQL; each thread has its own connection and commits for real."""

from datetime import date

import pytest

from accounts.models import Counter, IssuedDocument, ToDo
from impounding.models import Deposit
from ledger.checks import run_checks
from ledger.models import Transaction, TransactionKind
from office import services as office
from office.deadlines import run
from office.models import SurplusDeposit
from poundadmin.events import verify_chain
from poundadmin.models import Event
from tests.auctions.factories import conditions
from tests.impounding.factories import deposit, make_entry
from tests.impounding.test_concurrency import race
from tests.office.factories import noon, received_surplus

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_runs_at_once_transfer_the_surplus_and_apply_the_deposit_exactly_once(
    time_machine, district, pound, pound_keeper, police_officer, dm_clerk, magistrate, tariffs
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    conditions(district, by=dm_clerk)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    confirmed = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper).deposit
    office.confirm_deposit_application(deposit=confirmed, by=magistrate)
    # The surplus is held until 30 November; the complaint window closed on 10 September.
    time_machine.move_to(noon(date(2026, 12, 1)), tick=False)
    today = date(2026, 12, 1)

    results, errors = race(lambda: run(today), lambda: run(today))

    assert errors == [None, None]
    assert sum(r["surplus_transferred"] for r in results) == 1
    assert sum(r["deposits_applied"] for r in results) == 1
    held.refresh_from_db()
    confirmed.refresh_from_db()
    assert (held.status, confirmed.status) == (
        SurplusDeposit.Status.TRANSFERRED,
        Deposit.Status.APPLIED,
    )
    assert Transaction.objects.filter(kind=TransactionKind.SURPLUS_TRANSFERRED).count() == 1
    assert Transaction.objects.filter(kind=TransactionKind.DEPOSIT_APPLIED).count() == 1
    assert Event.objects.filter(action="ledger.surplus_transferred").count() == 1
    assert Event.objects.filter(action="deposit.applied").count() == 1
    assert IssuedDocument.objects.filter(kind=IssuedDocument.Kind.TRANSFER_MEMO).count() == 1
    assert Counter.objects.get(key=f"trf:{district.pk}:2026").value == 1
    # The run that lost the race asks nobody to confirm what the other has applied.
    assert not ToDo.objects.filter(key__startswith="deposit_apply:").exists()
    assert run_checks() == []
    assert verify_chain() == []
