"""Device tokens: a keeper's phone paired with the field app (docs/decisions/0074).

A device token is an ApiToken of kind DEVICE, bound to one pound and one phone (its name is
the label the keeper gives, "Pound phone"). It serves the field app's calls only (api.auth),
and lapses FIELD_DEVICE_IDLE_DAYS after its last sync: each sync moves its expiry on
(services.live_api_token). Pairing the same phone again revokes the phone's earlier token; the
district administrator sees every device token of the district and revokes one."""

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from .apitokens import ApiToken
from .models import Pound
from .roles import Permission
from .scoping import visible_pound_ids
from .services import issue_token, revoke_api_token

MANAGE = Permission.MANAGE_STAFF


def pairing_pound(user):
    """The one pound whose arrivals `user` records, which a phone is paired with; else None."""
    pounds = visible_pound_ids(user, Permission.RECORD_IMPOUNDMENT)
    return pounds[0] if len(pounds) == 1 else None


def pair_device(*, user, label, idempotency_key):
    """Make the device token of `user`'s phone `label`; returns (token, secret). Any live
    token of the same phone (pound, keeper, label) is revoked in the same transaction. A
    replayed form (the same key) gives the first token and None for the secret."""
    if (token := ApiToken.objects.filter(idempotency_key=idempotency_key).first()) is not None:
        return token, None
    pound_id = pairing_pound(user)
    if pound_id is None:
        raise ValidationError(_("Only the keeper of one pound pairs a phone with the field app."))
    now = timezone.now()

    def revoke_earlier():
        earlier = ApiToken.objects.live().filter(
            kind=ApiToken.Kind.DEVICE, user=user, pound_id=pound_id, name=label
        )
        for old in earlier.select_for_update(of=("self",)):
            revoke_api_token(token=old, by=user)

    return issue_token(
        user=user,
        idempotency_key=idempotency_key,
        before=revoke_earlier,
        kind=ApiToken.Kind.DEVICE,
        pound_id=pound_id,
        name=label,
        created_at=now,
        expires_at=now + timedelta(days=settings.FIELD_DEVICE_IDLE_DAYS),
    )


def district_device_tokens(user):
    """Every device token of the pounds `user` administers, newest first."""
    return ApiToken.objects.filter(
        kind=ApiToken.Kind.DEVICE, pound__in=Pound.objects.for_user(user, MANAGE)
    ).select_related("user", "pound")


def revoke_device_token(*, token, by):
    """Revoke a phone's token (once: a second revocation changes nothing), recording who."""
    return revoke_api_token(token=token, by=by)
