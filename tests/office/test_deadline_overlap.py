"""The daily run overlapping with itself (cron firing twice, a manual run during the nightly one):
the row locks let each transfer and each application happen once between them. Needs
PostgreSQL; each thread has its own connection and commits for real."""

import ast
import io
from datetime import date
from pathlib import Path

import pytest
from django.core.management import call_command

from accounts.models import Counter, IssuedDocument, ToDo
from impounding.models import Deposit
from kernel.events import verify_chain
from kernel.locks import advisory_lock
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Transaction, TransactionKind
from office import services as office
from office.deadlines import run
from office.models import SurplusDeposit
from tests.auctions.factories import conditions
from tests.impounding.factories import deposit, make_entry
from tests.impounding.test_concurrency import race
from tests.office.factories import noon, received_surplus

LOCKED_LINE = "Another daily run is in progress; this one did nothing."

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


def _command(today):
    def call():
        out = io.StringIO()
        call_command("run_deadlines", date=today, stdout=out)
        return out.getvalue().strip()

    return call


def test_three_daily_runs_at_once_do_the_work_once_and_the_others_say_so(
    time_machine, district, pound, pound_keeper, police_officer, dm_clerk, magistrate, tariffs
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    conditions(district, by=dm_clerk)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    time_machine.move_to(noon(date(2026, 12, 1)), tick=False)
    today = date(2026, 12, 1)

    results, errors = race(_command(today), _command(today), _command(today))

    assert errors == [None, None, None]
    assert all(len(r.splitlines()) == 1 for r in results)
    worked = [r for r in results if r.startswith("run_deadlines: ")]
    assert 1 <= len(worked) <= 3
    # Each run that found the lock taken says so in one line and does nothing.
    assert all(r == LOCKED_LINE for r in results if r not in worked)
    held.refresh_from_db()
    assert held.status == SurplusDeposit.Status.TRANSFERRED
    assert Transaction.objects.filter(kind=TransactionKind.SURPLUS_TRANSFERRED).count() == 1
    assert Event.objects.filter(action="ledger.surplus_transferred").count() == 1
    assert run_checks() == []
    assert verify_chain() == []


def test_a_run_while_another_holds_the_lock_exits_with_one_line():
    with advisory_lock("run_deadlines") as held:
        assert held
        # The lock belongs to this connection; a second connection must be the one refused.
        results, errors = race(_command(None))

    assert errors == [None]
    assert results == [LOCKED_LINE]


def test_every_row_lock_in_the_apps_locks_only_its_own_table():
    """select_for_update with a join locks the joined rows too (once a deadlock
    between two daily runs), so every call names of=("self",)."""
    root = Path(__file__).resolve().parents[2]
    offenders = []
    apps = ("kernel", "accounts", "ledger", "impounding", "auctions", "office", "payments")
    apps += ("messaging", "api", "webhooks")
    for app in apps:
        for path in (root / app).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "select_for_update"
                ):
                    of = [k.value for k in node.keywords if k.arg == "of"]
                    if not of or ast.literal_eval(of[0]) != ("self",):
                        offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert offenders == []
