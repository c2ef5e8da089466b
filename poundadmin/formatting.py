"""Indian formats used by every screen and document: ₹ with lakh grouping, DD-MM-YYYY, IST."""

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from babel.numbers import format_currency, format_decimal
from django.utils import timezone

PAISA = Decimal("0.01")


def to_rupees(value):
    """A Decimal rounded to paise. Floats are refused: money never passes through binary floats."""
    if value is None:
        return None
    if isinstance(value, float):
        raise TypeError("money must not be a float")
    try:
        return Decimal(value).quantize(PAISA, rounding=ROUND_HALF_UP)
    except (InvalidOperation, ValueError) as exc:
        raise ValueError(f"not an amount of money: {value!r}") from exc


def inr(value):
    """₹12,34,567.50 (Indian grouping, always two decimals)."""
    amount = to_rupees(value)
    if amount is None:
        return ""
    return format_currency(amount, "INR", locale="en_IN")


def lakh(value):
    """12,34,567.50 without the currency sign, for tables with a ₹ column heading."""
    amount = to_rupees(value)
    if amount is None:
        return ""
    return format_decimal(amount, format="#,##,##0.00", locale="en_IN")


def indian_number(value):
    """Whole numbers with lakh grouping: 1,23,456."""
    if value is None:
        return ""
    return format_decimal(value, format="#,##,##0", locale="en_IN")


def ist(value):
    """An aware datetime in Asia/Kolkata."""
    if value is None:
        return None
    if timezone.is_naive(value):
        raise ValueError("naive datetimes are not allowed; store UTC, show IST")
    return timezone.localtime(value)


def indate(value):
    """DD-MM-YYYY. A datetime is first converted to IST, so the date is the Indian calendar date."""
    if value in (None, ""):
        return ""
    if isinstance(value, datetime):
        value = ist(value).date()
    if isinstance(value, date):
        return value.strftime("%d-%m-%Y")
    return str(value)


def indatetime(value):
    """DD-MM-YYYY HH:MM in IST."""
    if value in (None, ""):
        return ""
    return ist(value).strftime("%d-%m-%Y %H:%M")
