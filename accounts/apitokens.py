"""API tokens: keys to the API (/api/v1/), named, revocable, their last use shown. Only a
SHA-256 of the secret is stored; the secret is shown once, when it is made.

- A personal token is a user's own: it reads what its owner may read, as its owner.
- A service token is a State system's (docs/decisions/0041): the administrator makes it for a
  role and a jurisdiction, with an expiry date. It belongs to a service account of its own, a
  user who cannot sign in (`User.is_service_account`, no usable password) and holds one
  StaffAssignment, so every `has_permission` and `for_user` applies to it unchanged.

The secret has 256 random bits, so one hash (not a slow password hash) is enough: nobody can
search that space, and a lookup is one indexed query.
"""

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

PREFIX = "pa_"


def new_secret():
    return PREFIX + secrets.token_urlsafe(32)


def digest_of(secret):
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def live(self, now=None):
        """Neither revoked nor past its expiry."""
        now = now or timezone.now()
        return self.filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=now), revoked_at__isnull=True
        )

    def of_services(self):
        return self.filter(user__is_service_account=True)


class ApiToken(models.Model):
    class Kind(models.TextChoices):
        PERSONAL = "personal", _("personal")
        # A keeper's phone paired with the field app (ADR 0074): one pound, one phone, the
        # field writes only, and a sliding expiry (FIELD_DEVICE_IDLE_DAYS without a sync).
        DEVICE = "device", _("device")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.PERSONAL)
    pound = models.ForeignKey(
        "accounts.Pound", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
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
    # Refused from this moment on. Every token made has one: a personal token 90 days on unless
    # its owner chooses (a year at most), a service token its appointment's end. A row without
    # one could only come from before that rule; no State had deployed then (ADR 0053).
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    # Requests a minute (api.ratelimit); none: settings.API_RATE_PER_MINUTE.
    rate_per_minute = models.PositiveIntegerField(_("requests a minute"), null=True, blank=True)
    # The create form's key: the same form sent twice is one token.
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        app_label = "accounts"
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="personal") | Q(pound__isnull=False),
                name="device_token_has_pound",
            )
        ]

    def __str__(self):
        return f"{self.name} ({self.hint}…)"

    @property
    def is_device(self):
        return self.kind == self.Kind.DEVICE

    @property
    def is_live(self):
        return self.revoked_at is None and not self.is_expired

    @property
    def is_expired(self):
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def last_day(self):
        """The last day it serves, in IST (it expires at the start of the next)."""
        if self.expires_at is None:
            return None
        return timezone.localtime(self.expires_at - timedelta(microseconds=1)).date()
