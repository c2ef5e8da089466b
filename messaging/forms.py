"""The keeper's form for the owner's phone on an entry (messaging.views.contact)."""

import re

from django import forms
from django.utils.translation import gettext_lazy

LANGUAGES = [
    ("hi", "हिन्दी"),
    ("en", "English"),
    ("mr", "मराठी"),
    ("ta", "தமிழ்"),
]
MOBILE = re.compile(r"[6-9]\d{9}")


class ContactForm(forms.Form):
    phone = forms.CharField(
        label=gettext_lazy("Owner's mobile number"),
        max_length=20,
        help_text=gettext_lazy("10 digits, for example 9876543210."),
    )
    language = forms.ChoiceField(
        label=gettext_lazy("Language of the messages"), choices=LANGUAGES, initial="hi"
    )

    def clean_phone(self):
        digits = "".join(c for c in self.cleaned_data["phone"] if c.isdigit())
        if len(digits) == 12 and digits.startswith("91"):
            digits = digits[2:]
        if not MOBILE.fullmatch(digits):
            raise forms.ValidationError(
                gettext_lazy("Enter a 10-digit mobile number, such as 9876543210.")
            )
        return digits
