"""The treasury scroll's upload (docs/decisions/0082)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import District

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
