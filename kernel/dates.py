"""Statutory days. Every day is an Asia/Kolkata calendar day; timestamps are stored in UTC.

General Clauses Act 1897 s.9: "within N days from day X" leaves out day X, so the window is
X+1 .. X+N and the next step may be taken on X+N+1 (docs/domain.md decision 1).
"""

import calendar
from datetime import date, datetime, timedelta

from django.utils import timezone


def ist_date(moment: datetime) -> date:
    if timezone.is_naive(moment):
        raise ValueError("naive datetime")
    return timezone.localtime(moment).date()


def window_end(start: date, days: int) -> date:
    """The last day of "within `days` days from `start`" (the start day excluded)."""
    return start + timedelta(days=days)


def first_day_after(start: date, days: int) -> date:
    """The first day on which the window has run out."""
    return start + timedelta(days=days + 1)


def report_due_on(arrival: date) -> date:
    """s.14: not claimed within seven days of impounding: the report is due on D+8."""
    return first_day_after(arrival, 7)


def complaint_deadline(seizure: date, days: int = 10) -> date:
    """s.20: a complaint may be made until the end of S+10."""
    return window_end(seizure, days)


def financial_year(on: date) -> str:
    """Indian financial year, April to March: 1 May 2026 -> "2026-27"."""
    start = on.year if on.month >= 4 else on.year - 1
    return f"{start}-{(start + 1) % 100:02d}"


def days_between(first: date, last: date):
    """Each date from first to last, both included."""
    day = first
    while day <= last:
        yield day
        day += timedelta(days=1)


def add_months(day: date, months: int) -> date:
    """The same date `months` calendar months later (GCA s.3(35): a British calendar month),
    clamped to the month's last day: 31 Jan + 1 month = 28 (or 29) Feb."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def surplus_expiry(received: date, sold: date, months: int = 3) -> date:
    """s.17: the District Magistrate holds surplus proceeds for three months from the day his
    office received them, and never less than three months from the sale (docs/domain.md,
    decision 8).
    The returned date is the last day of holding; the transfer is made the day after."""
    return max(add_months(received, months), add_months(sold, months))
