"""Forms for the District Magistrate's office approvals: a write-off, the check of a court order
against its scan, and the confirmation that a s.15 deposit is to be applied."""

from django import forms
from django.utils.translation import gettext_lazy as _


class WriteOffForm(forms.Form):
    note = forms.CharField(
        label=_("Why the dues are written off"),
        max_length=250,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Recorded with the write-off in the register's history."),
    )


class ReviewForm(forms.Form):
    note = forms.CharField(
        label=_("Note on the check"),
        max_length=300,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("For example: any difference between the scan and what was recorded."),
    )

    def clean_note(self):
        return self.cleaned_data["note"].strip()


class ConfirmForm(forms.Form):
    """No fields: the POST is the confirmation."""
