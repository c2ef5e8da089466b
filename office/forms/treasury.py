"""The treasury scroll's upload (docs/decisions/0082), and the challan of a surplus transfer to
the State: recorded by the office's clerk, confirmed by another person (ADR 0076)."""

import uuid

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import District
from kernel.forms import DayField

MAX_SCROLL_BYTES = 2 * 1024 * 1024


class ScrollUploadForm(forms.Form):
    district = forms.ModelChoiceField(queryset=District.objects.none(), label=_("District"))
    file = forms.FileField(
        label=_("Treasury scroll (CSV)"),
        help_text=_("Columns: grn, cin, amount, scroll_number, scroll_date (DD-MM-YYYY)."),
    )

    def __init__(self, *args, districts, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["district"].queryset = districts
        only = list(districts[:2])
        if len(only) == 1:
            self.fields["district"].initial = only[0]

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_SCROLL_BYTES:
            raise forms.ValidationError(_("The file is larger than 2 MB."))
        return upload


class SurplusChallanForm(forms.Form):
    """The GRN of the challan that carried a surplus to the State (s.17), with the bank's CIN
    and the treasury scroll when already known; cleaned_data is record_surplus_transfer's."""

    # Made once with the form: sending it twice records one challan.
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    grn = forms.CharField(
        label=_("GRN (challan's government reference number)"),
        max_length=80,
        help_text=_("As printed on the e-GRAS or GRAS challan."),
    )
    cin = forms.CharField(
        label=_("CIN (bank's challan identification number)"),
        max_length=40,
        required=False,
        help_text=_("If the bank has given it."),
    )
    scroll_number = forms.CharField(
        label=_("Treasury scroll number"), max_length=40, required=False
    )
    scroll_date = DayField(label=_("Scroll date"), required=False)

    def __init__(self, *args, today=None, **kwargs):
        super().__init__(*args, **kwargs)
        today = today or timezone.localdate()  # the district's day (ADR 0080)
        self.fields["scroll_date"].widget.attrs["max"] = today.isoformat()

    def clean_grn(self):
        return " ".join(self.cleaned_data["grn"].split())


class ConfirmChallanForm(forms.Form):
    """Another person than the recorder confirms the challan against the treasury's scroll,
    completing the CIN and the scroll where they are not yet known."""

    checked = forms.BooleanField(
        label=_("I have checked this GRN, CIN and scroll against the treasury's scroll."),
    )
    cin = forms.CharField(
        label=_("CIN (bank's challan identification number)"), max_length=40, required=False
    )
    scroll_number = forms.CharField(
        label=_("Treasury scroll number"), max_length=40, required=False
    )
    scroll_date = DayField(label=_("Scroll date"), required=False)

    def clean(self):
        data = super().clean()
        data.pop("checked", None)  # an attestation, not an argument of the service
        return data
