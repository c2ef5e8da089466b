"""The office's money figures over all history read the ledger's month totals, not its postings
(docs/decisions/0006): the same queries at two sizes, none of them over ledger_posting, and the
money trail's first-in-first-out split of a pound's fines still exact across months."""

from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ledger import services as ledger
from ledger.models import Account, AccountKind, TransactionKind
from office import charts, statements, trail
from office.dashboard import fines_by_pound
from tests.impounding.factories import make_entry, pay
from tests.office.factories import remit

D = Decimal
IST = ZoneInfo("Asia/Kolkata")


def fine(pound, amount, at):
    district = pound.district
    with transaction.atomic():
        return ledger.post(
            district=district,
            pound=pound,
            kind=TransactionKind.PAYMENT_S13,
            memo="fine",
            by=None,
            source="test:fine",
            at=at,
            lines=[
                (
                    ledger.account(district=district, pound=pound, kind=AccountKind.POUND_CASH),
                    amount,
                ),
                (ledger.account(district=district, kind=AccountKind.FINES_DUE_DM), -amount),
            ],
        )


def figures(pound):
    return (
        statements.fines_credited([pound.pk]),
        statements.pound_positions([pound])[pound.pk],
        charts.money_by_destination(pound.district),
        [(r.credited, r.sent, r.confirmed) for r in fines_by_pound([pound])],
    )


def test_the_all_history_figures_read_month_rows_at_any_size(pound, pound_keeper, tariffs):
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    with CaptureQueriesContext(connection) as few:
        figures(pound)
    for month in range(1, 13):
        fine(pound, D("10.00"), datetime(2025, month, 28, 23, 59, tzinfo=IST))
    with CaptureQueriesContext(connection) as many:
        credited, position, money, fines = figures(pound)

    assert len(many) == len(few)
    assert not [q["sql"] for q in many.captured_queries if "ledger_posting" in q["sql"]]
    cash = Account.objects.get(pound=pound, kind=AccountKind.POUND_CASH).balance()
    fines_account = Account.objects.get(district=pound.district, kind=AccountKind.FINES_DUE_DM)
    assert credited[pound.pk] == position.fines_due == -fines_account.balance()
    assert fines == [(credited[pound.pk], 0, 0)]
    assert position.cash == cash and position.digital == 0
    assert money["fines"] == credited[pound.pk]


@pytest.mark.parametrize("name", ["office:office", "office:remittances"])
def test_the_money_pages_make_the_same_queries_at_two_sizes(
    client, dm_clerk, pound, pound_keeper, tariffs, name
):
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    client.force_login(dm_clerk)
    client.get(reverse(name))  # the charts keep each closed month the first time (ChartMonth)
    with CaptureQueriesContext(connection) as few:
        assert client.get(reverse(name)).status_code == 200
    for month in range(1, 13):
        fine(pound, D("10.00"), datetime(2025, month, 1, tzinfo=IST))
    with CaptureQueriesContext(connection) as many:
        assert client.get(reverse(name)).status_code == 200

    assert len(many) == len(few)


def test_the_trail_splits_an_entrys_fines_over_the_remittances_across_months(pound, pound_keeper):
    fine(pound, D("100.00"), datetime(2026, 1, 10, tzinfo=IST))
    fine(pound, D("200.00"), datetime(2026, 2, 10, tzinfo=IST))
    fine(pound, D("50.00"), datetime(2026, 3, 2, tzinfo=IST))
    entrys = fine(pound, D("300.00"), datetime(2026, 3, 20, tzinfo=IST))
    # The pound's stream: January (0, 100], February (100, 300], 2 March (300, 350], and the
    # entry's fine (350, 650]. The remittances: (0, 250], (250, 500] and (500, 650].
    first = remit(pound, pound_keeper, "250.00")
    second = remit(pound, pound_keeper, "250.00")
    third = remit(pound, pound_keeper, "150.00")

    with CaptureQueriesContext(connection) as queries:
        shares = trail._fines_cover(pound, [entrys])

    assert [(s.remittance, s.amount) for s in shares] == [
        (second, D("150.00")),
        (third, D("150.00")),
    ]
    assert first not in [s.remittance for s in shares]
    assert len(queries) == 2
    # The fines before March come from the month totals: the postings read start in March.
    assert "ledger_accountmonth" in queries.captured_queries[0]["sql"]
