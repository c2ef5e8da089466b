import uuid

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from kernel.forms import DayField
from kernel.uploads import validate_order_scan
from ledger.models import PaymentMode

from ..models import ClaimantRole, CourtOrder, Release
from ..services.releases import claim_errors, read_signature


class AnimalChoiceField(forms.ModelMultipleChoiceField):
    widget = forms.CheckboxSelectMultiple

    def label_from_instance(self, animal):
        return f"{animal.number}. {animal.description}" + (
            f" · {animal.ear_tag}" if animal.ear_tag else ""
        )


class ReceiptChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, receipt):
        return _("Receipt %(number)s, cancelled") % {"number": receipt.number}


class ClaimForm(forms.Form):
    """Step 1 of a release: which animals, who claims them, how they pay."""

    animals = AnimalChoiceField(queryset=None, label=_("Animals to release"))
    claimant_name = forms.CharField(label=_("Claimant's name"), max_length=150)
    claimant_address = forms.CharField(label=_("Claimant's address"), max_length=250)
    claimant_phone = forms.CharField(label=_("Claimant's phone"), max_length=15, required=False)
    claimant_role = forms.ChoiceField(
        label=_("Claims as"),
        choices=ClaimantRole.choices,
        widget=forms.RadioSelect,
        initial=ClaimantRole.OWNER,
    )
    owner_name = forms.CharField(
        label=_("Owner's name (if the claimant is an agent)"), max_length=150, required=False
    )
    agent_authority = forms.CharField(
        label=_("Authority the agent relies on"),
        max_length=250,
        required=False,
        help_text=_("For example: a letter signed by the owner, shown and kept on file."),
    )
    id_document = forms.CharField(label=_("Identity document seen"), max_length=120, required=False)
    payment_mode = forms.ChoiceField(
        label=_("Paid by"),
        choices=PaymentMode.choices,
        widget=forms.RadioSelect,
        initial=PaymentMode.CASH,
    )
    payment_reference = forms.CharField(
        label=_("UPI or other payment reference"), max_length=120, required=False
    )
    acknowledgement = forms.ChoiceField(
        label=_("The claimant signs for the cattle (s.13)"),
        choices=Release.Acknowledgement.choices,
        widget=forms.RadioSelect,
        initial=Release.Acknowledgement.REGISTER_PAGE,
    )
    register_page = forms.CharField(
        label=_("Page of the paper register signed"), max_length=30, required=False
    )

    def __init__(self, *args, animals, deposit=False, replaceable=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["animals"].queryset = animals
        if len(animals) == 1:
            self.fields["animals"].initial = [animals[0].pk]
        if not deposit and replaceable is not None and replaceable.exists():
            # A receipt of this entry cancelled in error and not yet replaced: the corrected
            # receipt names it (decision 11).
            self.fields["replaces"] = ReceiptChoiceField(
                queryset=replaceable,
                required=False,
                label=_("This payment corrects the cancelled receipt"),
                empty_label=_("None: this is a payment of its own"),
            )
        if deposit:
            self.fields["ground"] = forms.CharField(
                label=_("Why the owner says the seizure was illegal"),
                max_length=300,
                widget=forms.Textarea(attrs={"rows": 2}),
                help_text=_("He says he is about to complain to a Magistrate under s.20."),
            )

    def clean(self):
        data = super().clean()
        for field, message in claim_errors(data, owner_named=True).items():
            self.add_error(field, message)
        animals = data.get("animals") or []
        chosen = {x.pk for x in animals}
        if any(a.dam_id and a.dam_id not in chosen and a.dam.state == "impounded" for a in animals):
            self.add_error(
                "animals", _("A calf born in the pound leaves with its dam: choose the dam.")
            )
        return data


class ConfirmForm(forms.Form):
    """Step 2: the check-your-answers page posts this, with step 1's answers carried along."""

    idempotency_key = forms.UUIDField(widget=forms.HiddenInput)
    amount = forms.DecimalField(max_digits=12, decimal_places=2, widget=forms.HiddenInput)
    signature_data = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_signature_data(self):
        try:
            return read_signature(self.cleaned_data["signature_data"])
        except ValidationError as exc:
            raise ValidationError(exc.message_dict["signature"]) from None


class CourtOrderForm(forms.Form):
    # Made once with the form: sending it twice records one order (see record_court_order).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    animals = AnimalChoiceField(queryset=None, label=_("Animals the order releases"))
    kind = forms.ChoiceField(
        label=_("Order"), choices=CourtOrder.Kind.choices, widget=forms.RadioSelect
    )
    court = forms.CharField(label=_("Court"), max_length=200)
    case_number = forms.CharField(label=_("Case number"), max_length=80)
    order_date = DayField(label=_("Date of the order"))
    scan = forms.FileField(
        label=_("Scan of the order"),
        help_text=_("PDF, JPEG or PNG, at most 5 MB."),
        widget=forms.ClearableFileInput(attrs={"accept": ".pdf,image/jpeg,image/png"}),
    )
    order_text = forms.CharField(
        label=_("What the order says"),
        help_text=_("Copy its operative words: whom and which animals it orders released."),
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    conditions = forms.CharField(
        label=_("Conditions in the order"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    dues_payable_by = forms.CharField(
        label=_("The fines and charges are payable by"),
        max_length=250,
        required=False,
        help_text=_("Under s.22, the person who seized or detained the cattle."),
    )

    def __init__(self, *args, animals, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["animals"].queryset = animals

    def clean_scan(self):
        scan = self.cleaned_data["scan"]
        try:
            validate_order_scan(scan)
        except ValidationError as exc:
            raise ValidationError(exc.message_dict["scan"]) from None
        return scan
