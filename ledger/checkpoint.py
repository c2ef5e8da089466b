"""check_ledger's checkpoint: how far the postings have been verified, so that the default run
walks only the transactions written since, and `--full` walks everything.

What the default run still reads in full: the month totals (AccountMonth, a row per account,
pound, kind and month), the verified month totals (CheckedMonth, as many), and the grouped
business records behind the balances. What it reads only past the checkpoint: the postings,
for the two checks that walk them (transactions_balance and months_agree). So a month row that
was edited, a posting written past post() or an unbalanced transaction written since are caught
by the default run; a posted row of an old transaction changed in place (the database's triggers
refuse it: it takes the owner role disabling them) is caught by `--full` only.

The checkpoint moves in two steps. A passing run notes the last transaction it saw (the
candidate); a later passing run, once the candidate is SETTLE old, adds the postings up to it
to the verified month totals and makes it the checkpoint. A transaction takes its number when
it is written and is committed within seconds, so after SETTLE none numbered below the
candidate can still be uncommitted and missed.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from .checks import run_checks
from .models import (
    AccountMonth,
    CheckedMonth,
    LedgerCheckpoint,
    Posting,
    Transaction,
    months_of_postings,
)

SETTLE = timedelta(hours=1)


@dataclass
class Outcome:
    problems: list
    after: int  # the checkpoint the run started from: 0 for a full walk
    checkpoint: int  # where it stands after the run


def check(full=False, now=None):
    """Run every check from the checkpoint (from the start with `full`), in one snapshot of the
    database, and move the checkpoint on if they all pass."""
    now = now or timezone.now()
    outer = connection.in_atomic_block
    with transaction.atomic():
        snapshot = None
        if connection.vendor == "postgresql" and not outer:
            # One snapshot for every query, so that a posting committed meanwhile cannot make
            # the month totals and the postings seem to disagree; exported, so that the checks
            # run side by side in sessions of their own, in it (run_checks). Inside a caller's
            # transaction, whose writes no other session sees, they run here one by one.
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                cursor.execute("SELECT pg_export_snapshot()")
                (snapshot,) = cursor.fetchone()
        mark = LedgerCheckpoint.objects.filter(pk=1).first() or LedgerCheckpoint(pk=1)
        after = 0 if full else mark.through
        problems = run_checks(after, snapshot)
        if not problems:
            _move_on(mark, full, now)
    return Outcome(problems, after, mark.through)


def _move_on(mark, full, now):
    """The checks passed: the verified month totals become those up to the candidate if it has
    settled, and the last transaction seen is the next candidate."""
    settled = mark.candidate_at is not None and mark.candidate_at <= now - SETTLE
    through = mark.candidate if settled else mark.through
    if full or through != mark.through:
        _set_checked_months(through)
    mark.through = through
    mark.verified_at = now
    mark.candidate = Transaction.objects.aggregate(last=Max("pk"))["last"] or 0
    mark.candidate_at = now
    mark.save()


def _set_checked_months(through):
    """CheckedMonth := the month totals of the postings of the transactions up to `through`.
    Right after the checks passed, in their snapshot, those are the month totals (AccountMonth)
    less the postings of the transactions after `through`: one read of the month rows and one
    grouped query over the postings past the new checkpoint."""
    totals = {}
    for row in AccountMonth.objects.values(*_KEY, *_FIGURES).iterator():
        totals[tuple(row[k] for k in _KEY)] = [row[f] for f in _FIGURES]
    later = months_of_postings(Posting.objects.filter(transaction_id__gt=through))
    for row in later.iterator():
        figures = totals[tuple(row[k] for k in _KEY)]
        for i, f in enumerate(_FIGURES):
            figures[i] -= row[f]
    CheckedMonth.objects.all().delete()
    CheckedMonth.objects.bulk_create(
        (
            CheckedMonth(
                **dict(zip(_KEY, key, strict=True)), **dict(zip(_FIGURES, fig, strict=True))
            )
            for key, fig in totals.items()
            if fig[2]
        ),
        batch_size=5000,
    )


_KEY = ("account_id", "pound_id", "kind", "month")
_FIGURES = ("debit", "credit", "postings")
