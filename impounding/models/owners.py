"""What the State's ear-tag registry said of a tag, kept with its age (ADR 0078): the cache
every process shares, so that a tag is asked of the registry once a day, not once a form."""

from django.db import models
from django.utils import timezone


class TagLookup(models.Model):
    class Outcome(models.TextChoices):
        FOUND = "found"  # the registry names an owner
        UNKNOWN = "unknown"  # the registry knows no owner of the tag
        FAILED = "failed"  # no answer, an error or an answer that made no sense: tried again

    tag = models.CharField(max_length=30, unique=True)
    registry = models.CharField(max_length=20)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    owner_name = models.CharField(max_length=150, blank=True)
    owner_phone = models.CharField(max_length=15, blank=True)
    owner_village = models.CharField(max_length=150, blank=True)
    # Why the last lookup failed (a timeout, HTTP 500, a malformed answer), for the logs' reader.
    error = models.CharField(max_length=200, blank=True)
    looked_up_at = models.DateTimeField(default=timezone.now)
    failures = models.PositiveSmallIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["looked_up_at"], name="taglookup_age")]

    def __str__(self):
        return f"{self.tag} {self.outcome}"
