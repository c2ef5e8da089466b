"""Forms for the s.14 screens. Each form's cleaned_data is the keyword arguments of one service
in `auctions.services`; the services keep the rules (dates, the place of a drum proclamation)."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import District, Pound, Village
from impounding.models import Species
from kernel import clock
from kernel.forms import DayField, PhotoField

from ..models import Notice, Proclamation


class ReportSendForm(forms.Form):
    """Sending the report is a confirmation: the service works out the animals and the officer.
    The form only carries the service's refusals back to the page."""


class NoticeForm(forms.ModelForm):
    class Meta:
        model = Notice
        fields = ["posted_on", "posted_at", "seizure_place"]
        labels = {
            "posted_on": _("Date the notice was stuck up"),
            "posted_at": _("Where it was stuck up"),
            "seizure_place": _("Place where the cattle were seized, as the notice states it"),
        }
        help_texts = {
            "posted_on": _(
                "The seven days for a claim run from the day after this date, and the cattle may "
                "be sold from the eighth day (s.14)."
            ),
            "posted_at": _("A conspicuous part of your office, for example its notice board."),
        }
        field_classes = {"posted_on": DayField}

    def __init__(self, *args, report, **kwargs):
        super().__init__(*args, **kwargs)
        today = clock.today(report.impoundment.pound)
        station = report.police_station.label
        self.fields["posted_on"].initial = today
        self.fields["posted_at"].initial = _("Notice board, %(station)s office") % {
            "station": station
        }
        entry = report.impoundment
        if entry.notice_description or entry.seizure_village_id:
            self.fields["seizure_place"].help_text = _(
                "Optional: the notice gives the place the register confirmed fit to publish. "
                "State it here only if that is vague, without anyone's name."
            )
        else:
            self.fields["seizure_place"].help_text = _(
                "The register gives no place fit to publish: state where the cattle were seized "
                "(s.14(b)), for example the road or landmark, without anyone's name."
            )


def _village_choices(district, seizure_village):
    """The villages of the district, the likely ones first: the village of seizure (for the
    drum in the village), then those with a market-place (for the drum at the market)."""
    villages = list(Village.objects.filter(district=district).order_by("name"))
    markets = [(v.pk, v.label) for v in villages if v.has_market]
    seizure = [(v.pk, v.label) for v in villages if seizure_village and v.pk == seizure_village.pk]
    others = [
        (v.pk, v.label) for v in villages if not v.has_market and (v.pk, v.label) not in seizure
    ]
    choices = [("", "---------")]
    if seizure:
        choices.append((_("Village of seizure"), seizure))
    if markets:
        choices.append((_("Villages with a market-place"), markets))
    if others:
        choices.append((_("Other villages of the district"), others))
    return choices, {v.pk: v for v in villages}


class ProclamationForm(forms.Form):
    channel = forms.ChoiceField(
        label=_("How it was proclaimed"),
        choices=Proclamation.Channel.choices,
        widget=forms.RadioSelect,
        help_text=_(
            "The Act requires the beat of drum in the village and at the market-place nearest "
            "the place of seizure. Further channels are recorded separately; they never replace "
            "the drum."
        ),
    )
    made_on = DayField(label=_("Date"))
    village = forms.TypedChoiceField(
        label=_("Village"), required=False, coerce=int, empty_value=None
    )
    place = forms.CharField(
        label=_("Place"),
        max_length=200,
        required=False,
        help_text=_("For example the chaupal, the haat or the main crossing."),
    )
    made_by = forms.CharField(
        label=_("Made by"),
        max_length=150,
        help_text=_(
            "Who beat the drum or made the announcement, for example the village chowkidar."
        ),
    )
    details = forms.CharField(
        label=_("Details"),
        max_length=250,
        required=False,
        help_text=_("For a newspaper, its name and edition; for an SMS, to whom it went."),
    )
    photo = PhotoField(
        label=_("Photo"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": "image/*", "capture": "environment"}),
        help_text=_("Optional. Taken with the phone's camera; resized before it is stored."),
    )

    def __init__(self, *args, notice, channel=None, **kwargs):
        super().__init__(*args, **kwargs)
        entry = notice.report.impoundment
        choices, self._villages = _village_choices(notice.pound.district, entry.seizure_village)
        self.fields["village"].choices = choices
        self.fields["village"].help_text = _(
            "The village of seizure and the villages with a market-place come first."
        )
        today = clock.today(notice.pound)
        self.fields["made_on"].initial = today
        if channel in Proclamation.Channel.values:
            self.fields["channel"].initial = channel
        if self.fields["channel"].initial == Proclamation.Channel.DRUM_VILLAGE:
            self.fields["village"].initial = entry.seizure_village_id
        elif self.fields["channel"].initial == Proclamation.Channel.DRUM_MARKET:
            markets = [v for v in self._villages.values() if v.has_market]
            if len(markets) == 1:
                self.fields["village"].initial = markets[0].pk

    def clean_village(self):
        pk = self.cleaned_data.get("village")
        return self._villages.get(pk) if pk else None


class BoardFilterForm(forms.Form):
    district = forms.ModelChoiceField(
        label=_("District"), queryset=District.objects.none(), required=False
    )
    pound = forms.ModelChoiceField(label=_("Pound"), queryset=Pound.objects.none(), required=False)
    species = forms.ChoiceField(label=_("Animal"), required=False)
    village = forms.ModelChoiceField(
        label=_("Village where it was seized"), queryset=Village.objects.none(), required=False
    )
    tag = forms.CharField(
        label=_("Ear-tag number"),
        required=False,
        max_length=40,
        help_text=_("The whole number, as on the tag. The board does not show tags."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["district"].queryset = District.objects.filter(pounds__isnull=False).distinct()
        self.fields["pound"].queryset = Pound.objects.active().select_related("district")
        self.fields["pound"].label_from_instance = lambda p: f"{p.label} ({p.district.label})"
        self.fields["district"].empty_label = _("All districts")
        self.fields["pound"].empty_label = _("All pounds")
        self.fields["species"].choices = [("", _("All animals")), *Species.choices]
        self.fields["village"].queryset = Village.objects.filter(
            district__pounds__isnull=False
        ).distinct()
        self.fields["village"].empty_label = _("All villages")


class ProclamationPageForm(ProclamationForm):
    """The proclamation form of the web page: made once with the page, so that sending it twice
    records one proclamation (see record_proclamation). The API's calls carry their key in the
    Idempotency-Key header instead."""

    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
