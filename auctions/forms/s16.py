"""Forms for the sale when the owner refuses or omits to pay (s.16): his refusal, and the
settlement that returns the remaining cattle and the balance with the account of items (a)-(f)."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from impounding.forms.releases import AnimalChoiceField, ConfirmForm
from impounding.models import Release
from ledger.models import PaymentMode

from ..models import S16Case


class RefusalForm(forms.Form):
    # Made once with the form: sending it twice records one refusal (see open_s16_case).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    animals = AnimalChoiceField(
        queryset=None,
        label=_("The owner's animals"),
        help_text=_("A calf born in the pound goes with its dam."),
    )
    owner_name = forms.CharField(
        label=_("Owner or agent"), max_length=S16Case._meta.get_field("owner_name").max_length
    )
    owner_address = forms.CharField(
        label=_("Address"), max_length=S16Case._meta.get_field("owner_address").max_length
    )
    refused = forms.TypedChoiceField(
        label=_("The owner or agent"),
        choices=[
            ("1", _("refused to pay the fines and charges")),
            ("0", _("omitted to pay them (or, under s.15, to deposit them)")),
        ],
        coerce=lambda v: v == "1",
        widget=forms.RadioSelect,
        initial="1",
    )

    def __init__(self, *args, animals, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["animals"].queryset = animals
        if len(animals) == 1:
            self.fields["animals"].initial = [animals[0].pk]


class SettleForm(forms.Form):
    """The owner takes back the remaining cattle and the balance, and signs for both (s.16)."""

    balance_mode = forms.ChoiceField(
        label=_("Balance paid by"),
        choices=PaymentMode.choices,
        widget=forms.RadioSelect,
        initial=PaymentMode.CASH,
    )
    balance_reference = forms.CharField(
        label=_("UPI or other payment reference"), max_length=120, required=False
    )
    acknowledgement = forms.ChoiceField(
        label=_("The owner signs for the cattle and the balance (s.16)"),
        choices=Release.Acknowledgement.choices,
        widget=forms.RadioSelect,
        initial=Release.Acknowledgement.REGISTER_PAGE,
    )
    register_page = forms.CharField(
        label=_("Page of the paper register signed"), max_length=30, required=False
    )
    signature_data = forms.CharField(required=False, widget=forms.HiddenInput)

    clean_signature_data = ConfirmForm.clean_signature_data

    def __init__(self, *args, balance, **kwargs):
        super().__init__(*args, **kwargs)
        self.balance = balance
        if not balance:
            # Nothing to pay over: the owner signs for the cattle only.
            del self.fields["balance_mode"]
            del self.fields["balance_reference"]

    def clean(self):
        data = super().clean()
        ack = data.get("acknowledgement")
        if ack == Release.Acknowledgement.REGISTER_PAGE and not data.get("register_page"):
            self.add_error("register_page", _("Give the page of the register the owner signed."))
        if ack == Release.Acknowledgement.SIGNATURE and not data.get("signature_data"):
            if "signature_data" not in self.errors:
                self.add_error("signature_data", _("The owner must sign on the screen."))
        if data.get("balance_mode") in (PaymentMode.UPI, PaymentMode.OTHER) and not data.get(
            "balance_reference"
        ):
            self.add_error(
                "balance_reference", _("Give the UPI transaction or other payment reference.")
            )
        return data

    def service_kwargs(self):
        data = self.cleaned_data
        return {
            "acknowledgement": data["acknowledgement"],
            "register_page": data.get("register_page", ""),
            "signature": data.get("signature_data"),
            "balance_mode": data.get("balance_mode") or PaymentMode.CASH,
            "balance_reference": data.get("balance_reference", ""),
        }
