"""Forms for the District Magistrate's disposal orders under the proviso to s.14: cattle unlikely
to fetch a fair price at auction are disposed of as he thinks fit."""

import uuid

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from ..models import DisposalOrder


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
        help_text=_("For example: the gaushala's name and address."),
    )

    def __init__(self, *args, animals, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["animals"].queryset = animals

    def clean_animals(self):
        animals = self.cleaned_data["animals"]
        if len({a.impoundment.pound_id for a in animals}) > 1:
            raise ValidationError(
                _("An order covers the animals of one pound: choose one pound's.")
            )
        return animals


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
