"""The event log: every state change, who made it, when, and the section of the Act relied on.

Each pound's events form a hash chain: an event stores the hash of the one before it, and its own
hash covers its content and that link. Editing or deleting a row outside the application breaks
the chain at that row, and `manage.py verify_chain` names the first broken link.
"""

import hashlib
import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import District, Pound, User

GENESIS = "0" * 64


class ChainHead(models.Model):
    """The latest link of one chain. Appending locks this row, so links are strictly ordered."""

    chain = models.CharField(max_length=40, unique=True)
    seq = models.PositiveBigIntegerField(default=0)
    hash = models.CharField(max_length=64, default=GENESIS)

    def __str__(self):
        return f"{self.chain}#{self.seq}"


class EventQuerySet(models.QuerySet):
    def for_user(self, user, perm=None):
        from accounts.scoping import visible_district_ids, visible_pound_ids

        return self.filter(
            models.Q(pound_id__in=visible_pound_ids(user, perm))
            | models.Q(pound__isnull=True, district_id__in=visible_district_ids(user, perm))
        )


class Event(models.Model):
    chain = models.CharField(max_length=40)
    seq = models.PositiveBigIntegerField()
    at = models.DateTimeField(default=timezone.now)
    by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, related_name="+")
    action = models.CharField(_("what"), max_length=60)
    section = models.CharField(_("section of the Act"), max_length=40, blank=True)
    summary = models.CharField(max_length=300)
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    pound = models.ForeignKey(
        Pound, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    impoundment = models.ForeignKey(
        "impounding.Impoundment",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="events",
    )
    animal = models.ForeignKey(
        "impounding.Animal", on_delete=models.PROTECT, null=True, blank=True, related_name="events"
    )
    data = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    objects = EventQuerySet.as_manager()

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["chain", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["chain", "seq"], name="event_chain_seq"),
        ]
        indexes = [models.Index(fields=["impoundment", "at"], name="event_impoundment_at")]

    def __str__(self):
        return f"{self.chain}#{self.seq} {self.action}"

    @property
    def label(self):
        from impounding.events import action_label

        return action_label(self.action)

    def payload(self):
        """The content the hash covers, in a canonical form."""
        return {
            "chain": self.chain,
            "seq": self.seq,
            "at": self.at.astimezone(timezone.UTC).isoformat(timespec="microseconds"),
            "by": self.by_id,
            "action": self.action,
            "section": self.section,
            "summary": self.summary,
            "district": self.district_id,
            "pound": self.pound_id,
            "impoundment": self.impoundment_id,
            "animal": self.animal_id,
            "data": self.data,
            "prev": self.prev_hash,
        }

    def compute_hash(self):
        text = json.dumps(
            self.payload(),
            sort_keys=True,
            separators=(",", ":"),
            cls=DjangoJSONEncoder,
            ensure_ascii=False,
        )
        return hashlib.sha256(text.encode()).hexdigest()
