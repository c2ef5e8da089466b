"""The double-entry ledger: post() and reverse(), the database's guards, and check_ledger."""

from decimal import Decimal
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from ledger import services as ledger
from ledger.checks import run_checks, transactions_balance
from ledger.models import (
    DISTRICT_ACCOUNTS,
    POUND_ACCOUNTS,
    Account,
    AccountKind,
    Posting,
    Transaction,
    TransactionKind,
)
from tests.impounding.factories import cow, deposit, goat, make_entry, pay, set_tariffs

D = Decimal


@pytest.fixture
def accounts(pound):
    district = pound.district
    return {
        "cash": ledger.account(district=district, pound=pound, kind=AccountKind.POUND_CASH),
        "digital": ledger.account(district=district, pound=pound, kind=AccountKind.POUND_DIGITAL),
        "feeding": ledger.account(district=district, pound=pound, kind=AccountKind.FEEDING_PK),
        "fines": ledger.account(district=district, kind=AccountKind.FINES_DUE_DM),
        "held": ledger.account(district=district, kind=AccountKind.DEPOSITS_HELD),
    }


def post(pound, lines, **kw):
    fields = (
        dict(
            district=pound.district,
            pound=pound,
            kind=TransactionKind.PAYMENT_S13,
            memo="Test",
            by=None,
            source="test:1",
            section="s.13",
        )
        | kw
    )
    return ledger.post(lines=lines, **fields)


def test_post_writes_one_balanced_transaction(pound, accounts, pound_keeper):
    txn = post(
        pound,
        [
            (accounts["cash"], D("520.00")),
            (accounts["fines"], D("-500.00")),
            (accounts["feeding"], D("-20.00")),
        ],
        by=pound_keeper,
        impoundment_id=7,
    )

    assert (txn.kind, txn.by, txn.section, txn.impoundment_id) == (
        "payment_s13",
        pound_keeper,
        "s.13",
        7,
    )
    assert sorted(p.amount for p in txn.postings.all()) == [D("-500.00"), D("-20.00"), D("520.00")]
    assert accounts["cash"].balance() == D("520.00")
    assert accounts["fines"].balance() == D("-500.00")
    balances = {a.kind: a.balance for a in Account.objects.with_balances()}
    assert balances[AccountKind.POUND_DIGITAL] == D("0.00")
    assert transactions_balance() == []


def test_post_leaves_out_zero_lines(pound, accounts):
    txn = post(
        pound,
        [
            (accounts["cash"], D("500.00")),
            (accounts["fines"], D("-500.00")),
            (accounts["feeding"], D("0.00")),
        ],
    )

    assert txn.postings.count() == 2


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ([("cash", D("500.00")), ("fines", D("-499.99"))], "sum to zero"),
        ([("cash", D("500.00"))], "sum to zero"),
        ([("cash", D("0.00")), ("fines", D("0.00"))], "at least one non-zero"),
        ([], "at least one non-zero"),
        ([("cash", D("10.005")), ("fines", D("-10.005"))], "whole number of paise"),
    ],
)
def test_post_refuses_an_unbalanced_or_inexact_transaction(pound, accounts, lines, error):
    with pytest.raises(ValidationError, match=error):
        post(pound, [(accounts[name], amount) for name, amount in lines])

    assert not Transaction.objects.exists()
    assert not Posting.objects.exists()


@pytest.mark.parametrize("amount", [500.0, 500, "500.00"])
def test_post_refuses_amounts_that_are_not_decimal(pound, accounts, amount):
    with pytest.raises(TypeError, match="Decimal"):
        post(pound, [(accounts["cash"], amount), (accounts["fines"], D("-500.00"))])

    assert not Transaction.objects.exists()


def test_post_refuses_an_account_of_another_district(pound, accounts, other_pound):
    foreign = ledger.account(district=other_pound.district, kind=AccountKind.FINES_DUE_DM)

    with pytest.raises(ValidationError, match="district"):
        post(pound, [(accounts["cash"], D("500.00")), (foreign, D("-500.00"))])

    assert not Transaction.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_post_refuses_to_run_outside_a_business_transaction(pound, accounts):
    with pytest.raises(RuntimeError, match="inside the business transaction"):
        post(pound, [(accounts["cash"], D("500.00")), (accounts["fines"], D("-500.00"))])

    assert not Transaction.objects.exists()


