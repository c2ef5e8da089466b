"""The veterinary inspection at intake (ADR 0071): the visit, and one finding for each animal in
the pound. The cleaned data are the keyword arguments of `services.record_inspection`, which
keeps the rules (the visit not before arrival nor in the future, the animals the entry's)."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from kernel.forms import DayField

from ..models import Direction, Finding, Fitness, Inspection, Place
from .custody import IstDateTimeField, now_minute


def _max(model, name):
    return model._meta.get_field(name).max_length


class InspectionForm(forms.Form):
    # Made once with the form: sending it twice records one inspection.
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    visited_at = IstDateTimeField(label=_("Date and time of the visit (IST)"))
    officer_name = forms.CharField(
        label=_("Veterinary officer's name"), max_length=_max(Inspection, "officer_name")
    )
    officer_designation = forms.CharField(
        label=_("Designation"),
        max_length=_max(Inspection, "officer_designation"),
        help_text=_('For example "Veterinary Officer, Government Veterinary Hospital".'),
    )
    officer_registration = forms.CharField(
        label=_("Registration number"),
        max_length=_max(Inspection, "officer_registration"),
        help_text=_("The officer's registration with the State Veterinary Council."),
    )
    remarks = forms.CharField(
        label=_("Remarks"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )

    def __init__(self, *args, of=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["visited_at"].initial = now_minute(of)


class FindingForm(forms.Form):
    condition = forms.CharField(
        label=_("Health and condition"),
        max_length=_max(Finding, "condition"),
        help_text=_('For example "healthy, well nourished" or "weak, dehydrated".'),
    )
    injuries = forms.CharField(
        label=_("Injuries"),
        max_length=_max(Finding, "injuries"),
        required=False,
        help_text=_("Leave blank if none."),
    )
    marks = forms.CharField(
        label=_("Identification marks found"),
        max_length=_max(Finding, "marks"),
        required=False,
        help_text=_("Brands, horn and tail marks, an ear tag."),
    )
    marking_applied = forms.CharField(
        label=_("Marking applied"),
        max_length=_max(Finding, "marking_applied"),
        required=False,
        help_text=_(
            "The ear tag or chip the officer put on the animal, if any. Hot or cold branding "
            "and other injurious marking are prohibited."
        ),
    )
    fitness = forms.ChoiceField(
        label=_("Fitness"), choices=Fitness.choices, widget=forms.RadioSelect
    )

    # The animal the form was drawn for: an animal released or dead meanwhile would otherwise
    # shift every later finding onto the next animal.
    animal_id = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, animal, **kwargs):
        super().__init__(*args, **kwargs)
        self.animal = animal
        self.fields["animal_id"].initial = animal.pk

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("animal_id") != self.animal.pk:
            raise forms.ValidationError(
                _(
                    "The animals in the pound have changed since this form was opened: open it "
                    "again."
                )
            )
        return cleaned


class BaseFindingFormSet(forms.BaseFormSet):
    item_label = _("Animal %(number)s")  # in the error summary, as each fieldset is headed

    def __init__(self, *args, animals, **kwargs):
        self.animals = list(animals)
        super().__init__(*args, **kwargs)

    def total_form_count(self):
        return len(self.animals)  # one finding for each animal in the pound, no more

    def get_form_kwargs(self, index):
        # Every animal's finding is required: an empty form is not skipped as an extra one.
        return {"animal": self.animals[index], "empty_permitted": False}

    def findings(self):
        return [{**f.cleaned_data, "animal_id": f.animal.pk} for f in self.forms]


FindingFormSet = forms.formset_factory(FindingForm, formset=BaseFindingFormSet, extra=0)


class DirectionForm(forms.Form):
    """The Magistrate's direction under rule 3(b) for an animal found unfit (ADR 0071). The
    cleaned data are the keyword arguments of `services.record_direction`."""

    # Made once with the form: sending it twice records one direction.
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    place_kind = forms.ChoiceField(
        label=_("To be housed at"), choices=Place.choices, widget=forms.RadioSelect
    )
    place_name = forms.CharField(
        label=_("Name and address of the place"), max_length=_max(Direction, "place_name")
    )
    magistrate_name = forms.CharField(
        label=_("Magistrate's name"), max_length=_max(Direction, "magistrate_name")
    )
    order_reference = forms.CharField(
        label=_("Order number"), max_length=_max(Direction, "order_reference")
    )
    ordered_on = DayField(label=_("Date of the order"))
