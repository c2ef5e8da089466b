"""The second factor's pages (docs/decisions/0053-second-factor.md): the code after the password,
setting an authenticator up (QR code and the key as text), the recovery codes shown once, new
recovery codes from the account page, and an administrator's reset of a lost factor."""

from base64 import b32encode

import segno
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_otp import login as otp_login
from django_otp.plugins.otp_static.models import StaticDevice

from kernel.views import add_service_errors

from . import ceremonies, twofactor
from .decorators import require_permission
from .forms import (
    AuthenticatorSetupForm,
    PasskeyAddForm,
    PasskeyRemoveForm,
    PasskeySignInForm,
    SecondFactorForm,
)
from .models import Passkey, User
from .roles import Permission
from .twofactor import second_factor_not_required

CODES_KEY = "second_factor_recovery_codes"


def _next_url(request):
    url = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return "/"


def _with_next(name, request):
    return f"{reverse(name)}?{urlencode({'next': _next_url(request)})}"


def _grouped(key):
    """The key in groups of four, as authenticator apps show and take it."""
    text = b32encode(key).decode()
    return " ".join(text[i : i + 4] for i in range(0, len(text), 4))


def _warn_if_recovery_code(request, device):
    if not isinstance(device, StaticDevice):
        return
    left = twofactor.recovery_codes_left(request.user)
    message = _("You used a recovery code: %(left)s left. Make new ones from your account page.")
    messages.warning(request, message % {"left": left})


@second_factor_not_required
def verify(request):
    """After the password: the authenticator's code, or a recovery code."""
    if request.user.is_verified():
        return redirect(_next_url(request))
    if not twofactor.has_second_factor(request.user):
        return redirect(_with_next("accounts:second_factor_setup", request))
    form = SecondFactorForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        device = twofactor.check_code(user=request.user, code=form.cleaned_data["code"])
        if device is None:
            form.add_error(
                "code",
                _(
                    "That code does not match, or was used already. Enter the code the app "
                    "shows now, or an unused recovery code; after several wrong codes, wait a "
                    "little before trying again."
                ),
            )
        else:
            otp_login(request, device)
            _warn_if_recovery_code(request, device)
            return redirect(_next_url(request))
    context = {
        "form": form,
        "next": _next_url(request),
        # A passkey too, where the user has one and the browser can use it (passkeys.js).
        "passkey_options": ceremonies.authentication_options(
            user=request.user, session=request.session
        ),
        "passkey_form": PasskeySignInForm(),
    }
    return render(request, "accounts/second_factor.html", context)


@second_factor_not_required
@require_POST
def passkey_sign_in(request):
    """After the password, a passkey instead of the app's code: the browser's answer to the
    challenge the code page gave."""
    if request.user.is_verified():
        return redirect(_next_url(request))
    form = PasskeySignInForm(request.POST)
    try:
        if not form.is_valid():
            raise ceremonies.refused()
        passkey = ceremonies.check_passkey(
            user=request.user, session=request.session, credential=form.cleaned_data["credential"]
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(_with_next("accounts:second_factor", request))
    otp_login(request, passkey)
    return redirect(_next_url(request))


@second_factor_not_required
def setup(request):
    """Add an authenticator: the QR code and the key as text, then its first code. Someone
    who has one and has not given its code this session is sent to give it."""
    user = request.user
    if twofactor.has_second_factor(user) and not user.is_verified():
        return redirect(_with_next("accounts:second_factor", request))
    form = AuthenticatorSetupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            device, codes = twofactor.confirm_authenticator(
                user=user, code=form.cleaned_data["code"]
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            otp_login(request, device)
            request.session[CODES_KEY] = codes
            return redirect(_with_next("accounts:second_factor_codes", request))
    device = twofactor.pending_authenticator(user=user)
    qr = segno.make(device.config_url, error="m")
    context = {
        "form": form,
        "qr_svg": qr.svg_inline(scale=4, border=2, dark="#000", light="#fff"),
        "key": _grouped(device.bin_key),
        "required": twofactor.must_have_second_factor(user),
        "replacing": twofactor.has_second_factor(user),
        "next": _next_url(request),
    }
    return render(request, "accounts/second_factor_setup.html", context)


def recovery_codes(request):
    """The recovery codes just made, shown this once: the session forgets them as it shows them."""
    codes = request.session.pop(CODES_KEY, None)
    if not codes:
        messages.info(request, _("Recovery codes are shown only once, when they are made."))
        return redirect("accounts:profile")
    return render(
        request,
        "accounts/second_factor_codes.html",
        {"codes": codes, "next": _next_url(request)},
    )


@require_POST
def new_recovery_codes(request):
    try:
        codes = twofactor.new_recovery_codes(user=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("accounts:profile")
    request.session[CODES_KEY] = codes
    return redirect("accounts:second_factor_codes")


@require_permission(Permission.MANAGE_STAFF)
def reset(request, pk):
    """An administrator removes a user's lost second factor: GET asks, POST does it."""
    user = get_object_or_404(User.objects.filter(is_service_account=False), pk=pk)
    if request.method == "POST":
        twofactor.reset_second_factor(user=user, by=request.user)
        messages.success(
            request,
            _("The second factor of %(user)s was reset. They have been sent an e-mail.")
            % {"user": user.username},
        )
        return redirect("accounts:staff")
    return render(
        request,
        "accounts/second_factor_reset.html",
        {"person": user, "has_factor": twofactor.has_second_factor(user)},
    )


# --- Passkeys, added and removed by their user (docs/decisions/0061-passkeys.md) ---------


def passkeys(request):
    """The user's passkeys, and a new one added: the browser answers the page's challenge."""
    user = request.user
    form = PasskeyAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            passkey = ceremonies.add_passkey(
                user=user,
                session=request.session,
                credential=data["credential"],
                name=data["name"],
                idempotency_key=data["idempotency_key"],
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("Passkey “%(name)s” added.") % {"name": passkey.name})
            return redirect("accounts:passkeys")
    has_factor = twofactor.has_second_factor(user)
    context = {
        "form": form,
        "passkeys": Passkey.objects.filter(user=user),
        "has_factor": has_factor,
        "options": (
            ceremonies.registration_options(user=user, session=request.session)
            if has_factor
            else None
        ),
    }
    return render(request, "accounts/passkeys.html", context)


def passkey_remove(request, pk):
    """Remove one of one's passkeys: GET asks, POST does it. Sent again, it is gone already."""
    passkey = Passkey.objects.filter(user=request.user, pk=pk).first()
    form = PasskeyRemoveForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        removed = passkey and ceremonies.remove_passkey(passkey=passkey, by=request.user)
        if removed:
            messages.success(request, _("Passkey “%(name)s” removed.") % {"name": removed.name})
        else:
            messages.info(request, _("That passkey was removed already."))
        return redirect("accounts:passkeys")
    if passkey is None:
        raise Http404
    return render(request, "accounts/passkey_remove.html", {"passkey": passkey, "form": form})


logout = second_factor_not_required(auth_views.LogoutView.as_view())
