"""The payments' forms: the reconciliation's (docs/decisions/0082), a bank statement's upload and
a reviewer's match or setting aside of one line; and the refund screens' (docs/decisions/0083),
each form's cleaned_data the keyword arguments of one service in `payments.refunds`."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import District

from .bank_formats import BANKS
from .models import RefundReason

MAX_STATEMENT_BYTES = 5 * 1024 * 1024


class StatementUploadForm(forms.Form):
    district = forms.ModelChoiceField(queryset=District.objects.none(), label=_("District"))
    file = forms.FileField(label=_("Statement file"))
    kind = forms.ChoiceField(
        label=_("Format"),
        choices=[("mt940", _("MT940 (SWIFT)")), ("csv", _("CSV from the bank"))],
        widget=forms.RadioSelect,
        initial="mt940",
    )
    bank = forms.ChoiceField(
        label=_("The bank's CSV columns"),
        choices=[(k, v.label) for k, v in BANKS.items()],
        required=False,
        help_text=_("For a CSV file only."),
    )

    def __init__(self, *args, districts, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["district"].queryset = districts
        only = list(districts[:2])
        if len(only) == 1:
            self.fields["district"].initial = only[0]

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_STATEMENT_BYTES:
            raise forms.ValidationError(_("The file is larger than 5 MB."))
        return upload

    def clean(self):
        data = super().clean()
        if data.get("kind") == "csv" and not data.get("bank"):
            self.add_error("bank", _("Choose the bank whose columns the file has."))
        return data


class MatchLineForm(forms.Form):
    reference = forms.CharField(label=_("The payment's reference"), max_length=40)
    note = forms.CharField(label=_("Note"), max_length=300, required=False)


class SetAsideForm(forms.Form):
    note = forms.CharField(label=_("Why this line is no payment of ours"), max_length=300)


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

    def __init__(self, *args, bank=False, **kwargs):
        super().__init__(*args, **kwargs)
        if bank:  # the gateway cannot refund it: the payer's account, for the bank transfer
            self.fields["payee_name"] = forms.CharField(
                label=_("Account holder's name"), max_length=100
            )
            self.fields["account_number"] = forms.CharField(
                label=_("Account number"),
                max_length=30,
                widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
            )
            self.fields["ifsc"] = forms.CharField(
                label=_("IFSC"),
                max_length=11,
                help_text=_("11 characters, like SBIN0001234: on the payer's passbook or cheque."),
                widget=forms.TextInput(
                    attrs={"autocomplete": "off", "autocapitalize": "characters"}
                ),
            )


class BankTransferForm(forms.Form):
    utr = forms.CharField(
        label=_("The bank's UTR of the transfer"),
        max_length=30,
        help_text=_("On the bank's advice of the NEFT, RTGS or IMPS transfer."),
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )


class DecideRefundForm(forms.Form):
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[("approve", _("Approve and send the refund")), ("decline", _("Decline"))],
        widget=forms.RadioSelect,
    )


class OwnerPayForm(forms.Form):
    # One attempt, one payment: made when the page is drawn, so a double click pays once.
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
