"""Forms of the gaushala register, the handover order and the monthly upkeep claim (ADR 0070)."""

import uuid
from datetime import date

from django import forms
from django.utils.translation import gettext_lazy as _

from kernel.forms import DayField
from ledger.models import PaymentMode

from ..models import Gaushala, HoldingEnd
from .disposal import DisposalAnimalField


class GaushalaForm(forms.ModelForm):
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4, required=False)

    class Meta:
        model = Gaushala
        fields = [
            "kind",
            "name",
            "registration",
            "address",
            "phone",
            "capacity",
            "agreed_daily_rate",
            "rate_authority",
            "active",
        ]
        help_texts = {
            "agreed_daily_rate": _(
                "Only where the State's rule pack gives no upkeep rate: the rate agreed with the "
                "body. Leave it empty if none has been fixed."
            ),
            "rate_authority": _("The order, with its number and date, that fixed the agreed rate."),
        }


class GaushalaEditForm(GaushalaForm):
    """The amendment of a body: the same amendment sent again changes nothing, so no key."""

    idempotency_key = None


class HandoverForm(forms.Form):
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    gaushala = forms.ModelChoiceField(label=_("Gaushala or welfare body"), queryset=None)
    animals = DisposalAnimalField(
        label=_("Animals"),
        queryset=None,
        help_text=_(
            "Animals reported unclaimed (s.14). A calf born in the pound goes with its dam."
        ),
    )
    reason = forms.CharField(
        label=_("Why the animals are handed over"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("For example: the State's law forbids their sale at auction."),
    )

    def __init__(self, *args, bodies, animals, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["gaushala"].queryset = bodies
        self.fields["animals"].queryset = animals


class ClaimForm(forms.Form):
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    gaushala = forms.ModelChoiceField(label=_("Gaushala or welfare body"), queryset=None)
    month = forms.CharField(
        label=_("Month"),
        help_text=_("The month claimed, as YYYY-MM, for example 2026-11."),
        widget=forms.TextInput(attrs={"type": "month", "autocomplete": "off"}),
    )
    animal_days = forms.IntegerField(
        label=_("Animal-days claimed"),
        min_value=1,
        help_text=_("Head of cattle kept, times the days each was kept in the month."),
    )

    def __init__(self, *args, bodies, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["gaushala"].queryset = bodies

    def clean_month(self):
        value = self.cleaned_data["month"].strip()
        try:
            year, month = (int(p) for p in value.split("-"))
            return date(year, month, 1)
        except ValueError:
            raise forms.ValidationError(_("Enter the month as YYYY-MM.")) from None


class ClaimDecisionForm(forms.Form):
    approve = forms.TypedChoiceField(
        label=_("Decision"),
        choices=[("1", _("Approve the claim")), ("0", _("Do not approve"))],
        coerce=lambda v: v == "1",
        widget=forms.RadioSelect,
    )
    note = forms.CharField(
        label=_("Note"),
        max_length=300,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Required when the claim is not approved."),
    )

    def clean(self):
        data = super().clean()
        if data.get("approve") is False and not data.get("note", "").strip():
            self.add_error("note", _("Say why the claim is not approved."))
        return data


class PaymentForm(forms.Form):
    payment_mode = forms.ChoiceField(
        label=_("Paid by"),
        choices=[(v, label) for v, label in PaymentMode.choices if v != PaymentMode.CASH],
    )
    payment_reference = forms.CharField(label=_("Payment reference"), max_length=120)


class HoldingEndForm(forms.Form):
    """What became of an animal at the body holding it: its death, transfer, escape or return
    to the owner; or, once it escaped, its recapture or its being found dead (only the moves
    its state allows)."""

    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    kind = forms.ChoiceField(label=_("What happened"), choices=(), widget=forms.RadioSelect)
    on = DayField(label=_("Date"))
    cause = forms.CharField(label=_("Cause of death as reported"), max_length=200, required=False)
    to_gaushala = forms.ModelChoiceField(
        label=_("Body the animal was transferred to"), queryset=None, required=False
    )
    basis = forms.CharField(
        label=_("Court's order or provision of the Act"),
        max_length=250,
        required=False,
        help_text=_("For a return to the owner: the court and its order, or the provision."),
    )
    reference = forms.CharField(
        label=_("Reference"),
        max_length=120,
        help_text=_(
            "For a death, an escape or a recapture, the body's letter number; for a transfer "
            "or a return, the order or authority."
        ),
    )

    def __init__(self, *args, bodies, kinds, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [c for c in HoldingEnd.Kind.choices if c[0] in kinds]
        if len(kinds) == 1:  # one move only: chosen already
            self.fields["kind"].initial = next(iter(kinds))
        self.fields["to_gaushala"].queryset = bodies
        if HoldingEnd.Kind.TRANSFERRED not in kinds:
            del self.fields["to_gaushala"]
        if not kinds & {HoldingEnd.Kind.DIED, HoldingEnd.Kind.FOUND_DEAD}:
            del self.fields["cause"]
        if HoldingEnd.Kind.RETURNED not in kinds:
            del self.fields["basis"]
