"""Competing claimants (docs/domain.md decision 14): while two people claim the cattle of an
entry, every release is on hold until a police officer or the District Magistrate's office
decides between them on the proof."""

from django.db import models
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from .register import Impoundment


class ClaimQuerySet(models.QuerySet):
    def standing(self):
        return self.filter(status=Claim.Status.STANDING)

    def held_entry_ids(self, pound_ids):
        """The entries of these pounds on hold: two standing claims or more. One query."""
        return set(
            self.standing()
            .filter(impoundment__pound_id__in=pound_ids)
            .values("impoundment_id")
            .annotate(n=Count("id"))
            .filter(n__gte=2)
            .values_list("impoundment_id", flat=True)
        )


class Claim(models.Model):
    class Status(models.TextChoices):
        STANDING = "standing", _("Claim standing")
        UPHELD = "upheld", _("Claim upheld")
        REJECTED = "rejected", _("Claim rejected")

    impoundment = models.ForeignKey(Impoundment, on_delete=models.PROTECT, related_name="claims")
    claimant_name = models.CharField(_("claimant's name"), max_length=150)
    claimant_address = models.CharField(_("claimant's address"), max_length=250)
    claimant_phone = models.CharField(_("claimant's phone"), max_length=15, blank=True)
    proof = models.TextField(_("proof offered"))
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.STANDING)
    decided_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    findings = models.TextField(_("findings on the proof"), blank=True)
    # The claim form's single-use key: sent twice, one claim (null when recorded by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = ClaimQuerySet.as_manager()

    class Meta:
        verbose_name = _("claim to impounded cattle")
        verbose_name_plural = _("claims to impounded cattle")
        ordering = ["recorded_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="standing") | Q(decided_by__isnull=False) & ~Q(findings=""),
                name="claim_decided_with_findings",
            ),
        ]

    def __str__(self):
        return f"{self.impoundment}: {self.claimant_name}"
