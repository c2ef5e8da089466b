"""Forms for the money screens of the District Magistrate's office (s.17): remittances of fines,
the surplus deposit register and owners' claims to a surplus, and the month of the feeding-money
statement. Each form's cleaned_data is the keyword arguments of one service in `office.services`;
the services keep the rules (no more than is due, within the three months)."""

import uuid
from datetime import date
from decimal import Decimal

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from kernel import clock
from kernel.forms import DayField
from kernel.uploads import validate_order_scan
from ledger.models import PaymentMode

from ..models import Remittance, SurplusClaim


def _max_length(model, name):
    return model._meta.get_field(name).max_length


class RemittanceForm(forms.Form):
    # Made once with the form: sending it twice records one remittance (see send_remittance).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    amount = forms.DecimalField(
        label=_("Amount remitted (₹)"),
        max_digits=12,
        decimal_places=2,
        min_value=Decimal("0.01"),
    )
    challan_number = forms.CharField(
        label=_("Challan or treasury reference"),
        max_length=_max_length(Remittance, "challan_number"),
    )
    treasury = forms.CharField(
        label=_("Treasury or bank"),
        max_length=_max_length(Remittance, "treasury"),
        help_text=_("Where the money was paid in, for example: District Treasury, Lucknow."),
    )
    remitted_on = DayField(label=_("Remitted on"))
    from_cash = forms.TypedChoiceField(
        label=_("Paid from"),
        choices=[("1", _("Cash in hand")), ("0", _("UPI and other collections"))],
        coerce=lambda v: v == "1",
        widget=forms.RadioSelect,
        initial="1",
    )

    def __init__(self, *args, on_authority=False, today=None, **kwargs):
        super().__init__(*args, **kwargs)
        today = today or timezone.localdate()  # the pound's day (ADR 0080)
        self.fields["remitted_on"].widget.attrs["max"] = today.isoformat()
        if on_authority:
            # The office, not the pound-keeper, pays the fines out of the pound's till.
            self.fields["authority"] = forms.CharField(
                label=_("Authority for the payment"),
                max_length=_max_length(Remittance, "authority"),
                help_text=_(
                    "The office pays instead of the pound-keeper: the number and date of the "
                    "written order that authorises paying out of the pound's till."
                ),
            )


class ConfirmRemittanceForm(forms.Form):
    checked = forms.BooleanField(
        label=_("I have checked that this amount reached the treasury under this challan."),
    )
    # The treasury's proof (ADR 0076, 0083): all three from the scroll, or none.
    cin = forms.CharField(
        label=_("CIN (bank's challan identification number)"),
        max_length=40,
        required=False,
    )
    scroll_number = forms.CharField(
        label=_("Treasury scroll number"), max_length=40, required=False
    )
    scroll_date = DayField(label=_("Scroll date"), required=False)

    def clean(self):
        data = super().clean()
        data.pop("checked", None)  # an attestation, not an argument of the service
        scroll = {name: data.get(name) for name in ("cin", "scroll_number", "scroll_date")}
        given = {name for name, value in scroll.items() if value not in (None, "")}
        if given and len(given) < 3:
            for name in set(scroll) - given:
                if name not in self.errors:
                    self.add_error(
                        name,
                        _("Give the CIN, the scroll number and the scroll date together, or none."),
                    )
        if not given:
            for name in scroll:
                data[name] = None  # none given: the service leaves the GRN unconfirmed
        return data


class ReceiveSurplusForm(forms.Form):
    received_on = DayField(
        label=_("Received by the office on"),
        help_text=_(
            "The three months of deposit run from this day, and never end before three months "
            "from the sale (s.17)."
        ),
    )


class Capacity:
    """Who may claim a surplus: the owner, his agent, or his heir (stored as a short code)."""

    OWNER, AGENT, HEIR = "owner", "agent", "heir"
    choices = [
        (OWNER, _("Owner")),
        (AGENT, _("Agent of the owner")),
        (HEIR, _("Heir of the owner")),
    ]

    @classmethod
    def label(cls, value):
        return dict(cls.choices).get(value, value)


