"""The date fields of our own (ADR 0081): DD-MM-YYYY shown and taken whatever the browser's
locale, with clear translated errors."""

from datetime import date, datetime

import pytest
from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone, translation

from kernel.dayfields import DayField, DayTimeField, parse_day, parse_day_time


@pytest.mark.parametrize(
    "text",
    ["03-12-2026", "3-12-2026", "03/12/2026", "03.12.2026", "03 12 2026", "03122026", "2026-12-03"],
)
def test_a_day_is_read_day_first_in_what_a_keeper_types(text):
    assert parse_day(text) == date(2026, 12, 3)


def test_29_february_exists_only_in_a_leap_year():
    assert parse_day("29-02-2028") == date(2028, 2, 29)
    with pytest.raises(ValidationError) as exc:
        parse_day("29-02-2027")
    assert exc.value.code == "no_such_date"


@pytest.mark.parametrize("text", ["31-04-2026", "00-12-2026", "03-13-2026", "12-31-2026"])
def test_a_date_that_does_not_exist_is_named(text):
    with pytest.raises(ValidationError) as exc:
        parse_day(text)
    assert exc.value.code == "no_such_date"


@pytest.mark.parametrize("text", ["03-12-26", "3 Dec 2026", "2026/12", "tomorrow", "0312202"])
def test_a_shape_that_is_not_a_date_asks_for_day_month_year(text):
    with pytest.raises(ValidationError) as exc:
        parse_day(text)
    assert exc.value.code == "invalid"


@pytest.mark.parametrize(
    "text",
    [
        "03-12-2026 14:30",
        "3-12-2026 14.30",
        "03.12.2026.14.30",
        "03-12-2026 1430",
        "03/12/2026, 14:30",
        "2026-12-03T14:30",
        "2026-12-03 14:30:00",
    ],
)
def test_a_day_and_time_is_read_with_the_24_hour_clock(text):
    assert parse_day_time(text) == datetime(2026, 12, 3, 14, 30)  # noqa: DTZ001 (wall clock)


@pytest.mark.parametrize(
    "text, code",
    [
        ("03-12-2026 24:00", "no_such_time"),
        ("03-12-2026 14:60", "no_such_time"),
        ("03-12-2026", "invalid"),
        ("31-11-2026 10:00", "no_such_date"),
        ("2 pm", "invalid"),
    ],
)
def test_a_bad_day_and_time_says_what_is_wrong(text, code):
    with pytest.raises(ValidationError) as exc:
        parse_day_time(text)
    assert exc.value.code == code


class _Form(forms.Form):
    on = DayField(label="On")
    at = DayTimeField(label="At")


def test_the_field_shows_dd_mm_yyyy_and_an_example_as_its_hint():
    moment = datetime(2026, 12, 3, 9, 5, tzinfo=timezone.get_default_timezone())
    html = str(_Form(initial={"on": date(2026, 12, 3), "at": moment}))
    assert 'value="03-12-2026"' in html and 'value="03-12-2026 09:05"' in html
    assert 'type="text"' in html and 'inputmode="decimal"' in html
    assert 'type="date"' not in html and "datetime-local" not in html
    assert "For example, 03-12-2026" in html


def test_the_time_typed_is_ist_wall_clock():
    form = _Form(data={"on": "03-12-2026", "at": "03-12-2026 14:30"})
    assert form.is_valid(), form.errors
    assert timezone.localtime(form.cleaned_data["at"]).hour == 14
    assert str(timezone.localtime(form.cleaned_data["at"]).tzinfo) == "Asia/Kolkata"


@pytest.mark.parametrize("lang", ["hi", "mr", "ta"])
def test_the_errors_are_translated_beside_the_field(lang):
    with translation.override("en"):
        english = _Form(data={"on": "12/31/2026", "at": "tomorrow"})
        assert not english.is_valid()
        said = {name: str(english.errors[name][0]) for name in ("on", "at")}
    with translation.override(lang):
        form = _Form(data={"on": "12/31/2026", "at": "tomorrow"})
        assert not form.is_valid()
        for name in ("on", "at"):
            error = str(form.errors[name][0])
            assert error != said[name]
        assert "12/31/2026" in str(form.errors["on"][0])  # what was typed, named
        assert "03-12-2026" in str(form.errors["at"][0])  # the example
