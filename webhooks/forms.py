"""The administrator's form for a new webhook (webhooks.views.subscriptions)."""

import uuid

from django import forms
from django.utils.translation import gettext_lazy

from accounts.models import ApiToken

from .services import Topic


class SubscriptionForm(forms.Form):
    token = forms.ModelChoiceField(
        label=gettext_lazy("Service token"),
        queryset=None,
        help_text=gettext_lazy(
            "The State system it is for: it hears only of what this token may read."
        ),
    )
    url = forms.URLField(
        label=gettext_lazy("Address"),
        max_length=500,
        assume_scheme="https",
        help_text=gettext_lazy("Where each event is sent, for example https://state.gov.in/hooks."),
    )
    topics = forms.MultipleChoiceField(
        label=gettext_lazy("Topics"),
        choices=Topic.choices,
        widget=forms.CheckboxSelectMultiple,
    )
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)

    def __init__(self, *args, tokens, **kwargs):
        super().__init__(*args, **kwargs)
        live = [t.pk for t in tokens if t.is_live]
        self.fields["token"].queryset = ApiToken.objects.filter(pk__in=live).order_by("name")
