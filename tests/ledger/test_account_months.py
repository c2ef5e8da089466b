"""The ledger's month totals (AccountMonth, docs/decisions/0006): post() and reverse() keep them
equal to the postings, check_ledger catches a month row that says otherwise, and they can be
set afresh from postings written past post()."""

from datetime import date, datetime
from decimal import Decimal
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.db import transaction
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from ledger import services as ledger
from ledger.checks import months_agree
from ledger.models import (
    AccountKind,
    AccountMonth,
    Posting,
    Transaction,
    TransactionKind,
    month_of,
    net_of_months,
)

D = Decimal
IST = ZoneInfo("Asia/Kolkata")


@pytest.fixture
def accounts(pound):
    district = pound.district
    return [
        ledger.account(district=district, pound=pound, kind=AccountKind.POUND_CASH),
        ledger.account(district=district, pound=pound, kind=AccountKind.FEEDING_PK),
        ledger.account(district=district, kind=AccountKind.FINES_DUE_DM),
        ledger.account(district=district, kind=AccountKind.DEPOSITS_HELD),
    ]


def post(pound, lines, *, at, kind=TransactionKind.PAYMENT_S13, own_pound=True):
    return ledger.post(
        district=pound.district,
        pound=pound if own_pound else None,
        kind=kind,
        memo="Test",
        by=None,
        source="test:1",
        lines=lines,
        at=at,
    )


def months():
    return {
        (m.account_id, m.pound_id, m.kind, m.month): (m.debit, m.credit, m.postings)
        for m in AccountMonth.objects.all()
    }


def test_post_and_reverse_add_up_by_month_in_india(pound, accounts):
    cash, feeding, fines, _held = accounts
    # 31 March 20:00 UTC is already 1 April in India: the April row takes it.
    late = datetime(2026, 3, 31, 20, tzinfo=ZoneInfo("UTC"))
    with transaction.atomic():
        first = post(
            pound,
            [(cash, D("520.00")), (fines, D("-500.00")), (feeding, D("-20.00"))],
            at=datetime(2026, 3, 5, 12, tzinfo=IST),
        )
        post(pound, [(cash, D("100.00")), (fines, D("-100.00"))], at=late)
        post(pound, [(cash, D("7.00")), (fines, D("-7.00"))], at=late, own_pound=False)
    ledger.reverse(txn=first, by=None, reason="typed twice")

    rows = months()
    march, april = date(2026, 3, 1), date(2026, 4, 1)
    kind = TransactionKind.PAYMENT_S13
    assert rows[cash.pk, pound.pk, kind, march] == (D("520.00"), D("0.00"), 1)
    assert rows[fines.pk, pound.pk, kind, march] == (D("0.00"), D("500.00"), 1)
    assert rows[fines.pk, pound.pk, kind, april] == (D("0.00"), D("100.00"), 1)
    assert rows[fines.pk, None, kind, april] == (D("0.00"), D("7.00"), 1)
    this_month = month_of(Transaction.objects.get(reverses=first).at)
    assert rows[cash.pk, pound.pk, TransactionKind.REVERSAL, this_month] == (
        D("0.00"),
        D("520.00"),
        1,
    )
    assert months_agree() == []


def test_the_same_account_twice_in_one_transaction_is_one_row(pound, accounts):
    cash, _feeding, fines, _held = accounts
    with transaction.atomic():
        post(
            pound,
            [(cash, D("5.00")), (cash, D("-2.00")), (fines, D("-3.00"))],
            at=datetime(2026, 5, 2, tzinfo=IST),
        )
    row = AccountMonth.objects.get(account=cash)
    assert (row.debit, row.credit, row.postings) == (D("5.00"), D("2.00"), 2)
    assert months_agree() == []


lines_strategy = st.lists(
    st.tuples(
        st.integers(0, 3),  # account
        st.integers(1, 99999).map(lambda paise: D(paise) / 100),
    ),
    min_size=1,
    max_size=4,
)
transactions_strategy = st.lists(
    st.tuples(
        lines_strategy,
        st.integers(0, 3),  # account that balances it
        st.integers(1, 24),  # month
        st.booleans(),  # has a pound
        st.booleans(),  # reversed afterwards
    ),
    min_size=1,
    max_size=8,
)