def test_accounts_are_kept_per_pound_or_per_district(pound, district):
    cash = ledger.account(district=district, pound=pound, kind=AccountKind.POUND_CASH)

    assert ledger.account(district=district, pound=pound, kind=AccountKind.POUND_CASH) == cash
    fines = ledger.account(district=district, pound=pound, kind=AccountKind.FINES_DUE_DM)
    assert fines.pound is None  # a district account, whatever pound is named
    with pytest.raises(ValueError, match="per pound"):
        ledger.account(district=district, kind=AccountKind.FEEDING_PK)
    with pytest.raises(ValueError, match="unknown"):
        ledger.account(district=district, kind="petty_cash")
    assert str(cash) == f"Cash at the pound: {pound.label}"


def test_open_accounts_creates_the_chart_once(pound):
    ledger.open_accounts(pound=pound)
    ledger.open_accounts(pound=pound)

    assert Account.objects.filter(pound=pound).count() == len(POUND_ACCOUNTS)
    assert Account.objects.filter(district=pound.district, pound=None).count() == len(
        DISTRICT_ACCOUNTS
    )


# --- reversal ---


def test_reverse_posts_the_mirror_image(pound, accounts, dm_clerk):
    txn = post(
        pound,
        [(accounts["cash"], D("520.00")), (accounts["fines"], D("-520.00"))],
        impoundment_id=3,
    )

    mirror = ledger.reverse(txn=txn, by=dm_clerk, reason="Entered against the wrong entry")

    assert (mirror.kind, mirror.reverses, mirror.by) == (TransactionKind.REVERSAL, txn, dm_clerk)
    assert (mirror.source, mirror.section, mirror.impoundment_id) == ("test:1", "s.13", 3)
    assert mirror.memo == f"Reversal of #{txn.pk}: Entered against the wrong entry"
    assert sorted((p.account.kind, p.amount) for p in mirror.postings.all()) == [
        (AccountKind.FINES_DUE_DM, D("520.00")),
        (AccountKind.POUND_CASH, D("-520.00")),
    ]
    assert accounts["cash"].balance() == accounts["fines"].balance() == D("0.00")
    txn.refresh_from_db()
    assert txn.reversed_by == mirror
    assert transactions_balance() == []


def test_a_transaction_is_reversed_at_most_once(pound, accounts, dm_clerk):
    txn = post(pound, [(accounts["cash"], D("520.00")), (accounts["fines"], D("-520.00"))])
    ledger.reverse(txn=txn, by=dm_clerk, reason="Mistake")

    with pytest.raises(ValidationError, match="already been reversed"):
        ledger.reverse(txn=txn, by=dm_clerk, reason="Again")

    assert Transaction.objects.count() == 2
    assert accounts["cash"].balance() == D("0.00")


# --- the checks ---


def test_check_finds_an_unbalanced_transaction_and_a_cross_district_posting(
    pound, accounts, other_pound
):
    foreign = ledger.account(district=other_pound.district, kind=AccountKind.FINES_DUE_DM)
    with transaction.atomic():
        # Written past post(), as a bad migration or a hand edit would; rolled back after.
        lopsided = Transaction.objects.create(
            district=pound.district, kind="payment_s13", memo="bad", source="x"
        )
        Posting.objects.create(transaction=lopsided, account=accounts["cash"], amount=D("5.00"))
        empty = Transaction.objects.create(
            district=pound.district, kind="payment_s13", memo="empty", source="x"
        )
        straddling = Transaction.objects.create(
            district=pound.district, kind="payment_s13", memo="across", source="x"
        )
        Posting.objects.bulk_create(
            [
                Posting(transaction=straddling, account=accounts["cash"], amount=D("9.00")),
                Posting(transaction=straddling, account=foreign, amount=D("-9.00")),
            ]
        )

        problems = transactions_balance()

        transaction.set_rollback(True)

    assert sorted(problems) == [
        f"transaction #{lopsided.pk} has 1 posting(s) summing to 5.00, not zero",
        f"transaction #{empty.pk} has 0 posting(s) summing to 0.00, not zero",
        f"transaction #{straddling.pk} posts to an account of another district",
    ]


