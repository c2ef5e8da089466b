"""The administrator's choice of a district's rule pack (views.choose)."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy as _


class PackChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj):
        label = f"{obj.title} ({obj.code} {obj.version})"
        return label if obj.verified else f"{label}: {_('unverified')}"


class ChoosePackForm(forms.Form):
    pack = PackChoiceField(
        label=_("Rule pack"),
        queryset=None,
        empty_label=None,
        widget=forms.RadioSelect,
        help_text=_(
            "The central Act's pack, and the packs of the district's own State. A register "
            "entry already made keeps the version it was made under."
        ),
        error_messages={"invalid_choice": _("Choose one of the packs listed.")},
    )
    # One choice however often the form is sent (services.choose_pack).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)

    def __init__(self, *args, packs, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["pack"].queryset = packs
