"""Personal API tokens: a user's own key to the API (/api/v1/), named, revocable, its last use
shown. Only a SHA-256 of the secret is stored; the secret is shown once, when it is made.

The secret has 256 random bits, so one hash (not a slow password hash) is enough: nobody can
search that space, and a lookup is one indexed query.
"""

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

PREFIX = "pa_"


def new_secret():
    return PREFIX + secrets.token_urlsafe(32)


def digest_of(secret):
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def live(self):
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=80)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    # The secret's first characters, so that its owner can tell two tokens apart.
    hint = models.CharField(max_length=12, editable=False)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    # The create form's key: the same form sent twice is one token.
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        app_label = "accounts"
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.name} ({self.hint}…)"

    @property
    def is_live(self):
        return self.revoked_at is None