def test_check_ledger_agrees_after_normal_flows(pound, pound_keeper, district):
    set_tariffs(district)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), goat(), cow()])
    a1, a2, a3 = entry.animals.order_by("number")
    pay(entry, pound_keeper, [a1])
    pay(entry, pound_keeper, [a2], mode="upi")
    deposit(entry, pound_keeper, [a3])
    out = StringIO()

    call_command("check_ledger", stdout=out)

    assert run_checks() == []
    accounts = len(POUND_ACCOUNTS) + len(DISTRICT_ACCOUNTS)
    assert f"3 transactions, {accounts} accounts: every balance agrees" in out.getvalue()


def test_check_ledger_fails_when_the_ledger_disagrees_with_the_records(
    pound, pound_keeper, district, accounts
):
    set_tariffs(district)
    release = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    # Balanced, but no receipt or release says this money came in.
    post(pound, [(accounts["cash"], D("100.00")), (accounts["feeding"], D("-100.00"))])
    out, err = StringIO(), StringIO()

    with pytest.raises(SystemExit) as exc:
        call_command("check_ledger", stdout=out, stderr=err)

    assert exc.value.code == 1
    cash, feeding = str(accounts["cash"]), str(accounts["feeding"])
    records, ledger_says = release.amount, release.amount + 100
    assert f"LEDGER: {cash}: the ledger says {ledger_says}, the records say {records}" in (
        err.getvalue()
    )
    records, ledger_says = -release.feeding, -release.feeding - 100
    assert f"LEDGER: {feeding}: the ledger says {ledger_says}, the records say {records}" in (
        err.getvalue()
    )
    assert "2 problem(s)" in err.getvalue()
    assert out.getvalue() == ""


# --- PostgreSQL's own guards ---


@pytest.fixture
def posted(pound, accounts):
    return post(pound, [(accounts["cash"], D("520.00")), (accounts["fines"], D("-520.00"))])


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_posting SET amount = amount * 2 WHERE transaction_id = %s",
        "DELETE FROM ledger_posting WHERE transaction_id = %s",
        "UPDATE ledger_transaction SET memo = 'edited' WHERE id = %s",
        "DELETE FROM ledger_transaction WHERE id = %s",
    ],
)
def test_database_refuses_to_change_posted_rows(posted, accounts, sql):
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(sql, [posted.pk])

    posted.refresh_from_db()
    assert posted.memo == "Test"
    assert posted.postings.count() == 2
    assert accounts["cash"].balance() == D("520.00")


@pytest.mark.postgres
def test_database_refuses_an_unbalanced_transaction_when_its_checks_run(pound, accounts):
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_transaction (district_id, kind, at, memo, section, source)"
                " VALUES (%s, 'payment_s13', now(), 'raw', '', 'raw') RETURNING id",
                [pound.district_id],
            )
            (txn_id,) = cursor.fetchone()
            cursor.execute(
                "INSERT INTO ledger_posting (transaction_id, account_id, amount)"
                " VALUES (%s, %s, 5)",
                [txn_id, accounts["cash"].pk],
            )
            # The check is deferred to the commit; make it run now, inside the test.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")

    assert not Transaction.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_unbalanced_transaction_fails_at_commit(pound, accounts):
    with pytest.raises(IntegrityError, match="does not balance"):
        with transaction.atomic():
            txn = Transaction.objects.create(
                district=pound.district, kind="payment_s13", memo="raw", source="raw"
            )
            Posting.objects.create(transaction=txn, account=accounts["cash"], amount=D("5.00"))
            # No error yet: the balance check waits for the commit.
            assert Posting.objects.filter(transaction=txn).count() == 1

    assert not Transaction.objects.exists()
    assert not Posting.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_balanced_transaction_commits(pound, accounts):
    with transaction.atomic():
        post(pound, [(accounts["cash"], D("5.00")), (accounts["fines"], D("-5.00"))])

    assert Transaction.objects.count() == 1
