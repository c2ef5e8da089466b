"""The webhooks' signing secrets, sealed at rest (ADR 0060): the database holds each secret
encrypted with a key kept outside it, in WEBHOOK_SECRET_KEYS, so a copy of the database (a dump,
a backup, a replica) does not let anyone sign a delivery a State system would trust.

The keys are Fernet keys (AES-128-CBC and HMAC-SHA256, `cryptography`), newest first: the first
seals, any of them opens (MultiFernet), so a new key is put in front of the old one, every
secret resealed with it (`manage.py reseal_webhook_secrets`), and then the old key dropped. In
development (DEBUG) without a key, one is derived from SECRET_KEY; never in production.
"""

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# A secret made before ADR 0060, still in the clear (webhooks.services.new_secret).
CLEAR_PREFIX = "whsec_"


def new_key():
    """A fresh key for WEBHOOK_SECRET_KEYS."""
    return Fernet.generate_key().decode()


def _development_key():
    digest = hashlib.sha256(f"webhook-secrets:{settings.SECRET_KEY}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()


def keys():
    """The keys set, newest first; in development without one, the derived key."""
    found = [k.strip() for k in settings.WEBHOOK_SECRET_KEYS if k.strip()]
    if not found and settings.DEBUG:
        found = [_development_key()]
    return found


def _fernet():
    found = keys()
    if not found:
        raise ImproperlyConfigured(
            "The WEBHOOK_SECRET_KEYS environment variable is not set: it holds the key that "
            "seals the webhooks' signing secrets (manage.py reseal_webhook_secrets --new-key)."
        )
    try:
        return MultiFernet([Fernet(k.encode()) for k in found])
    except ValueError as exc:  # not a Fernet key: 32 bytes, url-safe base64
        raise ImproperlyConfigured("WEBHOOK_SECRET_KEYS holds a value that is not a key.") from exc


def seal(secret):
    """The stored form of `secret`: encrypted with the newest key."""
    return _fernet().encrypt(secret.encode()).decode()


def unseal(stored):
    """The secret a stored value holds. Raises InvalidToken when no key set opens it."""
    return _fernet().decrypt(stored.encode()).decode()


def resealed(stored):
    """`stored` sealed again with the newest key (a clear secret of before ADR 0060, sealed)."""
    if stored.startswith(CLEAR_PREFIX):
        return seal(stored)
    return _fernet().rotate(stored.encode()).decode()


__all__ = ["CLEAR_PREFIX", "InvalidToken", "keys", "new_key", "resealed", "seal", "unseal"]
