"""Unclaimed cattle (s.14): the pound-keeper's report to the officer, the officer's notice and its
proclamation by beat of drum.

A report keeps how many of its animals are still in the pound (`in_pound`): the officer's lists
read only the open reports by it, not every report's animals (ADR 0094). PostgreSQL keeps it by
triggers on the report's links and on the animals' state (migration 0024), whatever the writer.
"""

from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import IssuedDocument, PoliceStation, Pound, User, Village
from accounts.scoping import PoundScopedQuerySet
from impounding.models import Animal, Impoundment
from kernel.uploads import UploadName


class Report(models.Model):
    """The pound-keeper's report to the officer of cattle not claimed within seven days."""

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    impoundment = models.ForeignKey(Impoundment, on_delete=models.PROTECT, related_name="reports")
    animals = models.ManyToManyField(Animal, related_name="reports")
    number = models.CharField(_("report number"), max_length=40, unique=True)
    police_station = models.ForeignKey(
        PoliceStation, on_delete=models.PROTECT, related_name="+", verbose_name=_("police station")
    )
    officer = models.ForeignKey(
        User,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The officer the District Magistrate appointed for the pound, if any."),
    )
    due_on = models.DateField(_("report due on"))
    sent_at = models.DateTimeField(_("sent at"), default=timezone.now)
    sent_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    document = models.OneToOneField(IssuedDocument, on_delete=models.PROTECT, related_name="+")
    # How many of `animals` are still in the pound (state "impounded"): kept by the database's
    # triggers (migration 0024), never written by the code. Zero: the report needs nothing more.
    in_pound = models.IntegerField(_("animals in the pound"), default=0, db_default=0)

    objects = PoundScopedQuerySet.as_manager()

    class Meta:
        verbose_name = _("report of unclaimed cattle (s.14)")
        verbose_name_plural = _("reports of unclaimed cattle (s.14)")
        ordering = ["-sent_at"]
        indexes = [
            models.Index(fields=["pound", "-sent_at"]),
            # The officer's lists: the open reports alone, however many the pounds have sent.
            models.Index(
                fields=["pound", "-sent_at", "-id"], name="report_open", condition=Q(in_pound__gt=0)
            ),
        ]

    def __str__(self):
        return self.number

    def get_absolute_url(self):
        return reverse("auctions:report", kwargs={"pk": self.pk})

    @property
    def days_late(self):
        return max(0, (timezone.localtime(self.sent_at).date() - self.due_on).days)


class Notice(models.Model):
    """The officer's notice stuck up in his office (s.14): its posting date starts the second
    clock."""

    report = models.OneToOneField(Report, on_delete=models.PROTECT, related_name="notice")
    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    number = models.CharField(_("notice number"), max_length=40, unique=True)
    posted_on = models.DateField(_("posted on"))
    posted_at = models.CharField(
        _("posted at"), max_length=200, help_text=_("The office where the notice was stuck up.")
    )
    # (b) in the officer's words, when the register gave no place the notice may publish: stated
    # by `recorded_by` when he posted the notice (docs/domain.md §1.1).
    # The database default is for the previous release's code, which does not name the column
    # (docs/operations.md, "Old code on the new schema").
    seizure_place = models.CharField(
        _("place of seizure"), max_length=200, blank=True, default="", db_default=""
    )
    last_day_to_claim = models.DateField(_("last day to claim"))
    earliest_sale = models.DateField(_("earliest day of sale"))
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    document = models.OneToOneField(IssuedDocument, on_delete=models.PROTECT, related_name="+")

    objects = PoundScopedQuerySet.as_manager()

    class Meta:
        verbose_name = _("notice (s.14)")
        verbose_name_plural = _("notices (s.14)")
        ordering = ["-posted_on"]
        indexes = [
            models.Index(fields=["pound", "-posted_on", "-id"], name="notice_pound_posted"),
            models.Index(fields=["-posted_on", "-id"], name="notice_posted"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(earliest_sale__gt=models.F("last_day_to_claim")),
                name="notice_sale_after_claim_window",
            ),
        ]

    def __str__(self):
        return self.number

    def get_absolute_url(self):
        return reverse("auctions:report", kwargs={"pk": self.report_id})


class Proclamation(models.Model):
    """The proclamation of the notice by beat of drum (s.14), or a further channel. The further
    channels never stand in for the drum."""

    class Channel(models.TextChoices):
        DRUM_VILLAGE = "drum_village", _("Beat of drum in the village")
        DRUM_MARKET = "drum_market", _("Beat of drum at the nearest market-place")
        PUBLIC_BOARD = "public_board", _("Public notice board on the web")
        SMS = "sms", _("SMS")
        NEWSPAPER = "newspaper", _("Newspaper")
        OTHER = "other", _("Other")

    notice = models.ForeignKey(Notice, on_delete=models.PROTECT, related_name="proclamations")
    channel = models.CharField(_("how"), max_length=20, choices=Channel.choices)
    made_on = models.DateField(_("date"))
    place = models.CharField(_("place"), max_length=200, blank=True)
    village = models.ForeignKey(
        Village, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    made_by = models.CharField(_("made by"), max_length=150)
    details = models.CharField(_("details"), max_length=250, blank=True)
    photo = models.ImageField(_("photo"), upload_to=UploadName("proclamations"), blank=True)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # The page form's single-use key: sent twice, one proclamation (null from code or the API).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = PoundScopedQuerySet.through("notice__pound_id").as_manager()

    class Meta:
        verbose_name = _("proclamation (s.14)")
        verbose_name_plural = _("proclamations (s.14)")
        ordering = ["made_on", "pk"]
        # The API's list, newest first, for any scope: walked until a page of the pounds' rows
        # is found, not every proclamation joined to its notice and sorted (migration 0026).
        indexes = [models.Index(fields=["-made_on", "-id"], name="proclamation_newest")]

    def __str__(self):
        return f"{self.get_channel_display()} {self.made_on:%d-%m-%Y}"

    @property
    def is_drum(self):
        return self.channel in (self.Channel.DRUM_VILLAGE, self.Channel.DRUM_MARKET)
