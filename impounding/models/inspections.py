"""The veterinary inspection at intake, where the entry's rule pack requires one (ADR 0071).

The Prevention of Cruelty to Animals (Care and Maintenance of Case Property Animals) Rules, 2017
have a veterinary officer inspect the health of seized animals and identify them, and the States
that adopt the rule for their pounds say so in the pack (`[intake] vet_inspection`). The officer
visits; the pound-keeper records what the officer found, animal by animal, with the officer's
name, designation and registration number. The record is not changed afterwards: a second visit
is a second inspection.
"""

from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from .register import Animal, Impoundment


class Fitness(models.TextChoices):
    FIT = "fit", _("Fit to be kept in the pound")
    TREATMENT = "treatment", _("Needs treatment")
    UNFIT = "unfit", _("Unfit to be kept in the pound")


class Inspection(models.Model):
    """One visit of a veterinary officer to an entry's animals."""

    impoundment = models.ForeignKey(
        Impoundment, on_delete=models.PROTECT, related_name="inspections"
    )
    visited_at = models.DateTimeField(_("date and time of the visit"))
    officer_name = models.CharField(_("veterinary officer's name"), max_length=150)
    officer_designation = models.CharField(_("designation"), max_length=150)
    officer_registration = models.CharField(_("registration number"), max_length=60)
    remarks = models.TextField(_("remarks"), blank=True)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # The form's single-use key: sent twice, one inspection (null when recorded by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    class Meta:
        verbose_name = _("veterinary inspection")
        verbose_name_plural = _("veterinary inspections")
        ordering = ["visited_at", "pk"]
        indexes = [models.Index(fields=["impoundment", "visited_at"], name="insp_entry_visit")]
        constraints = [
            models.CheckConstraint(
                condition=Q(visited_at__lte=F("recorded_at")), name="insp_visit_not_after_record"
            )
        ]

    def __str__(self):
        return f"{self.impoundment}: {self.officer_name}"


class Finding(models.Model):
    """What the officer found of one animal."""

    inspection = models.ForeignKey(Inspection, on_delete=models.PROTECT, related_name="findings")
    animal = models.ForeignKey(Animal, on_delete=models.PROTECT, related_name="findings")
    condition = models.CharField(_("health and condition"), max_length=250)
    injuries = models.CharField(_("injuries"), max_length=250, blank=True)
    marks = models.CharField(_("identification marks found"), max_length=250, blank=True)
    marking_applied = models.CharField(_("marking applied"), max_length=150, blank=True)
    fitness = models.CharField(_("fitness"), max_length=10, choices=Fitness)

    class Meta:
        verbose_name = _("finding")
        verbose_name_plural = _("findings")
        ordering = ["inspection", "animal__number"]
        constraints = [
            models.UniqueConstraint(fields=["inspection", "animal"], name="finding_once_an_animal")
        ]

    def __str__(self):
        return f"{self.animal}: {self.get_fitness_display()}"


class Place(models.TextChoices):
    """Where rule 3(b) of the 2017 Rules lets the Magistrate direct an animal to be housed."""

    INFIRMARY = "infirmary", _("Infirmary")
    PINJRAPOLE = "pinjrapole", _("Pinjrapole")
    SPCA = "spca", _("Society for the Prevention of Cruelty to Animals (SPCA)")
    WELFARE = "welfare", _("Animal welfare organisation")
    GAUSHALA = "gaushala", _("Gaushala")


class Direction(models.Model):
    """The Magistrate's direction under rule 3(b) of the 2017 Rules for an animal the officer
    found unfit: where it is to be housed, by which order. Recorded by the pound-keeper from
    the order he received; not changed afterwards."""

    finding = models.OneToOneField(Finding, on_delete=models.PROTECT, related_name="direction")
    place_kind = models.CharField(_("housed at"), max_length=12, choices=Place)
    place_name = models.CharField(_("name and address of the place"), max_length=250)
    magistrate_name = models.CharField(_("Magistrate's name"), max_length=150)
    order_reference = models.CharField(_("order number"), max_length=100)
    ordered_on = models.DateField(_("date of the order"))
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # The form's single-use key: sent twice, one direction (null when recorded by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    class Meta:
        verbose_name = _("Magistrate's direction for an unfit animal")
        verbose_name_plural = _("Magistrate's directions for unfit animals")

    def __str__(self):
        return f"{self.finding.animal}: {self.get_place_kind_display()}"
