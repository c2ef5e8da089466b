"""The public's lost-cattle report form and its one-time code (ADR 0079)."""

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import District, State
from kernel import clock
from kernel.forms import DayField, PhotoField

from ..models import LostReport
from ..tags import normalise_tag


class LostReportForm(forms.ModelForm):
    phone = forms.CharField(
        label=_("Your mobile number"),
        help_text=_("10 digits. We send a code to it, and a message if the animal is found."),
        widget=forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "tel-national"}),
    )
    state = forms.ModelChoiceField(
        label=_("State where it was lost"),
        queryset=State.objects.filter(districts__isnull=False).distinct().order_by("name"),
        error_messages={"required": _("Choose the State where it was lost.")},
    )
    district = forms.ModelChoiceField(
        label=_("District where it was lost"),
        queryset=District.objects.none(),
        error_messages={
            "required": _("Choose the district where it was lost."),
            "invalid_choice": _("Choose a district of the State you chose."),
        },
    )
    ear_tag = forms.CharField(
        label=_("Ear-tag number"),
        required=False,
        help_text=_("Optional. The 12 digits on the yellow ear tag."),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    photo = PhotoField(
        label=_("Photo"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": "image/*"}),
        help_text=_("Optional. A photo of the animal, 12 MB at most."),
    )

    # Where first: without JavaScript, the State's districts come back before the rest is typed.
    field_order = [
        *("state", "district", "place", "species", "colour", "marks", "ear_tag", "lost_on"),
        *("phone", "photo"),
    ]

    def __init__(self, *args, state=None, **kwargs):
        """`state`: the State chosen before (the page's address, or the draft's district's); a
        deployment of one State chooses it. The districts offered are the chosen State's; one of
        another State is refused beside the field."""
        super().__init__(*args, **kwargs)
        states = list(self.fields["state"].queryset)
        if state is None and self.instance.pk:
            state = self.instance.district.state
        if state is None and len(states) == 1:
            state = states[0]
        if self.is_bound:
            chosen = str(self.data.get(self.add_prefix("state"), ""))
            state = next((s for s in states if str(s.pk) == chosen), None)
        self.chosen_state = state
        self.fields["state"].empty_label = _("Choose the State")
        if state is not None:
            self.initial.setdefault("state", state.pk)
        district = self.fields["district"]
        district.queryset = District.objects.filter(state=state).order_by("name")
        district.empty_label = _("Choose the district") if state else _("Choose the State first")
        # Every State's districts, for the script that filters the list in place (one query).
        self.all_districts = {str(s.pk): [] for s in states}
        for d in District.objects.filter(state__in=states).order_by("name"):
            self.all_districts[str(d.state_id)].append([d.pk, d.label])

    def clean(self):
        cleaned = super().clean()
        if "state" not in cleaned and "district" in self.errors:
            # Not "of the State you chose": none was.
            self.errors["district"] = self.error_class([_("Choose the State first.")])
        return cleaned

    class Meta:
        model = LostReport
        fields = ["species", "colour", "marks", "ear_tag", "place", "district", "lost_on"]
        field_classes = {"lost_on": DayField}
        help_texts = {
            "marks": _("Optional. Brands, horn shape, patches, a broken tail."),
        }

    def clean_phone(self):
        phone = re.sub(r"[\s-]", "", self.cleaned_data["phone"])
        phone = phone.removeprefix("+91") if len(phone) == 13 else phone
        if not re.fullmatch(r"[6-9]\d{9}", phone):
            raise forms.ValidationError(_("Enter a 10-digit mobile number, like 9876543210."))
        return phone

    def clean_ear_tag(self):
        tag = normalise_tag(self.cleaned_data["ear_tag"])
        if tag and not re.fullmatch(r"\d{12}", tag):
            raise forms.ValidationError(_("An ear-tag number has 12 digits, like 123456789012."))
        return tag

    def clean_lost_on(self):
        lost_on = self.cleaned_data["lost_on"]
        # The chosen district's day (ADR 0080): a training district's clock may run ahead.
        if lost_on > clock.today(self.cleaned_data.get("district")):
            raise forms.ValidationError(_("The date lost cannot be in the future."))
        return lost_on


# The refusals of a one-time code, beside the code's field (the lost report's and the opting out's).
CODE_REFUSALS = {
    "wrong": _("That code is not right. Check the message and try again."),
    "expired": _("That code has expired. Ask for a new code."),
    "tries": _("Too many wrong codes. Ask for a new code."),
}


class CodeForm(forms.Form):
    code = forms.CharField(
        label=_("Code"),
        help_text=_("The 6 digits in the message we sent."),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "one-time-code"}),
    )

    def clean_code(self):
        code = self.cleaned_data["code"].strip()
        if not re.fullmatch(r"\d{6}", code):
            raise forms.ValidationError(_("Enter the 6 digits of the code."))
        return code


class DecideForm(forms.Form):
    decision = forms.ChoiceField(choices=[("confirm", "confirm"), ("reject", "reject")])
