"""Forms for the District Magistrate's office approvals: a write-off, the check of a court order
against the court's record, and the confirmation that a s.15 deposit is to be applied."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from impounding.models import CourtOrderCheck


class WriteOffForm(forms.Form):
    note = forms.CharField(
        label=_("Why the dues are written off"),
        max_length=250,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Recorded with the write-off in the register's history."),
    )


class CourtOrderCheckForm(forms.Form):
    """The check of a recorded court order against the court's record (s.19)."""

    # Made once with the form: sent twice, one check (impounding.services.check_court_order).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    outcome = forms.ChoiceField(
        label=_("Your decision"),
        choices=CourtOrderCheck.Outcome.choices,
        widget=forms.RadioSelect,
    )
    how = forms.ChoiceField(
        label=_("How you checked the order against the court's record"),
        choices=CourtOrderCheck.How.choices,
        widget=forms.RadioSelect,
    )
    reference = forms.CharField(
        label=_("Reference of the check"),
        max_length=120,
        help_text=_(
            "For example: the certified copy's number, the eCourts CNR number, or whom you "
            "spoke to at the court and when."
        ),
    )
    reason = forms.CharField(
        label=_("Why the order is rejected"),
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Only when you reject it. The pound-keeper is told."),
    )

    def clean(self):
        data = super().clean()
        if (
            data.get("outcome") == CourtOrderCheck.Outcome.REJECTED
            and not (data.get("reason") or "").strip()
        ):
            self.add_error("reason", _("Say why the order is rejected."))
        return data


class ConfirmForm(forms.Form):
    """No fields: the POST is the confirmation."""
