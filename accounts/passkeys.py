"""Passkeys (WebAuthn credentials) as a second factor beside the authenticator app
(docs/decisions/0061-passkeys.md). A passkey is a django-otp device, so that signing in with one
marks the session verified exactly as a code does (`django_otp.login`), and django-otp's
middleware finds it again on every request. Its ceremonies are in `accounts/ceremonies.py`.

Only the credential's public key is kept: a copy of the database signs nothing in.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _
from django_otp.models import Device, TimestampMixin


class Passkey(TimestampMixin, Device):
    """One registered credential: its id and public key (COSE) as the authenticator gave them,
    the signature counter it last reported (a count that goes back is refused: a cloned
    authenticator), the ways the browser can reach it, and the name the user gave it."""

    credential_id = models.BinaryField(unique=True)
    public_key = models.BinaryField()
    sign_count = models.PositiveBigIntegerField(default=0)
    transports = models.JSONField(default=list, blank=True)
    # One passkey however often the form that adds it is sent (ceremonies.add_passkey).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    class Meta:
        verbose_name = _("passkey")
        verbose_name_plural = _("passkeys")
        ordering = ["created_at", "pk"]

    def verify_token(self, token):
        return False  # a passkey answers a challenge (ceremonies.sign_in_with_passkey), no code
