"""The refund screens' forms (docs/decisions/0083): each form's cleaned_data is the keyword
arguments of one service in `payments.refunds`."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import RefundReason


class PrepareRefundForm(forms.Form):
    # Made once with the form: sending it twice prepares one refund.
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    reason = forms.ChoiceField(
        label=_("Why is the payment refunded?"),
        choices=RefundReason.choices,
        widget=forms.RadioSelect,
    )
    note = forms.CharField(
        label=_("Note for the approver (optional)"), max_length=300, required=False
    )


class DecideRefundForm(forms.Form):
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[("approve", _("Approve and send the refund")), ("decline", _("Decline"))],
        widget=forms.RadioSelect,
    )
