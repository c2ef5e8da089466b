"""Reconciliation of the ledger with itself and with the business records it mirrors.

Each check returns a list of problems (strings); `manage.py check_ledger` runs them all.
The books know no business record: each app above registers what its records say the
accounts should hold (EXPECTATIONS).
"""

from collections import defaultdict
from decimal import Decimal

from django.db.models import Count, F, Q, Sum

from .models import Account, Posting, Transaction

ZERO = Decimal("0.00")


def transactions_balance():
    """Every transaction has postings, they sum to zero, and all stay in its district."""
    problems = []
    unbalanced = (
        Transaction.objects.annotate(
            total=Sum("postings__amount", default=ZERO), lines=Count("postings")
        )
        .filter(~Q(total=0) | Q(lines=0))
        .values_list("pk", "total", "lines")
    )
    for pk, total, lines in unbalanced:
        # Two places whatever the database returns (SQLite's SUM drops trailing zeros).
        problems.append(
            f"transaction #{pk} has {lines} posting(s) summing to {total:.2f}, not zero"
        )
    mismatched = Posting.objects.exclude(
        account__district_id=F("transaction__district_id")
    ).values_list("transaction_id", flat=True)
    for pk in sorted(set(mismatched)):
        problems.append(f"transaction #{pk} posts to an account of another district")
    return problems


def _balances():
    """{(district_id, pound_id, kind): balance} for every account."""
    return {(a.district_id, a.pound_id, a.kind): a.balance for a in Account.objects.with_balances()}


def business_reconciles():
    """Each account's balance equals what the business records say it should hold. The apps
    that keep those records register what they expect in EXPECTATIONS (in AppConfig.ready())."""
    expected = defaultdict(lambda: ZERO)
    for extra in EXPECTATIONS:
        for key, amount in extra():
            expected[key] += amount

    actual = _balances()
    problems = []
    names = {
        (a.district_id, a.pound_id, a.kind): str(a)
        for a in Account.objects.select_related("district", "pound")
    }
    for key in sorted(set(actual) | set(expected), key=str):
        have, want = actual.get(key, ZERO), expected.get(key, ZERO)
        if have != want:
            problems.append(
                f"{names.get(key, key)}: the ledger says {have:.2f}, the records say {want:.2f}"
            )
    return problems


# Each app appends a function yielding ((district_id, pound_id, kind), amount) here.
EXPECTATIONS = []

CHECKS = [transactions_balance, business_reconciles]


def run_checks():
    problems = []
    for check in CHECKS:
        problems.extend(check())
    return problems
