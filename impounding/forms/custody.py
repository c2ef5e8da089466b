"""Forms for the pound-keeper's custody screens (s.9, s.24). Each form's cleaned_data is the
keyword arguments of one service in `impounding.services.custody`; the services keep the rules
(time not in the future, not before arrival, allowed transitions)."""

import uuid

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from kernel import clock
from kernel.forms import DayField, DayTimeField

from ..models import CustodyEvent, FeedingLog, Sex
from .colours import ColourField


def now_minute(of=None):
    """The minute it is at `of`'s pound: its training clock's in a training district (ADR
    0080), real time elsewhere."""
    return timezone.localtime(clock.now(of)).replace(second=0, microsecond=0)


class IstDateTimeField(DayTimeField):
    """A date and time in IST, typed DD-MM-YYYY HH:MM (kernel.dayfields, ADR 0081)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("label", _("Date and time (IST)"))
        super().__init__(**kwargs)


class CustodyEventForm(forms.Form):
    at = IstDateTimeField()

    def __init__(self, *args, of=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["at"].initial = now_minute(of)


def _text(name, *, required=False, **kwargs):
    return forms.CharField(
        max_length=CustodyEvent._meta.get_field(name).max_length, required=required, **kwargs
    )


class DeathForm(CustodyEventForm):
    cause = _text(
        "cause",
        required=True,
        label=_("Cause of death"),
        help_text=_('As far as it is known, for example "old age" or "not known".'),
    )
    vet_name = _text("vet_name", label=_("Veterinary officer"))
    certificate = _text("certificate", label=_("Post-mortem or death certificate number"))
    carcass_disposal = _text(
        "carcass_disposal",
        label=_("Carcass disposal"),
        help_text=_("How and where the carcass was disposed of."),
    )


class EscapeForm(CustodyEventForm):
    ESCAPED, RESCUED = CustodyEvent.Kind.ESCAPED, CustodyEvent.Kind.RESCUED

    kind = forms.ChoiceField(
        label=_("What happened"),
        choices=[
            (ESCAPED, _("Escaped from the pound")),
            (RESCUED, _("Rescued by force from custody (an offence under s.24)")),
        ],
        widget=forms.RadioSelect,
        initial=ESCAPED,
    )
    police_reference = _text(
        "police_reference",
        label=_("FIR or complaint reference"),
        help_text=_(
            "Strongly advised for a rescue: the s.24 offence is prosecuted on an FIR or a "
            "complaint to the Magistrate."
        ),
    )
    notes = forms.CharField(
        label=_("Notes"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Where, how, and who was seen, if anyone."),
    )
    field_order = ["kind", "at", "police_reference", "notes"]

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.pop("kind", None)
        cleaned["rescued"] = kind == self.RESCUED
        return cleaned


class ReturnForm(CustodyEventForm):
    at = IstDateTimeField(label=_("Back in the pound at (IST)"))
    notes = forms.CharField(
        label=_("Notes"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Where it was found and who brought it back."),
    )


class BirthForm(CustodyEventForm):
    # Made once with the form: sending it twice enters one calf (see record_birth).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    at = IstDateTimeField(label=_("Born at (IST)"))
    sex = forms.ChoiceField(
        label=_("Sex of the calf"),
        choices=[(Sex.FEMALE, Sex.FEMALE.label), (Sex.MALE, Sex.MALE.label)],
        widget=forms.RadioSelect,
    )
    colour = ColourField()
    marks = forms.CharField(label=_("Marks"), max_length=250, required=False)


class FeedingForm(forms.Form):
    # Made once with the form: sending it twice records one round (see log_feeding).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    date = DayField(label=_("Date"))
    animals_fed = forms.IntegerField(
        label=_("Animals fed and watered"),
        min_value=0,
        help_text=_("Filled in with the number of animals in the pound that day."),
    )
    fodder = forms.CharField(
        label=_("Fodder given"),
        max_length=FeedingLog._meta.get_field("fodder").max_length,
        help_text=_('Kind and quantity, for example "dry straw 40 kg, green fodder 20 kg".'),
    )
    watered = forms.BooleanField(
        label=_("All animals were given water"),
        required=False,
        initial=True,
    )
    cost = forms.DecimalField(
        label=_("Cost of fodder (₹)"),
        required=False,
        min_value=0,
        max_digits=10,
        decimal_places=2,
        widget=forms.NumberInput(attrs={"step": "0.01", "inputmode": "decimal"}),
    )
    remarks = forms.CharField(
        label=_("Health and other remarks"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean(self):
        cleaned = super().clean()
        if "watered" in cleaned and not cleaned["watered"] and not cleaned.get("remarks"):
            # Failing to give water is an offence (s.27): the reason must be on record.
            self.add_error("remarks", _("Say why the animals were not given water."))
        return cleaned


class FeedingDayForm(forms.Form):
    """The ?date= of the feeding log page: which day's record to show or enter."""

    date = DayField(required=False)

    def day(self, today=None):
        today = today or timezone.localdate()  # the pound's day (ADR 0080)
        if self.is_valid() and self.cleaned_data["date"]:
            return min(self.cleaned_data["date"], today)
        return today
