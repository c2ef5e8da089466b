"""check_ledger's checkpoint (ledger/checkpoint.py): the default run walks only the postings
written since the checkpoint and still catches what the other ledger tests tamper with; a posted
row changed in place under the checkpoint is caught by --full. Its queries do not grow with the
history. A run of its own runs the three checks side by side, in one snapshot."""

import threading
from datetime import datetime, timedelta
from decimal import Decimal
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ledger import checks
from ledger import services as ledger
from ledger.checkpoint import SETTLE, check
from ledger.models import (
    AccountKind,
    AccountMonth,
    CheckedMonth,
    LedgerCheckpoint,
    Posting,
    Transaction,
    TransactionKind,
)
from tests.impounding.test_concurrency import race

D = Decimal
IST = ZoneInfo("Asia/Kolkata")


@pytest.fixture
def accounts(pound):
    district = pound.district
    return {
        "cash": ledger.account(district=district, pound=pound, kind=AccountKind.POUND_CASH),
        "fines": ledger.account(district=district, kind=AccountKind.FINES_DUE_DM),
    }


def history(pound, accounts, n, month=3):
    """n balanced postings of cash against fines in an old month."""
    with transaction.atomic():
        for i in range(n):
            ledger.post(
                district=pound.district,
                pound=pound,
                kind=TransactionKind.PAYMENT_S13,
                memo="history",
                by=None,
                source=f"test:{i}",
                lines=[(accounts["cash"], D("10.00")), (accounts["fines"], D("-10.00"))],
                at=datetime(2026, month, 1 + i % 27, 12, tzinfo=IST),
            )


def settled_checkpoint():
    """Two passing runs, the first one SETTLE ago: the checkpoint is the last transaction."""
    check(now=timezone.now() - SETTLE - timedelta(minutes=1))
    return check()


@pytest.fixture
def verified(pound, accounts, monkeypatch):
    # The business records are not what these tests are about (tests/ledger/test_ledger.py).
    monkeypatch.setattr("ledger.checks.business_reconciles", list)
    history(pound, accounts, 6)
    outcome = settled_checkpoint()
    assert outcome.problems == []
    assert outcome.checkpoint == Transaction.objects.latest("pk").pk
    return outcome


def test_a_checkpoint_waits_until_no_transaction_below_it_can_be_uncommitted(
    pound, accounts, monkeypatch
):
    monkeypatch.setattr("ledger.checks.business_reconciles", list)
    history(pound, accounts, 2)
    assert check().checkpoint == 0
    assert check().checkpoint == 0  # the candidate is seconds old
    assert settled_checkpoint().checkpoint == Transaction.objects.latest("pk").pk
    mark = LedgerCheckpoint.objects.get()
    cash = accounts["cash"]
    assert CheckedMonth.objects.get(account=cash).postings == 2
    assert AccountMonth.objects.get(account=cash).postings == 2
    assert mark.candidate == mark.through


def test_the_default_run_reads_only_the_postings_after_the_checkpoint(verified, pound, accounts):
    history(pound, accounts, 2, month=4)

    outcome = check()

    assert (outcome.problems, outcome.after) == ([], verified.checkpoint)


def test_the_default_run_catches_a_month_row_edited_under_the_checkpoint(verified, accounts):
    AccountMonth.objects.filter(account=accounts["fines"]).update(credit=D("45.00"))

    outcome = check()

    assert outcome.after == verified.checkpoint
    assert len(outcome.problems) == 1
    assert (
        "the month totals say 0.00 debit and 45.00 credit in 6 posting(s)" in (outcome.problems[0])
    )
    # A failing run does not move the checkpoint.
    assert LedgerCheckpoint.objects.get().through == verified.checkpoint


def test_the_default_run_catches_a_checked_month_edited(verified, accounts):
    CheckedMonth.objects.filter(account=accounts["cash"]).update(debit=D("1.00"))

    assert len(check().problems) == 1


