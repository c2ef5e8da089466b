"""The choice of a periodic return (s.7): a pound or a whole district, a month, and a day for the
cash book. Read-only: the form only says which return to show."""

import re
from datetime import date

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from kernel import clock
from kernel.forms import DayField

MONTH = re.compile(r"^(\d{4})-(\d{2})$")


class MonthInput(forms.TextInput):
    input_type = "month"


def last_month(today=None):
    today = today or timezone.localdate()
    return date(today.year - (today.month == 1), (today.month - 2) % 12 + 1, 1)


class ReturnsForm(forms.Form):
    of = forms.ChoiceField(label=_("Pound, or the whole district"))
    month = forms.CharField(
        label=_("Month of the return"),
        widget=MonthInput(),
        help_text=_("As YYYY-MM, for example 2025-03."),
    )
    day = DayField(
        label=_("Day of the cash book"),
        help_text=_("The cash book is kept for one pound."),
    )

    def __init__(self, *args, pounds, districts, **kwargs):
        super().__init__(*args, **kwargs)
        self.pounds = {str(p.pk): p for p in pounds}
        self.districts = {str(d.pk): d for d in districts}
        groups = {}
        for district in self.districts.values():
            groups.setdefault(district.pk, (district.label, []))[1].append(
                (
                    f"district-{district.pk}",
                    _("Whole district: %(district)s") % {"district": district.label},
                )
            )
        for pound in self.pounds.values():
            groups.setdefault(pound.district_id, (pound.district.label, []))[1].append(
                (f"pound-{pound.pk}", pound.label)
            )
        self.fields["of"].choices = list(groups.values())

    def defaults(self, first_choice):
        """The first choice, last month and today, on the chosen pound's or district's clock."""
        kind, _sep, pk = first_choice.partition("-")
        today = clock.today((self.pounds if kind == "pound" else self.districts).get(pk))
        return {"of": first_choice, "month": f"{last_month(today):%Y-%m}", "day": today}

    def clean_of(self):
        kind, _sep, pk = self.cleaned_data["of"].partition("-")
        found = (self.pounds if kind == "pound" else self.districts).get(pk)
        if found is None:
            raise ValidationError(_("Choose a pound or a district from the list."))
        return kind, found

    def _today(self):
        """The chosen pound's or district's day (ADR 0080): a training clock may run ahead."""
        of = self.cleaned_data.get("of")
        return clock.today(of[1]) if of else timezone.localdate()

    def clean_month(self):
        match = MONTH.match(self.cleaned_data["month"].strip())
        if not match or not 1 <= int(match[2]) <= 12 or int(match[1]) < 1900:
            raise ValidationError(_("Give the month as YYYY-MM."))
        first = date(int(match[1]), int(match[2]), 1)
        if first > self._today():
            raise ValidationError(_("The month has not begun."))
        return first

    def clean_day(self):
        day = self.cleaned_data["day"]
        if day > self._today():
            raise ValidationError(_("The day cannot be in the future."))
        return day
