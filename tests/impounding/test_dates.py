"""Statutory days: General Clauses Act s.9 counting, financial years, and IST day boundaries."""

from datetime import UTC, date, datetime, timedelta

import pytest

from kernel.dates import (
    complaint_deadline,
    days_between,
    financial_year,
    first_day_after,
    ist_date,
    report_due_on,
    window_end,
)


@pytest.mark.parametrize(
    ("impounded", "due"),
    [
        (date(2026, 11, 1), date(2026, 11, 9)),
        (date(2026, 2, 25), date(2026, 3, 5)),
        (date(2028, 2, 25), date(2028, 3, 4)),  # leap year: 29 Feb is a day of the week
        (date(2026, 12, 28), date(2027, 1, 5)),
    ],
)
def test_report_to_police_is_due_on_day_eight_after_impounding(impounded, due):
    # The claim week is D+1 .. D+7 (s.9 leaves out day D); the report is due the day after.
    assert window_end(impounded, 7) == due - timedelta(days=1)
    assert report_due_on(impounded) == due


def test_earliest_sale_is_eight_days_after_the_notice():
    notice = date(2026, 11, 10)

    assert window_end(notice, 7) == date(2026, 11, 17)  # last day to claim
    assert first_day_after(notice, 7) == date(2026, 11, 18)  # N+8


@pytest.mark.parametrize(
    ("seized", "last_day"),
    [
        (date(2026, 11, 1), date(2026, 11, 11)),
        (date(2026, 2, 25), date(2026, 3, 7)),
        (date(2028, 2, 25), date(2028, 3, 6)),
        (date(2026, 12, 25), date(2027, 1, 4)),
    ],
)
def test_complaint_may_be_made_until_the_end_of_day_ten_after_seizure(seized, last_day):
    assert complaint_deadline(seized) == last_day


def test_complaint_window_follows_the_district_policy_length():
    assert complaint_deadline(date(2026, 11, 1), days=15) == date(2026, 11, 16)


@pytest.mark.parametrize(
    ("day", "year"),
    [
        (date(2026, 3, 31), "2025-26"),
        (date(2026, 4, 1), "2026-27"),
        (date(2027, 1, 15), "2026-27"),
        (date(2000, 3, 31), "1999-00"),
        (date(2099, 4, 1), "2099-00"),
    ],
)
def test_financial_year_runs_april_to_march(day, year):
    assert financial_year(day) == year


@pytest.mark.parametrize(
    ("utc", "ist_day"),
    [
        (datetime(2026, 1, 1, 20, 0, tzinfo=UTC), date(2026, 1, 2)),  # 01:30 IST next day
        (datetime(2026, 1, 1, 18, 29, 59, tzinfo=UTC), date(2026, 1, 1)),  # 23:59:59 IST
        (datetime(2026, 1, 1, 18, 30, tzinfo=UTC), date(2026, 1, 2)),  # midnight IST
        (datetime(2026, 3, 31, 19, 0, tzinfo=UTC), date(2026, 4, 1)),  # new financial year
        (datetime(2026, 1, 2, 0, 0, tzinfo=UTC), date(2026, 1, 2)),
    ],
)
def test_statutory_day_is_the_asia_kolkata_calendar_day(utc, ist_day):
    assert ist_date(utc) == ist_day


def test_ist_date_refuses_a_naive_datetime():
    with pytest.raises(ValueError, match="naive"):
        ist_date(datetime(2026, 1, 1, 12, 0))  # noqa: DTZ001 - the point of the test


def test_days_between_includes_both_ends():
    assert list(days_between(date(2028, 2, 28), date(2028, 3, 1))) == [
        date(2028, 2, 28),
        date(2028, 2, 29),
        date(2028, 3, 1),
    ]
    assert list(days_between(date(2026, 5, 2), date(2026, 5, 1))) == []
