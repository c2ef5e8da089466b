"""Reconciliation of the ledger with itself and with the business records it mirrors.

Each check returns a list of problems (strings); `manage.py check_ledger` runs them all.
The books know no business record: each app above registers what its records say the
accounts should hold (settings.LEDGER_EXPECTATIONS).

At a State's volume there are millions of records behind the books, so every check is a few
grouped queries: the database adds the amounts up, and Python sees one row per account (or
per group of records that land in the same accounts), never a row per record.
"""

from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from decimal import Decimal
from functools import partial

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Case, CharField, Count, F, Q, Sum, Value, When
from django.db.models.lookups import Exact
from django.utils.module_loading import import_string

from .models import (
    Account,
    AccountMonth,
    CheckedMonth,
    PaymentMode,
    Posting,
    Transaction,
    months_of_postings,
    net_of_months,
    till,
)

ZERO = Decimal("0.00")


def till_of(mode):
    """`till()` in SQL, for grouping records by the account their money landed in. `mode` is a
    field path or an expression giving a payment mode. Built from till() itself, so the rule
    stays in one place."""
    mode = F(mode) if isinstance(mode, str) else mode
    return Case(
        *[When(Exact(mode, choice), then=Value(till(choice))) for choice in PaymentMode.values],
        default=Value(till(None)),
        output_field=CharField(),
    )


def transactions_balance(after=0):
    """Every transaction has postings, they sum to zero, and all stay in its district: one
    grouped pass over the postings with their accounts, a row per transaction in the database
    and only the faulty ones in Python. `after`: only the transactions numbered above it (those
    a checkpoint has not verified; ledger/checkpoint.py)."""
    problems = []
    faulty = (
        Transaction.objects.filter(pk__gt=after)
        .annotate(
            total=Sum("postings__amount", default=ZERO),
            lines=Count("postings"),
            strays=Count("postings", filter=~Q(postings__account__district_id=F("district_id"))),
        )
        .filter(~Q(total=0) | Q(lines=0) | Q(strays__gt=0))
        .order_by("pk")
        .values_list("pk", "total", "lines", "strays")
    )
    for pk, total, lines, strays in faulty.iterator():
        if total != 0 or not lines:
            # Two places whatever the database returns (SQLite's SUM drops trailing zeros).
            problems.append(
                f"transaction #{pk} has {lines} posting(s) summing to {total:.2f}, not zero"
            )
        if strays:
            problems.append(f"transaction #{pk} posts to an account of another district")
    return problems


def _balances():
    """{(district_id, pound_id, kind): balance} for every account, from the month totals: a row
    per account and month rather than per posting. Sound because months_agree holds the month
    totals against the postings in the same run."""
    rows = (
        AccountMonth.objects.order_by()
        .values_list("account__district_id", "account__pound_id", "account__kind")
        .annotate(balance=net_of_months())
    )
    return {(district, pound, kind): balance for district, pound, kind, balance in rows}


def business_reconciles():
    """Each account's balance equals what the business records say it should hold. The apps
    that keep those records say what they expect (settings.LEDGER_EXPECTATIONS),
    each as a few grouped queries: memory grows with the number of accounts, not of records."""
    expected: defaultdict[tuple, Decimal] = defaultdict(lambda: ZERO)
    for extra in expectations():
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


MONTH_KEY = ("account_id", "pound_id", "kind", "month")
FIGURES = ("debit", "credit", "postings")


def _side(queryset, mine):
    """`queryset`'s month rows as one arm of the comparison below: its figures in the three
    columns of its side (mine: the month totals; otherwise: what the postings say), zeros in the
    other three."""
    sql, params = queryset.values(*MONTH_KEY, *FIGURES).order_by().query.sql_with_params()
    zeros = ["0", "0", "0"]
    columns = [*FIGURES, *zeros] if mine else [*zeros, *FIGURES]
    names = ("hd", "hc", "hn", "wd", "wc", "wn")
    picked = ", ".join(f"{c} AS {n}" for c, n in zip(columns, names, strict=True))
    return f"SELECT {', '.join(MONTH_KEY)}, {picked} FROM ({sql}) AS s", params


def months_agree(after=0):
    """The month totals (AccountMonth) say what the postings add up to, month by month. One
    query, compared in the database, and only the rows that disagree come back.

    What the postings say is their grouped sum; with `after` (a checkpoint, ledger/checkpoint.py)
    it is the month totals verified up to that transaction (CheckedMonth) plus the postings of
    the transactions written since, so that the default run reads the month rows and a day's
    postings, not every posting."""
    arms = [_side(AccountMonth.objects.all(), True)]
    if after:
        arms.append(_side(CheckedMonth.objects.all(), False))
    postings = months_of_postings(Posting.objects.filter(transaction_id__gt=after))
    arms.append(_side(postings, False))
    keys = ", ".join(MONTH_KEY)
    sums = ", ".join(f"SUM({n})" for n in ("hd", "hc", "hn", "wd", "wc", "wn"))
    sql = (
        f"SELECT {keys}, {sums} FROM ({' UNION ALL '.join(a[0] for a in arms)}) AS arms"
        f" GROUP BY {keys}"
        # Rounded to the paisa: SQLite adds decimals as floating point.
        " HAVING ROUND(SUM(hd) - SUM(wd), 2) <> 0 OR ROUND(SUM(hc) - SUM(wc), 2) <> 0"
        " OR SUM(hn) <> SUM(wn)"
        f" ORDER BY {keys}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [p for a in arms for p in a[1]])
        rows = cursor.fetchall()
    problems = []
    for account, pound, kind, month, hd, hc, hn, wd, wc, wn in rows:
        month = date.fromisoformat(month[:10]) if isinstance(month, str) else month  # SQLite
        problems.append(
            f"account #{account}, pound #{pound}, {kind}, {month:%Y-%m}: the month totals say"
            f" {hd:.2f} debit and {hc:.2f} credit in {hn} posting(s), the postings say"
            f" {wd:.2f} and {wc:.2f} in {wn}"
        )
    return problems


def expectations():
    """Each app's function yielding ((district_id, pound_id, kind), amount), one item per group
    of its records (ledger_checks.py in each app, named in settings.LEDGER_EXPECTATIONS), not
    one per record."""
    return [import_string(path) for path in settings.LEDGER_EXPECTATIONS]


def run_checks(after=0, snapshot=None):
    """Every check; `after`: a checkpoint's transaction, for the two that walk the postings
    (ledger/checkpoint.py). 0 walks everything.

    With `snapshot` (one exported by PostgreSQL's pg_export_snapshot), the checks run side by
    side, each in a session of its own that imports that snapshot, as pg_dump --jobs does: they
    see the same database as one transaction would, and a full walk takes as long as its
    longest check rather than the sum of the three."""
    checks: list[Callable[[], list[str]]] = [
        partial(transactions_balance, after),
        business_reconciles,
        partial(months_agree, after),
    ]
    if snapshot is None:
        return [problem for run in checks for problem in run()]
    with ThreadPoolExecutor(len(checks), thread_name_prefix="check-ledger") as lanes:
        found = list(lanes.map(partial(_in_snapshot, snapshot), checks))
    return [problem for problems in found for problem in problems]


def _in_snapshot(snapshot, run):
    """`run()` in this thread's own session, in the exported `snapshot`."""
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                cursor.execute("SET TRANSACTION SNAPSHOT %s", [snapshot])
            return run()
    finally:
        connection.close()
