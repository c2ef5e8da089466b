"""Forms for the District Magistrate's disposal orders under the proviso to s.14: cattle unlikely
to fetch a fair price at auction are disposed of as he thinks fit."""

import uuid

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from ledger.models import PaymentMode

from ..models import DisposalOrder, DisposalTerms

# The terms each kind of disposal asks for (checked by the service, errors beside the fields).
TERMS = (
    "address",
    "phone",
    "id_kind",
    "id_number",
    "registration",
    "certificate_number",
    "details",
    "price",
    "payment_mode",
    "payment_reference",
    "declaration_signed",
    "use_declared",
    "permit_number",
)


def _max(field):
    return DisposalTerms._meta.get_field(field).max_length


class DisposalAnimalField(forms.ModelMultipleChoiceField):
    widget = forms.CheckboxSelectMultiple

    def label_from_instance(self, animal):
        label = f"{animal.reference}: {animal.description} ({animal.impoundment.pound.label})"
        if getattr(animal, "was_unsold", False):
            label += " · " + str(_("not sold at auction"))
        return label


class DisposalForm(forms.Form):
    # Made once with the form: sending it twice prepares one order (see propose_disposal).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    animals = DisposalAnimalField(
        label=_("Animals"),
        queryset=None,
        help_text=_(
            "Animals reported unclaimed (s.14), including those offered at auction and not sold. "
            "A calf born in the pound goes with its dam."
        ),
    )
    reason = forms.CharField(
        label=_("Why a fair price is unlikely at auction"),
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    mode = forms.ChoiceField(label=_("Mode of disposal"), choices=DisposalOrder.Mode.choices)
    recipient = forms.CharField(
        label=_("Recipient"),
        max_length=DisposalOrder._meta.get_field("recipient").max_length,
        help_text=_(
            "The buyer's name (sale by private treaty), the gaushala's or institution's name, "
            "or the veterinary officer's name (destruction)."
        ),
    )
    address = forms.CharField(label=_("Address"), max_length=_max("address"), required=False)
    phone = forms.CharField(
        label=_("Phone"), max_length=_max("phone"), required=False, help_text=_("The buyer's.")
    )
    id_kind = forms.ChoiceField(
        label=_("Identity document"),
        choices=[("", "—"), *DisposalTerms._meta.get_field("id_kind").choices],
        required=False,
        help_text=_("The buyer's."),
    )
    id_number = forms.CharField(
        label=_("Document number"), max_length=_max("id_number"), required=False
    )
    registration = forms.CharField(
        label=_("Registration number"),
        max_length=_max("registration"),
        required=False,
        help_text=_("The gaushala's or institution's registration, if it is registered."),
    )
    certificate_number = forms.CharField(
        label=_("Veterinary certificate number"),
        max_length=_max("certificate_number"),
        required=False,
        help_text=_("Destruction only: the certificate that the animal cannot be kept alive."),
    )
    details = forms.CharField(
        label=_("Terms of the disposal"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Required for any other mode of disposal."),
    )
    price = forms.DecimalField(
        label=_("Price (₹)"),
        max_digits=10,
        decimal_places=2,
        min_value=0,
        required=False,
        help_text=_("Sale by private treaty only."),
    )
    payment_mode = forms.ChoiceField(
        label=_("Paid by"), choices=[("", "—"), *PaymentMode.choices], required=False
    )
    payment_reference = forms.CharField(
        label=_("Payment reference"), max_length=_max("payment_reference"), required=False
    )
    declaration_signed = forms.BooleanField(
        label=_(
            "The buyer signed the declaration that he is not an officer or pound-keeper, "
            "and does not buy for one (s.19)"
        ),
        required=False,
    )
    # The rule pack's declared sale (ADR 0068): where the State's law allows a sale only so.
    use_declared = forms.BooleanField(
        label=_("The buyer signed the declaration of the use he will make of the animal"),
        required=False,
        help_text=_("Where the State's law allows the sale only to a buyer who declares the use."),
    )
    permit_number = forms.CharField(
        label=_("Permit number"),
        max_length=_max("permit_number"),
        required=False,
        help_text=_("The buyer's permit under the State's law, where it requires one."),
    )

    def __init__(self, *args, animals, modes=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["animals"].queryset = animals
        if modes is not None:
            # Only the kinds the animals' rule packs allow; the service checks each animal.
            self.fields["mode"].choices = [
                (value, label) for value, label in DisposalOrder.Mode.choices if value in modes
            ]

    def clean_animals(self):
        animals = self.cleaned_data["animals"]
        if len({a.impoundment.pound_id for a in animals}) > 1:
            raise ValidationError(
                _("An order covers the animals of one pound: choose one pound's.")
            )
        return animals

    def terms(self):
        """The cleaned terms, for the service (which checks them against the mode)."""
        return {field: self.cleaned_data.get(field) for field in TERMS}


class DecisionForm(forms.Form):
    approve = forms.TypedChoiceField(
        label=_("Decision"),
        choices=[("1", _("Approve the disposal")), ("0", _("Do not approve"))],
        coerce=lambda v: v == "1",
        widget=forms.RadioSelect,
    )
    note = forms.CharField(
        label=_("Note"),
        max_length=DisposalOrder._meta.get_field("decision_note").max_length,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Required when the order is not approved."),
    )

    def clean(self):
        data = super().clean()
        if data.get("approve") is False and not data.get("note", "").strip():
            self.add_error("note", _("Say why the order is not approved."))
        return data
