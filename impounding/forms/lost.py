"""The public's lost-cattle report form and its one-time code (ADR 0079)."""

import re

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import District
from kernel.forms import DayField, PhotoField

from ..models import LostReport
from ..tags import normalise_tag


class LostReportForm(forms.ModelForm):
    phone = forms.CharField(
        label=_("Your mobile number"),
        help_text=_("10 digits. We send a code to it, and a message if the animal is found."),
        widget=forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "tel-national"}),
    )
    district = forms.ModelChoiceField(
        label=_("District where it was lost"), queryset=District.objects.order_by("name")
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
        if lost_on > timezone.localdate():
            raise forms.ValidationError(_("The date lost cannot be in the future."))
        return lost_on


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
