"""Lost-cattle reports from the public (issue 25, ADR 0079): what an owner says of an animal he
has lost, the one-time code that proves his phone, and the animals in custody it may be.

A report is made as a draft, proved by a code sent to its phone, then submitted; only a submitted
report is matched. It lapses after the period of the district's rule pack (`clocks.
lost_report_days`), or the product's default where the pack leaves it empty; its phone and photo
are erased by the retention run once it has lapsed (docs/retention.md).
"""

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import District, User
from accounts.scoping import PoundScopedQuerySet

from .choices import Species
from .register import Animal, media_upload


class LostReport(models.Model):
    class State(models.TextChoices):
        DRAFT = "draft", _("Not yet sent")
        OPEN = "open", _("Open")
        FOUND = "found", _("Found")
        LAPSED = "lapsed", _("Lapsed")

    reference = models.CharField(max_length=12, unique=True)
    district = models.ForeignKey(
        District, on_delete=models.PROTECT, related_name="+", verbose_name=_("district")
    )
    state = models.CharField(max_length=8, choices=State.choices, default=State.DRAFT)
    phone = models.CharField(_("mobile number"), max_length=10, blank=True)
    phone_verified = models.BooleanField(default=False)
    language = models.CharField(max_length=8)
    species = models.CharField(_("species"), max_length=20, choices=Species.choices)
    colour = models.CharField(_("colour"), max_length=80)
    marks = models.CharField(_("marks"), max_length=250, blank=True)
    ear_tag = models.CharField(_("ear-tag number"), max_length=12, blank=True)
    place = models.CharField(_("village or place where it was lost"), max_length=120)
    lost_on = models.DateField(_("date lost"))
    photo = models.ImageField(_("photo"), upload_to=media_upload("lost"), blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    submitted_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    erased_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # Open reports by tag: the match of a tag read at intake.
            models.Index(fields=["ear_tag"], name="lostreport_open_tag", condition=Q(state="open")),
            # Open reports by district and species: the match of an animal entered later.
            models.Index(
                fields=["district", "species", "lost_on"],
                name="lostreport_open_described",
                condition=Q(state="open"),
            ),
            # The retention run: lapsed and stale drafts, oldest first.
            models.Index(fields=["state", "expires_at"], name="lostreport_state_expires"),
            models.Index(fields=["state", "created_at"], name="lostreport_state_created"),
        ]

    def __str__(self):
        return self.reference


class PhoneCode(models.Model):
    """A one-time code sent to a report's phone: kept hashed, good for CODE_MINUTES and
    CODE_TRIES tries."""

    report = models.ForeignKey(LostReport, on_delete=models.CASCADE, related_name="codes")
    code_hash = models.CharField(max_length=128)
    sent_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    tries = models.PositiveSmallIntegerField(default=0)
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"code for {self.report_id}"


class LostMatchQuerySet(PoundScopedQuerySet.through("animal__pound_id")):
    pass


class LostMatch(models.Model):
    """An animal in custody that a report may describe, with its score (100: the same tag)."""

    class State(models.TextChoices):
        CANDIDATE = "candidate", _("To be checked")
        CONFIRMED = "confirmed", _("Confirmed")
        REJECTED = "rejected", _("Not this animal")

    report = models.ForeignKey(LostReport, on_delete=models.CASCADE, related_name="matches")
    animal = models.ForeignKey(Animal, on_delete=models.PROTECT, related_name="+")
    score = models.PositiveSmallIntegerField(_("score"))
    by_tag = models.BooleanField(default=False)
    state = models.CharField(max_length=10, choices=State.choices, default=State.CANDIDATE)
    found_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    objects = LostMatchQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["report", "animal"], name="lostmatch_once"),
        ]
        indexes = [
            models.Index(fields=["animal", "state"], name="lostmatch_animal_state"),
        ]

    def __str__(self):
        return f"{self.report_id} ~ {self.animal_id} ({self.score})"

    @property
    def pound_id(self):
        """The animal's pound: whose staff may see and decide the match (accounts.scoping)."""
        return self.animal.pound_id


class LostNotice(models.Model):
    """A message to a report's owner, as `impounding.lost_notify` recorded it for the messages
    component to send (ADR 0079). A one-time code is never kept here: only that one was sent."""

    class Kind(models.TextChoices):
        CODE = "code", _("One-time code")
        MATCH = "match", _("Your animal may be at a pound")

    report = models.ForeignKey(LostReport, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    phone = models.CharField(max_length=10)
    language = models.CharField(max_length=8)
    text = models.TextField()
    at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"{self.kind} for {self.report_id}"
