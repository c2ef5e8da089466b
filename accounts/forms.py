import uuid

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _


class LoginForm(AuthenticationForm):
    # One message for an unknown user, a wrong password and an inactive account alike, so that
    # the form never tells an outsider which user names exist.
    error_messages = {
        "invalid_login": _(
            "That user name and password do not match an active account. Check both and try again."
        ),
        "inactive": _(
            "That user name and password do not match an active account. Check both and try again."
        ),
    }

    username = forms.CharField(
        label=_("User name"),
        max_length=150,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "username"}),
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class ReissueForm(forms.Form):
    reason = forms.CharField(
        label=_("Why is the document being reissued?"),
        max_length=200,
        help_text=_("The file issued before is kept, and its fingerprint stays on the check page."),
    )


class ApiTokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name of the token"),
        max_length=80,
        help_text=_("Say what will use it, for example “State dashboard”."),
    )
    # One token however often the form is sent (services.create_api_token).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