class SurplusClaimForm(forms.Form):
    # Made once with the form: sending it twice records one claim (see file_surplus_claim).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    claimant_name = forms.CharField(
        label=_("Claimant"), max_length=_max_length(SurplusClaim, "claimant_name")
    )
    claimant_address = forms.CharField(
        label=_("Address"), max_length=_max_length(SurplusClaim, "claimant_address")
    )
    capacity = forms.ChoiceField(
        label=_("Claims as"),
        choices=Capacity.choices,
        widget=forms.RadioSelect,
        initial=Capacity.OWNER,
    )
    proof = forms.CharField(
        label=_("Proof offered"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_(
            "What the claimant shows: for example the ear-tag record, an identity document, "
            "witnesses who know the animal."
        ),
    )
    proof_scan = forms.FileField(
        label=_("Scan of the proof (optional)"),
        required=False,
        help_text=_("PDF, JPEG or PNG, at most 5 MB."),
        widget=forms.ClearableFileInput(attrs={"accept": ".pdf,image/jpeg,image/png"}),
    )
    filed_on = DayField(label=_("Claim made on"))

    def __init__(self, *args, deposit, **kwargs):
        super().__init__(*args, **kwargs)
        self.deposit = deposit
        self.fields["filed_on"].widget.attrs["max"] = clock.today(deposit.district).isoformat()

    def clean_proof_scan(self):
        scan = self.cleaned_data.get("proof_scan")
        if not scan:
            return None
        try:
            validate_order_scan(scan)
        except ValidationError as exc:
            raise ValidationError(exc.message_dict["scan"]) from None
        return scan

    def clean_filed_on(self):
        filed_on = self.cleaned_data["filed_on"]
        if filed_on < self.deposit.sale_date:
            raise ValidationError(_("A claim to the surplus cannot be made before the sale."))
        return filed_on


class ClaimDecisionForm(forms.Form):
    allow = forms.TypedChoiceField(
        label=_("Decision"),
        choices=[
            ("1", _("Claim proved: pay the surplus to the claimant")),
            ("0", _("Claim not proved: reject it")),
        ],
        coerce=lambda v: v == "1",
        widget=forms.RadioSelect,
    )
    decision = forms.CharField(
        label=_("Findings on the proof"),
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("What the proof shows, and why it does or does not establish the claim."),
    )
    payment_mode = forms.ChoiceField(
        label=_("Paid by"),
        choices=[("", _("Choose when the claim is proved")), *PaymentMode.choices],
        required=False,
    )
    payment_reference = forms.CharField(
        label=_("Payment reference"),
        max_length=_max_length(SurplusClaim, "payment_reference"),
        required=False,
        help_text=_("The cheque, transfer or voucher number. Not needed for cash."),
    )

    def clean(self):
        data = super().clean()
        if data.get("allow"):
            if not data.get("payment_mode"):
                self.add_error("payment_mode", _("Say how the surplus is paid to the claimant."))
            elif (
                data["payment_mode"] != PaymentMode.CASH
                and not data.get("payment_reference", "").strip()
            ):
                self.add_error("payment_reference", _("Give the payment reference."))
        elif data.get("allow") is False:
            data["payment_mode"], data["payment_reference"] = "", ""
        return data


class MonthForm(forms.Form):
    """The ?month=YYYY-MM of the feeding-money statement (default: this month)."""

    month = forms.DateField(
        label=_("Month"),
        required=False,
        input_formats=["%Y-%m"],
        widget=forms.DateInput(attrs={"type": "month"}, format="%Y-%m"),
    )

    def __init__(self, *args, today=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.today = today or timezone.localdate()  # the pound's day (ADR 0080)

    def clean_month(self):
        month = self.cleaned_data["month"]
        if month and month > self.today:
            raise ValidationError(_("Choose this month or an earlier one."))
        return month

    def first_day(self):
        today = self.today
        if self.is_bound and self.is_valid() and self.cleaned_data["month"]:
            return self.cleaned_data["month"]
        return date(today.year, today.month, 1)


class SurplusFilterForm(forms.Form):
    """The surplus register's filter (GET): one list, one pound, or what expires by a day."""

    LISTS = {
        "awaiting": _("At the pounds: to be received"),
        "held": _("Held in deposit"),
        "closed": _("Paid or credited"),
    }

    list = forms.ChoiceField(label=_("Status"), required=False)
    pound = forms.ModelChoiceField(
        queryset=None, required=False, label=_("Pound"), empty_label=_("All my pounds")
    )
    expires_by = DayField(label=_("Held until on or before"), required=False)

    def __init__(self, *args, pounds, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["list"].choices = [("", _("All three lists")), *self.LISTS.items()]
        self.fields["pound"].queryset = pounds
