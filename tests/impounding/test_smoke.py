from decimal import Decimal

from django.core.management import call_command

from kernel.events import verify_chain
from ledger.checks import run_checks
from tests.impounding.factories import cow, deposit, goat, make_entry, pay


def test_entry_pay_and_deposit_end_to_end(pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat(), cow()])
    a1, a2, a3 = entry.animals.all()
    release = pay(entry, pound_keeper, [a1, a2])
    assert release.amount == Decimal("20000.00") + Decimal("1400.00") + 500 + 300
    dep = deposit(entry, pound_keeper, [a3])
    assert dep.deposit.amount == Decimal("20500.00")
    assert run_checks() == []
    assert verify_chain() == []
    call_command("check_ledger")