@pytest.mark.django_db
@hypothesis_settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(transactions_strategy)
def test_any_postings_and_reversals_keep_the_months_equal_to_the_postings(pound, accounts, txns):
    with transaction.atomic():
        for lines, balancing, month, has_pound, reversed_ in txns:
            posted = [(accounts[i], amount) for i, amount in lines]
            total = sum(a for _acc, a in posted)
            posted.append((accounts[balancing], -total))
            # Half past midnight in India on the 1st: still the month before in UTC.
            at = datetime(2025 + (month - 1) // 12, (month - 1) % 12 + 1, 1, 0, 30, tzinfo=IST)
            txn = post(pound, posted, at=at, own_pound=has_pound)
            if reversed_:
                ledger.reverse(txn=txn, by=None, reason="test")

        assert months_agree() == []
        for acc in accounts:
            net = AccountMonth.objects.filter(account=acc).aggregate(n=net_of_months())["n"]
            assert net == acc.balance()
        transaction.set_rollback(True)


def test_check_ledger_catches_a_month_row_that_disagrees(pound, accounts):
    cash, _feeding, fines, _held = accounts
    with transaction.atomic():
        post(pound, [(cash, D("50.00")), (fines, D("-50.00"))], at=datetime(2026, 6, 1, tzinfo=IST))
    AccountMonth.objects.filter(account=fines).update(credit=D("45.00"))
    AccountMonth.objects.create(
        account=cash, pound=pound, kind=TransactionKind.SALE_S14, month=date(2026, 6, 1), debit=1
    )
    err = StringIO()

    with pytest.raises(SystemExit):
        call_command("check_ledger", stdout=StringIO(), stderr=err)

    problems = months_agree()
    assert len(problems) == 2
    assert (
        f"account #{fines.pk}, pound #{pound.pk}, payment_s13, 2026-06: the month totals say"
        " 0.00 debit and 45.00 credit in 1 posting(s), the postings say 0.00 and 50.00 in 1"
    ) in problems
    assert f"account #{cash.pk}, pound #{pound.pk}, sale_s14, 2026-06" in problems[0] + problems[1]
    assert "2026-06: the month totals say 0.00 debit and 45.00 credit" in err.getvalue()


def _written_past_post(pound, accounts):
    """Postings written straight into the tables, as a bulk load does."""
    cash, _feeding, fines, _held = accounts
    txns = Transaction.objects.bulk_create(
        Transaction(
            district=pound.district,
            pound=pound,
            kind=TransactionKind.PAYMENT_S13,
            at=datetime(2026, month, 3, tzinfo=IST),
            memo="bulk",
            source="bulk",
        )
        for month in (1, 1, 2)
    )
    Posting.objects.bulk_create(
        p
        for t in txns
        for p in (
            Posting(transaction=t, account=cash, amount=D("2.00")),
            Posting(transaction=t, account=fines, amount=D("-2.00")),
        )
    )


def test_rebuild_sets_the_months_from_postings_written_past_post(pound, accounts):
    with transaction.atomic():
        post(
            pound,
            [(accounts[0], D("9.00")), (accounts[2], D("-9.00"))],
            at=datetime(2026, 1, 9, tzinfo=IST),
        )
        _written_past_post(pound, accounts)
    assert months_agree() != []

    with transaction.atomic():
        ledger.rebuild_months()

    assert months_agree() == []
    row = AccountMonth.objects.get(account=accounts[0], month=date(2026, 1, 1))
    assert (row.debit, row.credit, row.postings) == (D("13.00"), D("0.00"), 3)


@pytest.mark.django_db(transaction=True)
def test_rebuild_refuses_to_run_outside_a_transaction():
    with pytest.raises(RuntimeError, match="inside a transaction"):
        ledger.rebuild_months()
