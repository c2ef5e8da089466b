"""The second factor (docs/decisions/0053-second-factor.md): a TOTP authenticator app through
django-otp, with ten single-use recovery codes (its static-token device).

- The rule: a user appointed to a role of SECOND_FACTOR_ROLES (the Magistrate, the office's
  clerk, the auditor, the administrator), or a superuser, must have an authenticator; anyone else
  may add one from their account page. Whoever has one gives its code after the password.
- `SecondFactorMiddleware`, after django-otp's (which marks `request.user` verified once a code
  was given in this session), sends a signed-in user who has not given a code to the code page,
  or to set an authenticator up where the rule requires one. Public pages (`login_not_required`,
  the API among them: bearer tokens, never a session) and the pages of this flow
  (`@second_factor_not_required`) are let through; the admin never is.
- The services: setting up (an unconfirmed device until a code from it is given), checking a
  code, new recovery codes, and an administrator's reset of a lost factor, recorded and mailed.
"""

import re

import django_otp
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import EmailMessage
from django.db import transaction
from django.tasks import task
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from kernel.events import record_event
from kernel.messages import Message

from .actions import Action
from .models import StaffEvent, User
from .passkeys import Passkey
from .roles import SECOND_FACTOR_ROLES, Permission, Scope
from .scoping import grants_for, has_permission, roles_of

RECOVERY_CODES = 10
AUTHENTICATOR_NAME = "authenticator"
RECOVERY_NAME = "recovery codes"
TOTP_CODE = re.compile(r"\d{6}")
NO_FACTOR_KEY = "second_factor_none"
RECOVERY_SALT = "poundadmin.accounts.recovery-code"


def must_have_second_factor(user):
    if not user.is_authenticated or user.is_service_account:
        return False
    return user.is_superuser or bool(SECOND_FACTOR_ROLES.intersection(roles_of(user)))


def has_second_factor(user):
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def second_factor_not_required(view):
    """A page of the second factor's own flow (or sign-out): open before the code is given."""
    view.second_factor_required = False
    return view


class SecondFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        user = request.user
        if not user.is_authenticated or user.is_verified():
            return None
        if getattr(view_func, "second_factor_required", True) is False:
            return None
        match = request.resolver_match
        is_admin = match is not None and match.namespace == "admin"
        if getattr(view_func, "login_required", True) is False and not is_admin:
            return None
        # A user found without an authenticator keeps none for the session unless they set one
        # up (and are verified by that): asked once, not on every request.
        if request.session.get(NO_FACTOR_KEY) != user.pk:
            if has_second_factor(user):
                return redirect_to_login(request.get_full_path(), reverse("accounts:second_factor"))
            request.session[NO_FACTOR_KEY] = user.pk
        if must_have_second_factor(user):
            return redirect_to_login(
                request.get_full_path(), reverse("accounts:second_factor_setup")
            )
        return None


# --- Setting up and checking ------------------------------------------------------------


@transaction.atomic
def pending_authenticator(*, user):
    """The authenticator being set up: made on the first call, the same one (and so the same QR
    code) on every later call until a code from it confirms it."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name=AUTHENTICATOR_NAME, confirmed=False)
    return device


def confirm_authenticator(*, user, code):
    """Confirm the pending authenticator with a code it shows; returns (device, recovery codes).
    The code is checked first, in a transaction of its own, so that a wrong one still counts
    against the device's throttle."""
    device = pending_authenticator(user=user)
    if django_otp.verify_token(user, device.persistent_id, code) is None:
        raise ValidationError(
            {"code": _("That code does not match. Enter the 6-digit code the app shows now.")}
        )
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user).exclude(pk=device.pk).delete()
        TOTPDevice.objects.filter(pk=device.pk).update(confirmed=True)
        device.confirmed = True
        codes = _replace_recovery_codes(user)
        StaffEvent.objects.create(user=user, action=StaffEvent.Action.FACTOR_SET_UP, by=user)
    return device, codes


def stored_recovery_code(code):
    """What the database keeps of a recovery code: a keyed hash, never the code, so that a copy
    of the database does not hand out second factors. It is keyed by SECRET_KEY: a new key
    voids the codes, and their users print new ones (docs/decisions/0053-second-factor.md)."""
    return salted_hmac(RECOVERY_SALT, normalise_code(code), algorithm="sha256").hexdigest()[:16]


def _replace_recovery_codes(user):
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name=RECOVERY_NAME, confirmed=True)
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create(
        StaticToken(device=device, token=stored_recovery_code(c)) for c in codes
    )
    return codes


