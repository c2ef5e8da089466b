"""The API's own records. `IdempotentRequest`: the first answer to each (caller, Idempotency-Key),
kept so that a retried write gets that answer again instead of doing the work twice. The
webhooks' records are in the `webhooks` app (ADR 0051)."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class IdempotentRequest(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    key = models.CharField(max_length=255)
    # The operation and a digest of the body: the same key sent with another request is refused.
    operation = models.CharField(max_length=200)
    request_digest = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField()
    content_type = models.CharField(max_length=100)
    body = models.BinaryField()
    location = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="api_idempotent_user_key"),
        ]

    def __str__(self):
        return f"{self.operation} {self.key}"
