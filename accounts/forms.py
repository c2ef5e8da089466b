import uuid

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _

from kernel.forms import DayField

from .relatives import DeclaredRelative
from .roles import Role
from .services import default_token_expiry


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

    def confirm_login_allowed(self, user):
        super().confirm_login_allowed(user)
        if user.is_service_account:  # a State system's: it calls the API with its token only
            raise forms.ValidationError(self.error_messages["invalid_login"], code="invalid_login")


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
    expires_on = DayField(
        label=_("Expires on"),
        initial=default_token_expiry,
        required=False,  # empty: 90 days from today
        help_text=_(
            "The token works to the end of this day: 90 days from today unless you choose, "
            "and a year at most."
        ),
    )
    # One token however often the form is sent (services.create_api_token).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)


class PairDeviceForm(forms.Form):
    """Pair this phone with the field app (accounts.device_tokens.pair_device)."""

    label = forms.CharField(
        label=_("Name of this phone"),
        max_length=80,
        initial=_("Pound phone"),
        help_text=_("Pairing a phone of the same name again replaces its earlier token."),
    )
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)


class ServiceTokenForm(forms.Form):
    """A State system's token (services.create_service_token checks the rules again)."""

    name = forms.CharField(
        label=_("Name of the token"),
        max_length=80,
        help_text=_("Say which system will use it, for example “State dashboard”."),
    )
    role = forms.ChoiceField(
        label=_("Role"),
        help_text=_("The token reads and does what a member of staff in this role may."),
    )
    state = forms.ModelChoiceField(label=_("State"), queryset=None, required=False)
    district = forms.ModelChoiceField(label=_("District"), queryset=None, required=False)
    # A police officer's token (the police's CCTNS) is for a police station or a pound.
    police_station = forms.ModelChoiceField(
        label=_("Police station"), queryset=None, required=False
    )
    pound = forms.ModelChoiceField(label=_("Pound"), queryset=None, required=False)
    expires_on = DayField(
        label=_("Expires on"),
        help_text=_("The token works to the end of this day, and for a year at most."),
    )
    rate_per_minute = forms.IntegerField(
        label=_("Requests a minute (optional)"),
        required=False,
        min_value=1,
        max_value=6000,
    )
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)

    def __init__(self, *args, states, districts, police_stations, pounds, usual_rate, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["role"].choices = [
            (value, text) for value, text in Role.choices if value != Role.ADMINISTRATOR
        ]
        self.fields["state"].queryset = states
        self.fields["district"].queryset = districts
        self.fields["police_station"].queryset = police_stations
        self.fields["pound"].queryset = pounds
        jurisdiction_help = _(
            "Choose one of State, district, police station and pound, as the role requires."
        )
        self.fields["state"].help_text = jurisdiction_help
        self.fields["rate_per_minute"].help_text = _(
            "Leave it empty for the usual %(rate)s requests a minute."
        ) % {"rate": usual_rate}


class SecondFactorForm(forms.Form):
    """The code asked for after the password: the authenticator's, or a recovery code."""

    code = forms.CharField(
        label=_("Code"),
        max_length=20,
        help_text=_(
            "The 6-digit code your authenticator app shows now, or one of your recovery codes."
        ),
        widget=forms.TextInput(
            attrs={
                "autocomplete": "one-time-code",
                "autocapitalize": "none",
                "spellcheck": "false",
                "autofocus": True,
            }
        ),
    )


class AuthenticatorSetupForm(forms.Form):
    """The first code from a newly added authenticator, which proves it was added."""

    code = forms.CharField(
        label=_("Code from the app"),
        max_length=10,
        help_text=_("The 6-digit code the app shows for PoundAdmin, for example 123456."),
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "spellcheck": "false"}
        ),
    )

    def clean_code(self):
        code = "".join(self.cleaned_data["code"].split())
        if not (len(code) == 6 and code.isdigit()):
            raise forms.ValidationError(
                _("Enter the 6 digits the app shows, for example 123456."), code="format"
            )
        return code


class RelativeEditForm(forms.ModelForm):
    """One declared relative's particulars (s.19): what a bidder who is he would give."""

    class Meta:
        model = DeclaredRelative
        fields = ["name", "name_hi", "relation", "phone", "id_number"]
        widgets = {
            "phone": forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "off"}),
            "id_number": forms.TextInput(attrs={"autocomplete": "off"}),
        }


class RelativeForm(RelativeEditForm):
    # One relative however often the form is sent (services.declare_relative).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)


class PasskeyAddForm(forms.Form):
    """A passkey's name, and the browser's answer to the registration challenge (filled in by
    static/js/passkeys.js)."""

    name = forms.CharField(
        label=_("Name of the passkey"),
        max_length=64,
        help_text=_("Say which phone, computer or key it is on, for example “Office laptop”."),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    credential = forms.CharField(
        widget=forms.HiddenInput,
        max_length=20000,
        error_messages={"required": _("The browser gave no passkey. Try again.")},
    )
    # One passkey however often the form is sent (ceremonies.add_passkey).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)


class PasskeySignInForm(forms.Form):
    """The browser's answer to the sign-in challenge (filled in by static/js/passkeys.js)."""

    credential = forms.CharField(widget=forms.HiddenInput, max_length=20000)


class PasskeyRemoveForm(forms.Form):
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
