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


class OptOutForm(forms.Form):
    """The public's opting out (messaging.views.opt_out): the phone and what its holder wants."""

    phone = forms.CharField(
        label=gettext_lazy("Your mobile number"),
        max_length=20,
        help_text=gettext_lazy("10 digits. We send a code to it, to check that it is yours."),
        widget=forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "tel-national"}),
    )
    choice = forms.ChoiceField(
        label=gettext_lazy("What do you want?"),
        choices=[
            ("stop", gettext_lazy("Stop the pound's messages to this phone")),
            ("start", gettext_lazy("Start the pound's messages to this phone again")),
        ],
        initial="stop",
        widget=forms.RadioSelect,
    )

    clean_phone = ContactForm.clean_phone
