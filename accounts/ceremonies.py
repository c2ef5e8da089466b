"""The WebAuthn ceremonies for passkeys (docs/decisions/0061-passkeys.md), on the `webauthn`
package: adding a passkey (registration), signing in with one (authentication) as the second
factor after the password, removing one.

- The relying party is PoundAdmin's public address (PUBLIC_BASE_URL): its host is the RP ID, its
  scheme, host and port the only origin accepted. A passkey made on another address (a copy of
  the site, a phishing page) is refused by the browser and again here.
- A challenge is kept in the user's session (in the database, so every server sees it, never in
  one process's memory), for one purpose, for CHALLENGE_SECONDS, and is taken out as it is
  checked: each is good for one answer, right or wrong.
- A passkey is added beside the authenticator app, never instead of it: the app and its recovery
  codes stay the way in on a browser without passkeys (a shared phone at the pound gate).
"""

import json
import time
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from kernel.documents import public_base_url
from kernel.idempotency import made_with_key

from .models import StaffEvent, User
from .passkeys import Passkey
from .twofactor import has_second_factor

CHALLENGE_KEY = "passkey_challenge"
CHALLENGE_SECONDS = 300
REGISTER = "register"
SIGN_IN = "sign_in"
RP_NAME = "PoundAdmin"
TIMEOUT_MS = CHALLENGE_SECONDS * 1000
KNOWN_TRANSPORTS = {t.value for t in AuthenticatorTransport}


def relying_party():
    """(RP ID, origin) from PUBLIC_BASE_URL (in development without it, the request's own)."""
    parts = urlsplit(public_base_url())
    return parts.hostname, f"{parts.scheme}://{parts.netloc}"


def has_passkey(user):
    return Passkey.objects.filter(user=user, confirmed=True).exists()


# --- Challenges: in the session, one purpose, single use, short-lived -----------------------


def _keep_challenge(session, purpose, challenge):
    session[CHALLENGE_KEY] = {
        "purpose": purpose,
        "challenge": bytes_to_base64url(challenge),
        "until": time.time() + CHALLENGE_SECONDS,
    }


def _take_challenge(session, purpose):
    """The challenge kept for `purpose`, taken out of the session whatever the answer."""
    kept = session.pop(CHALLENGE_KEY, None)
    if not kept or kept.get("purpose") != purpose or kept.get("until", 0) < time.time():
        raise ValidationError(
            _("The passkey request has expired or was already answered. Try again."),
            code="challenge",
        )
    return base64url_to_bytes(kept["challenge"])


def _descriptors(user):
    return [
        PublicKeyCredentialDescriptor(
            id=bytes(p.credential_id),
            transports=[AuthenticatorTransport(t) for t in p.transports if t in KNOWN_TRANSPORTS],
        )
        for p in Passkey.objects.filter(user=user)
    ]


def refused():
    return ValidationError(
        _("The passkey could not be checked. Try again, or use the code from your app."),
        code="passkey",
    )


# --- Adding a passkey -------------------------------------------------------------------


def registration_options(*, user, session):
    """The options the browser's `navigator.credentials.create` takes (JSON data); the challenge
    is kept in the session. The user's passkeys are excluded: one authenticator, one passkey."""
    rp_id, _origin = relying_party()
    options = generate_registration_options(
        rp_id=rp_id,
        rp_name=RP_NAME,
        user_name=user.username,
        user_id=f"poundadmin-user-{user.pk}".encode(),
        user_display_name=user.get_full_name() or user.username,
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.PREFERRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=_descriptors(user),
    )
    _keep_challenge(session, REGISTER, options.challenge)
    return json.loads(options_to_json(options))


@transaction.atomic
def add_passkey(*, user, session, credential, name, idempotency_key=None):
    """Check the browser's answer to the registration challenge and keep the passkey. Once for
    each `idempotency_key`: the same form sent again returns the passkey it added."""
    User.objects.select_for_update(of=("self",)).get(pk=user.pk)  # one change at a time
    done = made_with_key(Passkey, idempotency_key, user_id=user.pk)
    if done is not None:
        return done
    if not has_second_factor(user):
        raise ValidationError(_("Set up an authenticator app first."), code="no_authenticator")
    challenge = _take_challenge(session, REGISTER)
    rp_id, origin = relying_party()
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise refused() from exc
    if Passkey.objects.filter(credential_id=verified.credential_id).exists():
        raise ValidationError(_("This passkey is already added."), code="duplicate")
    passkey = Passkey(
        user=user,
        name=name,
        credential_id=verified.credential_id,
        public_key=verified.credential_public_key,
        sign_count=verified.sign_count,
        transports=_transports(credential),
        idempotency_key=idempotency_key,
    )
    passkey.full_clean(exclude=["idempotency_key", "credential_id"])
    passkey.save()
    StaffEvent.objects.create(
        user=user, action=StaffEvent.Action.PASSKEY_ADDED, by=user, note=name[:200]
    )
    return passkey


def _transports(credential):
    if isinstance(credential, str):
        credential = json.loads(credential)
    found = credential.get("response", {}).get("transports") or []
    return [t for t in found if t in KNOWN_TRANSPORTS]


# --- Signing in with a passkey ---------------------------------------------------------


def authentication_options(*, user, session):
    """The options for `navigator.credentials.get` (JSON data), allowing the user's passkeys; None
    for a user without one (the page then offers none)."""
    allowed = _descriptors(user)
    if not allowed:
        return None
    rp_id, _origin = relying_party()
    options = generate_authentication_options(
        rp_id=rp_id,
        timeout=TIMEOUT_MS,
        allow_credentials=allowed,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    _keep_challenge(session, SIGN_IN, options.challenge)
    return json.loads(options_to_json(options))


@transaction.atomic
def check_passkey(*, user, session, credential):
    """The user's passkey that signed the sign-in challenge, its counter moved on. Refused: an
    answer to another or a spent challenge, from another origin, by a passkey that is not the
    user's, or whose signature counter did not move forward (a cloned authenticator)."""
    challenge = _take_challenge(session, SIGN_IN)
    try:
        raw = json.loads(credential) if isinstance(credential, str) else credential
        credential_id = base64url_to_bytes(raw["rawId"])
    except (ValueError, KeyError, TypeError) as exc:
        raise refused() from exc
    passkey = (
        Passkey.objects.select_for_update(of=("self",))
        .filter(user=user, credential_id=credential_id, confirmed=True)
        .first()
    )
    if passkey is None:
        raise refused()
    rp_id, origin = relying_party()
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=bytes(passkey.public_key),
            credential_current_sign_count=passkey.sign_count,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise refused() from exc
    passkey.sign_count = verified.new_sign_count
    passkey.last_used_at = timezone.now()
    passkey.save(update_fields=["sign_count", "last_used_at"])
    return passkey


# --- Removing one ----------------------------------------------------------------------


@transaction.atomic
def remove_passkey(*, passkey, by):
    """The user removes one of their passkeys; None when it is gone already (sent twice)."""
    passkey = Passkey.objects.select_for_update(of=("self",)).filter(pk=passkey.pk, user=by).first()
    if passkey is None:
        return None
    passkey.delete()
    StaffEvent.objects.create(
        user=by, action=StaffEvent.Action.PASSKEY_REMOVED, by=by, note=passkey.name[:200]
    )
    return passkey
