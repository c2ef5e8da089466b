"""The three months of s.17: British calendar months (GCA s.3(35)), counted from the day the
office received the surplus and never ending before three months from the sale (docs/domain.md
decision 8, §5.1 item 3). The expiry date is the last day of holding; the transfer is made on
the day after."""

import calendar
from datetime import date, timedelta

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from kernel.dates import add_months, surplus_expiry
from office import services as office
from office.deadlines import run
from office.models import SurplusDeposit
from tests.auctions.factories import conditions
from tests.office.factories import noon, received_surplus, s14_sale, written


@pytest.mark.parametrize(
    ("start", "months", "expected"),
    [
        (date(2026, 1, 15), 1, date(2026, 2, 15)),
        (date(2027, 1, 31), 1, date(2027, 2, 28)),
        (date(2028, 1, 31), 1, date(2028, 2, 29)),
        (date(2026, 11, 30), 3, date(2027, 2, 28)),
        (date(2027, 11, 30), 3, date(2028, 2, 29)),
        (date(2026, 8, 31), 3, date(2026, 11, 30)),
        (date(2026, 10, 31), 3, date(2027, 1, 31)),
        (date(2026, 12, 31), 2, date(2027, 2, 28)),
        (date(2026, 3, 31), 1, date(2026, 4, 30)),
        (date(2026, 5, 31), 1, date(2026, 6, 30)),
        (date(2026, 12, 15), 1, date(2027, 1, 15)),
        (date(2026, 10, 1), 3, date(2027, 1, 1)),
        (date(2026, 2, 28), 3, date(2026, 5, 28)),
        (date(2026, 7, 4), 0, date(2026, 7, 4)),
        (date(2026, 7, 4), 24, date(2028, 7, 4)),
    ],
)
def test_add_months_clamps_to_the_last_day_of_a_shorter_month(start, months, expected):
    assert add_months(start, months) == expected


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        (date(2028, 1, 31), date(2028, 2, 29)),  # divisible by 4: leap
        (date(2100, 1, 31), date(2100, 2, 28)),  # a century not divisible by 400: not leap
        (date(2000, 1, 31), date(2000, 2, 29)),  # divisible by 400: leap
        (date(2027, 1, 31), date(2027, 2, 28)),  # an ordinary year
    ],
)
def test_add_months_knows_the_leap_years_of_the_gregorian_calendar(start, expected):
    assert add_months(start, 1) == expected


def test_add_months_from_the_leap_day_lands_on_the_28th_of_an_ordinary_february():
    assert add_months(date(2028, 2, 29), 12) == date(2029, 2, 28)
    assert add_months(date(2028, 2, 29), 48) == date(2032, 2, 29)
    assert add_months(date(2028, 2, 29), 3) == date(2028, 5, 29)


@given(
    day=st.dates(min_value=date(1900, 1, 1), max_value=date(2400, 12, 31)),
    months=st.integers(min_value=0, max_value=1200),
)
def test_add_months_advances_the_month_by_n_and_clamps_only_at_the_month_end(day, months):
    result = add_months(day, months)

    assert (result.year * 12 + result.month) - (day.year * 12 + day.month) == months
    assert result.day <= day.day
    last = calendar.monthrange(result.year, result.month)[1]
    if result.day != day.day:
        assert result.day == last < day.day


@given(
    received=st.dates(min_value=date(2000, 1, 1), max_value=date(2200, 12, 31)),
    gap=st.integers(min_value=0, max_value=400),
)
def test_surplus_expiry_is_three_months_from_receipt_and_never_before_three_from_the_sale(
    received, gap
):
    sold = received - timedelta(days=gap)

    expiry = surplus_expiry(received, sold)

    assert expiry == add_months(received, 3)
    assert expiry >= add_months(sold, 3)
    assert expiry > received


@pytest.mark.parametrize(
    ("sold", "received", "expected"),
    [
        (date(2026, 11, 30), date(2026, 11, 30), date(2027, 2, 28)),
        (date(2027, 11, 30), date(2027, 12, 2), date(2028, 3, 2)),
        (date(2026, 1, 31), date(2026, 2, 1), date(2026, 5, 1)),
        # The office received it at the month's end, a day after a sale on the 30th.
        (date(2026, 11, 29), date(2026, 11, 30), date(2027, 2, 28)),
        # Long after the sale: three months from the receipt.
        (date(2026, 1, 10), date(2026, 6, 20), date(2026, 9, 20)),
    ],
)
def test_surplus_expiry_examples(sold, received, expected):
    assert surplus_expiry(received, sold) == expected


def test_surplus_expiry_never_ends_before_three_months_from_the_sale():
    # A receipt dated before the sale is refused by receive_surplus; the arithmetic still
    # holds the money for three months from the sale.
    assert surplus_expiry(date(2026, 3, 1), date(2026, 3, 10)) == date(2026, 6, 10)


# --- The date as the office records it ------------------------------------------------------


@pytest.fixture
def standing_order(district, pound, dm_clerk, tariffs):
    # After the pound: a user's reach is worked out once and kept on him, as in a request.
    return conditions(district, by=dm_clerk)


def test_receipt_on_the_day_of_sale_holds_the_surplus_three_months_from_it(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    time_machine.move_to(noon(date(2027, 11, 30)), tick=False)

    deposit = received_surplus(pound, pound_keeper, police_officer, dm_clerk)

    assert (deposit.sale_date, deposit.received_on, deposit.expires_on) == (
        date(2027, 11, 30),
        date(2027, 11, 30),
        date(2028, 2, 29),
    )


def test_receipt_long_after_the_sale_holds_the_surplus_three_months_from_the_receipt(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    sale = s14_sale(pound, pound_keeper, police_officer)
    time_machine.move_to(noon(date(2026, 10, 20)), tick=False)

    deposit = office.receive_surplus(
        deposit=sale.surplus_deposit, by=dm_clerk, received_on=date(2026, 10, 15)
    )

    assert deposit.sale_date == date(2026, 8, 31)
    assert deposit.expires_on == date(2027, 1, 15)


@pytest.mark.parametrize(
    ("received_on", "reason"),
    [(date(2026, 8, 30), "before the sale"), (date(2026, 9, 2), "in the future")],
)
def test_receipt_dated_before_the_sale_or_in_the_future_is_refused(
    time_machine,
    standing_order,
    pound,
    pound_keeper,
    police_officer,
    dm_clerk,
    received_on,
    reason,
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    sale = s14_sale(pound, pound_keeper, police_officer)
    time_machine.move_to(noon(date(2026, 9, 1)), tick=False)
    before = written()

    with pytest.raises(ValidationError) as refused:
        office.receive_surplus(deposit=sale.surplus_deposit, by=dm_clerk, received_on=received_on)

    assert "received_on" in refused.value.message_dict, reason
    assert written() == before
    assert SurplusDeposit.objects.get().status == SurplusDeposit.Status.AWAITING_RECEIPT


def test_surplus_is_transferred_the_day_after_its_last_day_of_holding_not_on_it(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    deposit = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    assert deposit.expires_on == date(2026, 11, 30)

    time_machine.move_to(noon(date(2026, 11, 30)), tick=False)
    run()
    with pytest.raises(ValidationError):
        office.transfer_expired_surplus(deposit=deposit)
    assert SurplusDeposit.objects.get().status == SurplusDeposit.Status.HELD

    time_machine.move_to(noon(date(2026, 12, 1)), tick=False)
    done = run()

    assert done["surplus_transferred"] == 1
    deposit.refresh_from_db()
    assert deposit.status == SurplusDeposit.Status.TRANSFERRED