def test_the_default_run_catches_postings_written_past_post_into_an_old_month(
    verified, pound, accounts
):
    txn = Transaction.objects.create(
        district=pound.district,
        pound=pound,
        kind=TransactionKind.PAYMENT_S13,
        at=datetime(2026, 3, 5, tzinfo=IST),
        memo="bulk",
        source="bulk",
    )
    Posting.objects.bulk_create(
        [
            Posting(transaction=txn, account=accounts["cash"], amount=D("2.00")),
            Posting(transaction=txn, account=accounts["fines"], amount=D("-2.00")),
        ]
    )

    problems = check().problems

    assert len(problems) == 2
    assert all("2026-03" in p for p in problems)


def test_the_default_run_catches_an_unbalanced_transaction_written_since(verified, pound, accounts):
    with transaction.atomic():
        # Written past post(); rolled back before the database's own check at the commit.
        lopsided = Transaction.objects.create(
            district=pound.district, kind="payment_s13", memo="bad", source="x"
        )
        Posting.objects.create(transaction=lopsided, account=accounts["cash"], amount=D("5.00"))
        problems = check().problems
        transaction.set_rollback(True)

    assert f"transaction #{lopsided.pk} has 1 posting(s) summing to 5.00, not zero" in problems


@pytest.mark.postgres
def test_a_posted_row_changed_in_place_under_the_checkpoint_is_caught_by_full(verified):
    """The triggers refuse it, so it takes the owner disabling them; the default run does not
    walk the old postings, --full does."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the history's deferred checks first
        cursor.execute("ALTER TABLE ledger_posting DISABLE TRIGGER USER")
        cursor.execute(
            "UPDATE ledger_posting SET amount = amount * 2 WHERE id = (SELECT min(id) FROM"
            " ledger_posting WHERE amount > 0)"
        )
        cursor.execute("ALTER TABLE ledger_posting ENABLE TRIGGER USER")

    assert check().problems == []
    full = check(full=True)

    assert full.after == 0
    assert any("not zero" in p for p in full.problems)
    assert any("the month totals say 60.00 debit" in p for p in full.problems)


def test_the_default_run_makes_the_same_queries_whatever_the_history(
    pound, accounts, monkeypatch, django_assert_max_num_queries
):
    monkeypatch.setattr("ledger.checks.business_reconciles", list)
    history(pound, accounts, 2)
    settled_checkpoint()
    with CaptureQueriesContext(connection) as small:
        check()
    history(pound, accounts, 20, month=5)
    settled_checkpoint()

    with django_assert_max_num_queries(len(small)):
        check()


def test_the_command_says_how_far_it_walked(verified):
    out = StringIO()
    call_command("check_ledger", stdout=out)
    assert f"(postings after transaction #{verified.checkpoint};" in out.getvalue()

    out = StringIO()
    call_command("check_ledger", "--full", stdout=out)
    assert "every balance agrees (every posting;" in out.getvalue()


# A full walk at a State's volume: the checks side by side, in one exported snapshot.

BOUND = 120  # seconds a lane may wait for the others: generous, so that no test hangs on speed
CHECKS = ("transactions_balance", "business_reconciles", "months_agree")


def _lanes(monkeypatch, before):
    """Each check wrapped so that `before(name)` runs in its lane, in its session, first."""
    for name in CHECKS:
        real = getattr(checks, name)

        def wrapped(*args, _real=real, _name=name):
            before(_name)
            return _real(*args)

        monkeypatch.setattr(checks, name, wrapped)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_full_walk_runs_its_checks_side_by_side_in_the_snapshot_it_began_in(
    pound, accounts, monkeypatch
):
    """Each lane waits for the other two (run one after another, none would get past the
    barrier); then another session commits a payment, and no lane sees it."""
    monkeypatch.setattr(checks, "business_reconciles", list)
    history(pound, accounts, 3)
    met, posted, seen = threading.Barrier(3, timeout=BOUND), threading.Event(), {}

    def before(name):
        met.wait()
        if name == "months_agree":
            _results, errors = race(lambda: history(pound, accounts, 1, month=6))
            assert errors == [None]
            posted.set()
        assert posted.wait(BOUND)
        seen[name] = (Transaction.objects.count(), connection.connection.info.backend_pid)

    _lanes(monkeypatch, before)
    outcome = check(full=True)

    assert outcome.problems == []
    assert {name: count for name, (count, _pid) in seen.items()} == dict.fromkeys(CHECKS, 3)
    assert len({pid for _count, pid in seen.values()}) == 3
    assert Transaction.objects.count() == 4
