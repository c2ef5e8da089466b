"""Reconciliation of the ledger with itself and with the business records it mirrors.

Each check returns a list of problems (strings); `manage.py check_ledger` runs them all.
Later workflows add their own checks to CHECKS.
"""

from collections import defaultdict
from decimal import Decimal

from django.db.models import Count, F, Q, Sum

from .models import Account, AccountKind, Posting, Transaction

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
    """Each account's balance equals what the business records say it should hold."""
    from impounding.models import Deposit, PaymentMode, Receipt, Release

    expected = defaultdict(lambda: ZERO)

    def add(district_id, pound_id, kind, amount):
        expected[(district_id, pound_id, kind)] += amount

    for r in Receipt.objects.filter(cancelled_at__isnull=True).select_related("pound"):
        kind = (
            AccountKind.POUND_CASH
            if r.payment_mode == PaymentMode.CASH
            else AccountKind.POUND_DIGITAL
        )
        add(r.pound.district_id, r.pound_id, kind, r.amount)
    for release in Release.objects.filter(kind=Release.Kind.PAYMENT).select_related(
        "impoundment__pound"
    ):
        pound = release.impoundment.pound
        add(pound.district_id, None, AccountKind.FINES_DUE_DM, -release.fines)
        add(pound.district_id, pound.pk, AccountKind.FEEDING_PK, -release.feeding)
    for d in Deposit.objects.select_related("release__impoundment__pound"):
        pound = d.release.impoundment.pound
        if d.status == Deposit.Status.HELD:
            add(pound.district_id, None, AccountKind.DEPOSITS_HELD, -d.amount)
        elif d.status == Deposit.Status.REFUND_DUE:
            add(pound.district_id, None, AccountKind.DEPOSIT_REFUNDS_DUE, -d.amount)
        elif d.status == Deposit.Status.APPLIED:
            add(pound.district_id, None, AccountKind.FINES_DUE_DM, -d.fines)
            add(pound.district_id, pound.pk, AccountKind.FEEDING_PK, -d.feeding)
        elif d.status == Deposit.Status.REFUNDED:
            kind = (
                AccountKind.POUND_CASH
                if d.refund_mode == PaymentMode.CASH
                else AccountKind.POUND_DIGITAL
            )
            add(pound.district_id, pound.pk, kind, -d.amount)
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


# Later workflows append functions yielding ((district_id, pound_id, kind), amount) here.
EXPECTATIONS = []

CHECKS = [transactions_balance, business_reconciles]


def run_checks():
    problems = []
    for check in CHECKS:
        problems.extend(check())
    return problems
