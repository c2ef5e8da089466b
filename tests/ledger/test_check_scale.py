"""check_ledger at a State's volume: the database adds the records up. The number of queries,
and the number of figures each app hands the check, stay the same whatever the number of
receipts, releases, deposits, sales, remittances and surplus deposits behind the books."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from auctions import services as auctions
from ledger.checks import expectations, run_checks
from tests.auctions.factories import conditions, refused, register, schedule
from tests.impounding.factories import deposit, make_entry, pay
from tests.office.factories import received_surplus, remit


@pytest.fixture
def standing_order(district, dm_clerk, tariffs):
    return conditions(district, by=dm_clerk)


def a_round_of_business(pound, keeper, officer, clerk):
    """One of each record the books mirror: releases on payment in cash and by UPI, a deposit,
    a s.14 sale with its surplus received by the office, a closed s.16 case that fell short,
    and a remittance of fines."""
    pay(make_entry(pound=pound, by=keeper), keeper)
    pay(make_entry(pound=pound, by=keeper), keeper, mode="upi")
    deposit(make_entry(pound=pound, by=keeper), keeper)
    received_surplus(pound, keeper, officer, clerk)
    entry = make_entry(pound=pound, by=keeper, arrived_at=timezone.now() - timedelta(days=3))
    case = refused(entry, keeper)
    auction = schedule(pound, officer, [entry.animals.all()], kind="s16", s16_case=case)
    auctions.sell_lot(
        lot=auction.lots.get(),
        buyer=register(auction, officer),
        price=Decimal("1000.00"),
        by=officer,
        expenses=Decimal("200.00"),
    )
    auctions.settle_s16_case(
        case=case, by=officer, acknowledgement="register_page", register_page="7"
    )
    remit(pound, keeper, "100.00")


def measured():
    """The queries run_checks() makes, its problems, and how many figures each app hands it."""
    with CaptureQueriesContext(connection) as queries:
        problems = run_checks()
    figures = [len(list(expected())) for expected in expectations()]
    return len(queries), problems, figures


def test_check_ledger_makes_the_same_queries_whatever_the_number_of_records(
    standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    a_round_of_business(pound, pound_keeper, police_officer, dm_clerk)
    small = measured()
    for _ in range(2):
        a_round_of_business(pound, pound_keeper, police_officer, dm_clerk)

    large = measured()

    assert small[1] == large[1] == []
    # Grouped by pound and kind of record, not one row per record.
    assert large[2] == small[2]
    assert large[0] == small[0]
