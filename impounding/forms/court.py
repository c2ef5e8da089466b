"""Forms for complaints (ss.20-22) and s.15 deposits. They tidy input; the services decide."""

import uuid
from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

from kernel import clock
from kernel.formatting import inr
from kernel.forms import DayField
from ledger.models import PaymentMode

from ..models import Complaint, Deposit


class DepositChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj):
        return _("%(receipt)s: %(amount)s by %(name)s (%(status)s)") % {
            "receipt": obj.release.receipt.number,
            "amount": inr(obj.amount),
            "name": obj.release.claimant_name,
            "status": obj.get_status_display(),
        }


class ComplaintForm(forms.Form):
    # Made once with the form: sending it twice records one complaint (see record_complaint).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    complainant_name = forms.CharField(label=_("Complainant"), max_length=150)
    mode = forms.ChoiceField(
        label=_("Complaint made"),
        choices=Complaint.Mode.choices,
        initial=Complaint.Mode.WRITTEN,
        widget=forms.RadioSelect,
    )
    substance = forms.CharField(
        label=_("Substance of the complaint"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Required for an oral complaint: the Magistrate writes down its substance."),
    )
    through_agent = forms.BooleanField(label=_("Made through an agent"), required=False)
    agent_name = forms.CharField(label=_("Agent's name"), max_length=150, required=False)
    agent_acquaintance = forms.CharField(
        label=_("How the agent knows the circumstances"),
        max_length=250,
        required=False,
        help_text=_("s.21: the agent must be personally acquainted with the circumstances."),
    )
    court = forms.CharField(label=_("Court of the Magistrate"), max_length=200)
    case_number = forms.CharField(label=_("Case number"), max_length=80, required=False)
    filed_on = DayField(label=_("Filed on"))
    summons_on = DayField(label=_("Summons issued on"), required=False)
    deposit = DepositChoiceField(
        label=_("Deposit the complaint concerns (s.15)"),
        queryset=Deposit.objects.none(),
        required=False,
        empty_label=_("None"),
    )

    def __init__(self, *args, entry, deadline, **kwargs):
        super().__init__(*args, **kwargs)
        deposits = Deposit.objects.filter(release__impoundment=entry).select_related(
            "release__receipt"
        )
        self.fields["deposit"].queryset = deposits
        held = [d for d in deposits if d.status == Deposit.Status.HELD]
        if len(held) == 1:
            self.fields["deposit"].initial = held[0].pk
        if not deposits:
            del self.fields["deposit"]
        self.fields["filed_on"].initial = clock.today(entry.pound)
        self.fields["filed_on"].help_text = _(
            "The last day to complain under s.20 is %(date)s. A later complaint is still "
            "recorded, marked late."
        ) % {"date": deadline.strftime("%d-%m-%Y")}
        self.fields["complainant_name"].initial = entry.owner_name

    def clean(self):
        data = super().clean()
        if not data.get("through_agent"):
            data["agent_name"] = data["agent_acquaintance"] = ""
        return data


class DecideComplaintForm(forms.Form):
    outcome = forms.ChoiceField(
        label=_("Outcome"),
        choices=[
            (Complaint.Outcome.UPHELD.value, Complaint.Outcome.UPHELD.label),
            (Complaint.Outcome.DISMISSED.value, Complaint.Outcome.DISMISSED.label),
        ],
        widget=forms.RadioSelect,
    )
    decided_on = DayField(label=_("Decided on"))
    order_reference = forms.CharField(label=_("Order reference"), max_length=120, required=False)
    compensation = forms.DecimalField(
        label=_("Compensation awarded (₹)"),
        max_digits=10,
        decimal_places=2,
        min_value=0,
        required=False,
        initial=Decimal("0.00"),
        help_text=_("s.22: compensation to the complainant, as the order says. 0 if none."),
    )
    payable_by = forms.CharField(
        label=_("Payable by"),
        max_length=250,
        required=False,
        help_text=_(
            "When the complaint is upheld: who the order makes pay (the seizer or detainer). "
            "Name each, with the amount, if there are several."
        ),
    )

    def __init__(self, *args, complaint, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["decided_on"].initial = clock.today(complaint.impoundment.pound)
        self.fields["payable_by"].initial = complaint.impoundment.seizer_name

    def clean_compensation(self):
        return self.cleaned_data["compensation"] or Decimal("0.00")


class RefundForm(forms.Form):
    mode = forms.ChoiceField(
        label=_("Refunded by"),
        choices=PaymentMode.choices,
        initial=PaymentMode.CASH,
        widget=forms.RadioSelect,
    )
    reference = forms.CharField(
        label=_("Reference of the transfer"),
        max_length=120,
        required=False,
        help_text=_("For UPI or a bank transfer: the transaction reference."),
    )
    authority = forms.CharField(
        label=_("Authority for the payment"),
        max_length=200,
        required=False,
        help_text=_(
            "Only when the office pays instead of the pound-keeper: the number and date of the "
            "written order that authorises paying out of the pound's till."
        ),
    )

    def clean(self):
        data = super().clean()
        if data.get("mode") and data["mode"] != PaymentMode.CASH and not data.get("reference"):
            self.add_error("reference", _("Give the reference of the transfer."))
        return data
