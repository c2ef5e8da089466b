"""Date and date-and-time fields of our own (ADR 0081): a text box that shows and takes
DD-MM-YYYY whatever the browser's locale. The native picker follows the phone's locale (an
English-US phone shows 12/03/2026 for 3 December), while every page prints 03-12-2026.

What a keeper may type: 03-12-2026, 3-12-2026, 03/12/2026, 03.12.2026, 03 12 2026 or 03122026
(a phone's number pad may have no hyphen); with a time, 03-12-2026 14:30 (or 14.30, or 1430).
The ISO forms a browser's own picker sends (2026-12-03, 2026-12-03T14:30) are taken too, so an
older page or a script still works. A two-digit year is refused: 03-12-26 could be 1926."""

import re
from datetime import date, datetime, time

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

DAY_FORMAT = "%d-%m-%Y"
DAY_TIME_FORMAT = "%d-%m-%Y %H:%M"

_SEP = r"[\s\-/.]+"
_DMY = re.compile(rf"^(\d{{1,2}}){_SEP}(\d{{1,2}}){_SEP}(\d{{4}})$")
_DMY_DIGITS = re.compile(r"^(\d{2})(\d{2})(\d{4})$")
_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_TIME = re.compile(r"^(\d{1,2})[:.]?(\d{2})$")
_ISO_SPLIT = re.compile(r"^(\d{4}-\d{1,2}-\d{1,2})[T\s](\d{1,2}:\d{2}(?::\d{2})?)$")
_DMY_SPLIT = re.compile(
    rf"^(\d{{1,2}}{_SEP}\d{{1,2}}{_SEP}\d{{4}}|\d{{8}})(?:{_SEP}|,\s*)(\d{{1,2}}[:.]?\d{{2}})$"
)

BAD_DAY = _("Enter the date as day-month-year, for example 03-12-2026.")
NO_SUCH_DAY = _("There is no such date as %(value)s. Check the day and the month.")
BAD_DAY_TIME = _(
    "Enter the date and the time as day-month-year hours:minutes, for example 03-12-2026 14:30."
)
NO_SUCH_TIME = _("There is no such time as %(value)s. Use the 24-hour clock, for example 14:30.")
DAY_HINT = _("For example, 03-12-2026")
DAY_TIME_HINT = _("For example, 03-12-2026 14:30 (24-hour clock, IST)")


def parse_day(text: str) -> date:
    """The date a person typed, day first; ValidationError (code "invalid" or "no_such_date")."""
    text = (text or "").strip()
    if match := _ISO.match(text):
        year, month, day = (int(g) for g in match.groups())
    elif match := _DMY.match(text) or _DMY_DIGITS.match(text):
        day, month, year = (int(g) for g in match.groups())
    else:
        raise ValidationError(BAD_DAY, code="invalid")
    try:
        return date(year, month, day)
    except ValueError:
        raise ValidationError(NO_SUCH_DAY, code="no_such_date", params={"value": text}) from None


def parse_time(text: str) -> time:
    text = (text or "").strip()
    if text.count(":") == 2:  # 14:30:00, as a browser may send
        text = text.rsplit(":", 1)[0]
    match = _TIME.match(text)
    if not match:
        raise ValidationError(BAD_DAY_TIME, code="invalid")
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23 or minute > 59:
        raise ValidationError(NO_SUCH_TIME, code="no_such_time", params={"value": text})
    return time(hour, minute)


def parse_day_time(text: str) -> datetime:
    """A naive wall-clock date and time (the field makes it IST)."""
    text = (text or "").strip()
    match = _ISO_SPLIT.match(text) or _DMY_SPLIT.match(text)
    if not match:
        raise ValidationError(BAD_DAY_TIME, code="invalid")
    day_text, time_text = match.groups()
    try:
        day = parse_day(day_text)
    except ValidationError as exc:
        if exc.code == "no_such_date":
            raise
        raise ValidationError(BAD_DAY_TIME, code="invalid") from None
    return datetime.combine(day, parse_time(time_text))


def _with_hint(help_text, hint):
    """The field's own help, then the example: "Leave empty ... For example, 03-12-2026"."""
    return format_lazy("{} {}", help_text, hint) if help_text else hint


class _TextDateInput(forms.TextInput):
    """inputmode "decimal": a phone's pad of digits with a separator (iOS's "numeric" pad has
    none); the parser takes dots, hyphens, slashes or nothing between the parts."""

    fmt = DAY_FORMAT
    size = 10

    def __init__(self, attrs=None):
        base = {"inputmode": "decimal", "autocomplete": "off", "spellcheck": "false"}
        base["size"] = str(self.size)
        super().__init__(attrs={**base, **(attrs or {})})

    def format_value(self, value):
        if isinstance(value, datetime):
            if timezone.is_aware(value):
                value = timezone.localtime(value)
            return value.strftime(self.fmt)
        if isinstance(value, date):
            return value.strftime(self.fmt)
        return super().format_value(value)

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        for attr in ("max", "min"):  # meaningless on a text box
            context["widget"]["attrs"].pop(attr, None)
        return context


class DayInput(_TextDateInput):
    fmt = DAY_FORMAT


class DayTimeInput(_TextDateInput):
    fmt = DAY_TIME_FORMAT
    size = 16


class DayField(forms.DateField):
    """A date typed day first (DD-MM-YYYY), with the hint under the box."""

    widget = DayInput

    def __init__(self, **kwargs):
        kwargs["help_text"] = _with_hint(kwargs.get("help_text"), DAY_HINT)
        super().__init__(**kwargs)

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, datetime):
            return value.date()
        if isinstance(value, date):
            return value
        return parse_day(str(value))


class DayTimeField(forms.DateTimeField):
    """A date and time in IST typed as DD-MM-YYYY HH:MM."""

    widget = DayTimeInput

    def __init__(self, **kwargs):
        kwargs["help_text"] = _with_hint(kwargs.get("help_text"), DAY_TIME_HINT)
        super().__init__(**kwargs)

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, datetime):
            moment = value
        elif isinstance(value, date):
            moment = datetime.combine(value, time())
        else:
            moment = parse_day_time(str(value))
        return moment if timezone.is_aware(moment) else timezone.make_aware(moment)
