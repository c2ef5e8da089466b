"""The webhooks' records (docs/webhooks.md, ADR 0042): a State system's subscription, each
event's delivery to it, and the log of every try. They moved here from `api` and keep its tables
(`Meta.db_table`, ADR 0051)."""

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .secrets import unseal


class WebhookSubscriptionQuerySet(models.QuerySet):
    def live(self):
        """Not stopped, and its service token neither revoked nor past its expiry."""
        now = timezone.now()
        return self.filter(
            models.Q(token__expires_at__isnull=True) | models.Q(token__expires_at__gt=now),
            stopped_at__isnull=True,
            token__revoked_at__isnull=True,
            token__user__is_active=True,
        )


class WebhookSubscription(models.Model):
    """A State system's address for news of the topics it chose (webhooks.services). It belongs to a
    service token: it hears only of what that token may read, and falls silent with it."""

    token = models.ForeignKey(
        "accounts.ApiToken",
        on_delete=models.PROTECT,
        related_name="webhooks",
        verbose_name=_("service token"),
    )
    url = models.URLField(_("address"), max_length=500)
    topics = models.JSONField(_("topics"), default=list)
    # The key of each delivery's HMAC, shown once. Kept sealed (webhooks.secrets, ADR 0060):
    # encrypted with a key outside the database; `signing_secret()` opens it.
    secret = models.CharField(max_length=300, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    stopped_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    stopped_at = models.DateTimeField(_("stopped"), null=True, blank=True)
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = WebhookSubscriptionQuerySet.as_manager()

    class Meta:
        db_table = "api_webhooksubscription"
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return self.url

    def signing_secret(self):
        """The secret the deliveries are signed with, unsealed."""
        return unseal(self.secret)


class WebhookDelivery(models.Model):
    """One event for one subscription: its body, fixed when the event was written, and where
    its sending stands. Sent at least once; the receiver tells repeats apart by the id."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting to be sent")
        DELIVERED = "delivered", _("Delivered")
        GAVE_UP = "gave_up", _("Given up")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    subscription = models.ForeignKey(
        WebhookSubscription, on_delete=models.PROTECT, related_name="deliveries"
    )
    event = models.ForeignKey("kernel.Event", on_delete=models.PROTECT, related_name="+")
    topic = models.CharField(_("topic"), max_length=40)
    body = models.TextField()
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    # When it is next due; also the lease of a sender at work (webhooks.services.claim).
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered"), null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # Who gave a delivery that was given up one more try, and when.
    resent_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    resent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "api_webhookdelivery"
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        constraints = [
            models.UniqueConstraint(
                fields=["subscription", "event"], name="webhookdelivery_one_per_event"
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="webhookdelivery_due",
                condition=models.Q(status="pending"),
            ),
            models.Index(fields=["subscription", "-created_at"], name="webhookdelivery_recent"),
        ]

    def __str__(self):
        return f"{self.topic} {self.id}"


class WebhookAttempt(models.Model):
    """The log of one try: when, what the receiver answered or what went wrong, how long."""

    delivery = models.ForeignKey(
        WebhookDelivery, on_delete=models.PROTECT, related_name="attempt_log"
    )
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)
    response = models.CharField(max_length=500, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "api_webhookattempt"
        ordering = ["delivery", "number"]
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="webhookattempt_number"),
        ]

    def __str__(self):
        return f"{self.delivery_id} #{self.number}"
