import copy
import uuid

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.models import Village
from kernel.forms import DayField, DayTimeField, PhotoField

from ..models import (
    AgeClass,
    Impoundment,
    S11Ground,
    S11Site,
    SeizerCapacity,
    SeizureBasis,
    Sex,
    Species,
)
from ..services.intake import (
    AMENDABLE_ANIMAL_FIELDS,
    AMENDABLE_ENTRY_FIELDS,
    check_animal,
    check_entry,
)
from ..tags import normalise_tag
from .colours import ColourField

BLANK = [("", "---------")]


def offer_pounds(field, pounds):
    """Offer `pounds` in a pound field, their choices from one plain read of them made when the
    form is drawn (the API's search never draws it): a ModelChoiceField's own iterator reads them
    through a server-side cursor, three round trips on every register page."""
    field.queryset = pounds
    field.choices = lambda: [
        ("", field.empty_label),
        *((p.pk, field.label_from_instance(p)) for p in pounds),
    ]


class EntryForm(forms.Form):
    """s.8: what the register records when cattle are brought to the pound."""

    pound = forms.ModelChoiceField(queryset=None, label=_("Pound"))
    # One entry however often the form is sent (services.intake.create_entry).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    arrived_at = DayTimeField(label=_("Day and hour of arrival at the pound"))
    seized_at = DayTimeField(label=_("Day and hour of seizure"))
    seizure_place = forms.CharField(
        label=_("Place of seizure"),
        max_length=200,
        help_text=_(
            "A field, road or landmark, without anyone's name: the public notice board shows it."
        ),
    )
    notice_description = forms.CharField(
        label=_("Description for the public notice"),
        max_length=160,
        required=False,
        help_text=_(
            "Optional. What the public board may say to help the owner find his cattle: the "
            "place and the marks in plain words, with no one's name, house or phone."
        ),
    )
    notice_confirmed = forms.BooleanField(
        label=_("I have read it: it names no one and is fit to publish"),
        required=False,
    )
    seizure_village = forms.ModelChoiceField(
        queryset=None,
        required=False,
        label=_("Village where the cattle were seized"),
        help_text=_("For a s.10 seizure the land's village decides the pound (s.4)."),
    )
    basis = forms.ChoiceField(
        label=_("Basis of seizure"), choices=SeizureBasis.choices, widget=forms.RadioSelect
    )
    basis_other = forms.CharField(label=_("Notified basis"), max_length=200, required=False)
    s11_site = forms.ChoiceField(
        label=_("Public work (s.11)"), choices=BLANK + S11Site.choices, required=False
    )
    s11_ground = forms.ChoiceField(
        label=_("Ground (s.11)"), choices=BLANK + S11Ground.choices, required=False
    )
    damage_description = forms.CharField(
        label=_("Damage alleged"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    pound_choice_reason = forms.CharField(
        label=_("Why this pound (s.11: the nearest pound)"), max_length=200, required=False
    )
    seizer_name = forms.CharField(label=_("Seizer's name"), max_length=150)
    seizer_residence = forms.CharField(label=_("Seizer's residence"), max_length=250)
    seizer_capacity = forms.ChoiceField(
        label=_("Seizer's capacity"), choices=BLANK + SeizerCapacity.choices
    )
    seizer_phone = forms.CharField(label=_("Seizer's phone"), max_length=15, required=False)
    owner_name = forms.CharField(label=_("Owner's name, if known"), max_length=150, required=False)
    owner_residence = forms.CharField(
        label=_("Owner's residence, if known"), max_length=250, required=False
    )
    owner_phone = forms.RegexField(
        label=_("Owner's phone, if known"),
        regex=r"^\+?[0-9]{10,13}$",
        max_length=15,
        required=False,
        error_messages={"invalid": _("Enter the phone as 10 digits, such as 9876543210.")},
    )
    # The tag whose registered owner the keeper confirmed on the check page (ADR 0078).
    owner_from_tag = forms.CharField(required=False, max_length=30, widget=forms.HiddenInput)

    def __init__(self, *args, pounds, **kwargs):
        super().__init__(*args, **kwargs)
        offer_pounds(self.fields["pound"], pounds)
        if len(pounds) == 1:
            self.fields["pound"].initial = pounds[0]
            self.fields["pound"].widget = forms.HiddenInput()
        districts = {p.district_id for p in pounds}
        self.fields["seizure_village"].queryset = Village.objects.filter(
            district_id__in=districts
        ).order_by("name")

    def clean(self):
        return _checked(self, check_entry, super().clean())


def _checked(form, check, data):
    """`data` through the rule `check` the API applies too; its refusals beside their fields."""
    try:
        return check(data)
    except ValidationError as exc:
        form.add_error(None, exc)
        return data


class AnimalForm(forms.Form):
    species = forms.ChoiceField(label=_("Species"), choices=BLANK + Species.choices)
    sex = forms.ChoiceField(label=_("Sex"), choices=BLANK + Sex.choices)
    age_class = forms.ChoiceField(label=_("Age"), choices=BLANK + AgeClass.choices)
    colour = ColourField()
    marks = forms.CharField(label=_("Marks or brands"), max_length=250, required=False)
    ear_tag = forms.CharField(
        label=_("Ear-tag number"),
        max_length=30,
        required=False,
        help_text=_("A 12-digit Pashu Aadhaar tag is checked by its last digit."),
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )
    tag_confirmed = forms.BooleanField(
        label=_("The tag reads as written: keep it although it fails the check"),
        required=False,
    )
    photo = PhotoField(
        label=_("Photo"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": "image/*", "capture": "environment"}),
        help_text=_("Optional. Taken with the phone's camera; resized before it is stored."),
    )

    # A photo chosen on an earlier showing of the form, held until the entry is made
    # (kernel.held_uploads).
    photo_held = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_ear_tag(self):
        return normalise_tag(self.cleaned_data["ear_tag"])

    def clean(self):
        return _checked(self, check_animal, super().clean())


class BaseAnimalFormSet(forms.BaseFormSet):
    item_label = _("Animal %(number)s")  # in the error summary

    def clean(self):
        if any(self.errors):
            return
        filled = [f for f in self.forms if f.cleaned_data and not f.cleaned_data.get("DELETE")]
        if not filled:
            raise ValidationError(_("Enter at least one animal."))


AnimalFormSet = forms.formset_factory(
    AnimalForm, formset=BaseAnimalFormSet, extra=0, min_num=1, max_num=100, validate_max=True
)


class RegisterSearchForm(forms.Form):
    q = forms.CharField(
        label=_("Register number, ear tag or owner's name"), required=False, max_length=100
    )
    pound = forms.ModelChoiceField(
        queryset=None, required=False, label=_("Pound"), empty_label=_("All my pounds")
    )
    date_from = DayField(label=_("Arrived from"), required=False)
    date_to = DayField(label=_("Arrived until"), required=False)

    def __init__(self, *args, pounds, **kwargs):
        super().__init__(*args, **kwargs)
        offer_pounds(self.fields["pound"], pounds)


class EntryAmendForm(forms.ModelForm):
    reason = forms.CharField(
        label=_("Reason for the correction"),
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    class Meta:
        model = Impoundment
        fields = AMENDABLE_ENTRY_FIELDS
        field_classes = {"seized_at": DayTimeField}
        widgets = {
            "damage_description": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seizure_village"].queryset = Village.objects.filter(
            district_id=self.instance.pound.district_id
        )

    def _post_clean(self):
        # Validation of the whole record happens in the service, on the amended copy.
        pass

    def changes(self):
        changes = {
            f: self.cleaned_data[f] for f in self.changed_data if f in AMENDABLE_ENTRY_FIELDS
        }
        # The picker shows minutes: an unchanged time must not read as a correction.
        if "seized_at" in changes and changes["seized_at"] and self.instance.seized_at:
            new, old = changes["seized_at"], self.instance.seized_at
            if new.replace(second=0, microsecond=0) == old.replace(second=0, microsecond=0):
                del changes["seized_at"]
        return changes


class AnimalAmendForm(forms.Form):
    """The fields services.intake lets a correction change, asked as on arrival, and why."""

    reason = EntryAmendForm.base_fields["reason"]

    clean_ear_tag = AnimalForm.clean_ear_tag

    def clean(self):
        return _checked(self, check_animal, super().clean())

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        reason = self.fields.pop("reason")
        for name in (*AMENDABLE_ANIMAL_FIELDS, "tag_confirmed"):
            self.fields[name] = copy.deepcopy(AnimalForm.base_fields[name])
        self.fields["reason"] = reason

    def changes(self):
        return {
            f: self.cleaned_data[f]
            for f in self.changed_data
            if f not in ("reason", "tag_confirmed")
        }