@transaction.atomic
def new_recovery_codes(*, user):
    """Ten new recovery codes in place of the old ones, for a user with an authenticator."""
    if not has_second_factor(user):
        raise ValidationError(_("Set up an authenticator app first."))
    codes = _replace_recovery_codes(user)
    StaffEvent.objects.create(user=user, action=StaffEvent.Action.RECOVERY_CODES, by=user)
    return codes


def normalise_code(code):
    return "".join(code.split()).replace("-", "").lower()


def check_code(*, user, code):
    """The device that accepts `code` (6 digits: the authenticator; otherwise a recovery code,
    used up by this), or None. Each device counts its failures and makes the next try wait."""
    code = normalise_code(code)
    totp = TOTP_CODE.fullmatch(code)
    device_class = TOTPDevice if totp else StaticDevice
    device = device_class.objects.filter(user=user, confirmed=True).first()
    if device is None:
        return None
    return django_otp.verify_token(
        user, device.persistent_id, code if totp else stored_recovery_code(code)
    )


def recovery_codes_left(user):
    return StaticToken.objects.filter(device__user=user, device__confirmed=True).count()


# --- An administrator resets a lost factor ---------------------------------------------


def _check_may_reset(*, user, by):
    """An administrator over every place the user is appointed to (system-wide for a
    system-wide user); never one's own, which another administrator resets."""
    if user.pk == by.pk:
        raise PermissionDenied(_("Another administrator resets your own second factor."))
    refused = PermissionDenied(_("Your role does not allow this here."))
    if not has_permission(by, Permission.MANAGE_STAFF):
        raise refused
    assignments = user.assignments.active().select_related(
        "state", "district", "police_station", "pound"
    )
    for a in assignments:
        place = a.state or a.district or a.police_station or a.pound
        if place is None:
            if not any(
                g.scope == Scope.NONE and g.allows(Permission.MANAGE_STAFF) for g in grants_for(by)
            ):
                raise refused
        elif not has_permission(by, Permission.MANAGE_STAFF, place):
            raise refused


def _chain_of(user):
    """The pound or district whose event chain records a change to `user`: that of the first
    appointment in force with one (a State-wide or system-wide user has none)."""
    for a in user.assignments.active().select_related("pound", "district", "police_station"):
        if a.pound is not None:
            return {"pound": a.pound}
        if a.district is not None:
            return {"district": a.district}
        if a.police_station is not None:
            return {"district": a.police_station.district}
    return None


@transaction.atomic
def reset_second_factor(*, user, by):
    """Remove `user`'s authenticator, recovery codes and passkeys (lost with a phone): the next
    sign-in sets a new authenticator up. Recorded as a staff event and in the event log of the
    user's district or pound, and mailed to the user once the change commits."""
    user = User.objects.select_for_update(of=("self",)).get(pk=user.pk)
    _check_may_reset(user=user, by=by)
    removed = TOTPDevice.objects.filter(user=user).delete()[0]
    removed += StaticDevice.objects.filter(user=user).delete()[0]
    passkeys = Passkey.objects.filter(user=user).delete()[0]
    removed += passkeys
    StaffEvent.objects.create(
        user=user, action=StaffEvent.Action.FACTOR_RESET, by=by, note="second factor reset"
    )
    chain = _chain_of(user)
    if chain is not None:
        record_event(
            action=Action.SECOND_FACTOR_RESET,
            section="",
            summary=Message(
                gettext_noop("Second factor of %(username)s reset by an administrator"),
                username=user.username,
            ),
            by=by,
            data={"user": user.pk, "username": user.username, "passkeys": passkeys},
            **chain,
        )
    transaction.on_commit(lambda: mail_second_factor_reset.enqueue(user.pk), robust=True)
    return removed


@task()
def mail_second_factor_reset(user_id):
    """Tell the user their second factor was reset, so that a reset they did not ask for is
    noticed. In English, as the to-dos' mail is. Returns whether a mail went."""
    user = User.objects.get(pk=user_id)
    if not user.email:
        return False
    when = timezone.localtime()
    body = (
        f"The second factor of your PoundAdmin account {user.username} was reset by an "
        f"administrator on {when:%d-%m-%Y} at {when:%H:%M} IST.\n\n"
        "Its authenticator app, recovery codes and passkeys were removed. At your next sign-in "
        "you will set up an authenticator app again.\n"
        "If you did not ask for this, tell your office and the administrator at once.\n\n"
        "PoundAdmin"
    )
    EmailMessage(
        subject="[PoundAdmin] Your second factor was reset", body=body, to=[user.email]
    ).send()
    return True
