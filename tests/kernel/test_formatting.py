from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from django.template import Context, Template
from django.utils import formats, translation
from hypothesis import given
from hypothesis import strategies as st

from kernel.formatting import indate, indatetime, inr, lakh, to_rupees


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Decimal("1234567.5"), "₹12,34,567.50"),
        (Decimal("0"), "₹0.00"),
        (Decimal("999"), "₹999.00"),
        (Decimal("1000"), "₹1,000.00"),
        (Decimal("100000"), "₹1,00,000.00"),
        (Decimal("12345678901.25"), "₹12,34,56,78,901.25"),
        (Decimal("0.005"), "₹0.01"),  # half up, to the paisa
        (Decimal("-2500"), "-₹2,500.00"),
        ("350.10", "₹350.10"),
        (7, "₹7.00"),
    ],
)
def test_inr_uses_lakh_grouping(value, text):
    assert inr(value) == text


def test_money_refuses_floats():
    with pytest.raises(TypeError):
        inr(12.5)


@given(st.decimals(min_value=0, max_value=Decimal("99999999999.99"), places=2))
def test_lakh_grouping_round_trips(amount):
    text = lakh(amount)
    assert Decimal(text.replace(",", "")) == amount
    whole = text.split(".")[0]
    groups = whole.split(",")
    assert len(groups[-1]) <= 3
    assert all(len(g) == 2 for g in groups[1:-1])


def test_dates_are_dd_mm_yyyy():
    assert indate(date(2026, 3, 1)) == "01-03-2026"


def test_datetimes_are_shown_in_ist():
    # 20:00 UTC on 31 March is 01:30 IST on 1 April: the Indian calendar date.
    moment = datetime(2026, 3, 31, 20, 0, tzinfo=UTC)
    assert indate(moment) == "01-04-2026"
    assert indatetime(moment) == "01-04-2026 01:30"


def test_naive_datetimes_are_refused():
    with pytest.raises(ValueError):
        indatetime(datetime(2026, 1, 1, 10, 0))  # noqa: DTZ001


def test_filters_are_available_in_every_template():
    out = Template("{{ a|inr }} {{ d|indate }}").render(
        Context({"a": Decimal("1234567.5"), "d": date(2026, 11, 30)})
    )
    assert out == "₹12,34,567.50 30-11-2026"


def test_to_rupees_rejects_garbage():
    with pytest.raises(ValueError):
        to_rupees("ten")


def test_django_date_format_is_indian():
    for lang in ("en", "hi"):
        with translation.override(lang):
            assert formats.date_format(date(2026, 4, 9)) == "09-04-2026"
