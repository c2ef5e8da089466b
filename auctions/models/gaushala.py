"""Cattle handed to a gaushala or an animal welfare body where the State's law forbids their
sale (ADR 0070), and the upkeep the body is paid for them.

The District Magistrate's office keeps a register of the bodies of its district with their
capacity and the upkeep rate each is paid. A handover is a disposal order of the proviso to s.14
(`base.DisposalOrder`, kind gaushala or institution) naming a body from the register; the body
signs a certificate on receipt. Each month the body claims its upkeep; the office checks the
claim against the animal-days its handovers give, and the Magistrate approves it.
"""

from decimal import Decimal

from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.makerchecker import MakerChecker
from accounts.models import District, IssuedDocument, User
from accounts.scoping import DistrictScopedQuerySet
from ledger.models import PaymentMode

from .base import DisposalOrder


def _money(label="", **kw):
    return models.DecimalField(label, max_digits=12, decimal_places=2, **kw)


class Gaushala(models.Model):
    """A gaushala or animal welfare body of the district that receives cattle handed over."""

    class Kind(models.TextChoices):
        GAUSHALA = "gaushala", _("Gaushala")
        WELFARE = "welfare", _("Animal welfare body")

    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(_("kind of body"), max_length=10, choices=Kind.choices)
    name = models.CharField(_("name"), max_length=200)
    registration = models.CharField(_("registration number"), max_length=80)
    address = models.CharField(_("address"), max_length=250)
    phone = models.CharField(_("phone"), max_length=15, blank=True)
    capacity = models.PositiveIntegerField(_("capacity (head of cattle)"))
    # The body's own agreed rate, used only where the State's pack gives none; the order or
    # authority that fixed it is kept with it, never a figure without its source.
    agreed_daily_rate = _money(_("agreed upkeep a head a day (₹)"), null=True, blank=True)
    rate_authority = models.CharField(
        _("order or authority that fixed the rate"), max_length=200, blank=True
    )
    active = models.BooleanField(_("receives cattle"), default=True)
    added_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    added_at = models.DateTimeField(default=timezone.now)
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = DistrictScopedQuerySet.as_manager()

    class Meta:
        verbose_name = _("gaushala or welfare body")
        verbose_name_plural = _("gaushalas and welfare bodies")
        ordering = ["name", "id"]
        indexes = [models.Index(fields=["district", "name", "id"], name="gaushala_list")]
        constraints = [
            models.UniqueConstraint(
                fields=["district", "registration"], name="gaushala_registration_once"
            ),
            models.CheckConstraint(
                condition=Q(agreed_daily_rate__isnull=True) | ~Q(rate_authority=""),
                name="gaushala_rate_has_authority",
            ),
            models.CheckConstraint(
                condition=Q(agreed_daily_rate__isnull=True) | Q(agreed_daily_rate__gt=0),
                name="gaushala_rate_positive",
            ),
        ]

    def __str__(self):
        return self.name


class Handover(models.Model):
    """The body a handover order names, and its receipt: the certificate the body signs."""

    order = models.OneToOneField(DisposalOrder, on_delete=models.PROTECT, related_name="handover")
    gaushala = models.ForeignKey(Gaushala, on_delete=models.PROTECT, related_name="handovers")
    # What the pack said of the animals' dues when the Magistrate approved ("write_off" or
    # "claim_owner"), and the pack that said it.
    dues_rule = models.CharField(max_length=12, blank=True)
    pack = models.CharField(max_length=40, blank=True)
    received_on = models.DateField(null=True, blank=True)
    # The certificate of handover the body signs on receipt, issued on approval (QR verified).
    certificate = models.OneToOneField(
        IssuedDocument, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("handover to a gaushala")
        verbose_name_plural = _("handovers to gaushalas")

    def __str__(self):
        return f"{self.order} → {self.gaushala}"


class ClaimQuerySet(DistrictScopedQuerySet):
    scope = "gaushala__district_id"


class UpkeepClaim(MakerChecker):
    """A body's claim for a month's upkeep of the cattle handed to it."""

    class Status(models.TextChoices):
        PROPOSED = "proposed", _("Awaiting the Magistrate's approval")
        APPROVED = "approved", _("Approved: payable")
        PAID = "paid", _("Paid")
        REJECTED = "rejected", _("Not approved")

    gaushala = models.ForeignKey(Gaushala, on_delete=models.PROTECT, related_name="claims")
    month = models.DateField(_("month"))  # its first day
    number = models.CharField(max_length=40, unique=True)
    animal_days = models.PositiveIntegerField(_("animal-days claimed"))
    held_days = models.PositiveIntegerField()  # the animal-days the handovers give
    rate = _money()
    rate_source = models.CharField(max_length=200)  # the pack's field, or the body's authority
    amount = _money()  # the gross upkeep: animal-days at the rate
    # Upkeep over-paid on earlier claims and recovered from this one (its `recoveries`); the
    # body is paid the net, `amount - deduction`, never less than nothing (ADR 0070 addendum).
    deduction = _money(default=Decimal("0.00"), db_default=Decimal("0.00"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED)
    prepared_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    prepared_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    paid_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    paid_at = models.DateTimeField(null=True, blank=True)
    payment_mode = models.CharField(max_length=10, choices=PaymentMode.choices, blank=True)
    payment_reference = models.CharField(max_length=120, blank=True)
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = ClaimQuerySet.as_manager()
    maker_refusal = _("You prepared this claim: another person decides it.")

    class Meta:
        verbose_name = _("upkeep claim")
        verbose_name_plural = _("upkeep claims")
        ordering = ["-month", "-id"]
        indexes = [models.Index(fields=["gaushala", "-month", "-id"], name="upkeep_claim_list")]
        constraints = [
            models.UniqueConstraint(
                fields=["gaushala", "month"],
                condition=~Q(status="rejected"),
                name="upkeep_claim_once_a_month",
            ),
            models.CheckConstraint(
                condition=Q(animal_days__lte=F("held_days")), name="upkeep_claim_within_held"
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="upkeep_claim_positive"),
            models.CheckConstraint(
                condition=Q(deduction__gte=0) & Q(deduction__lte=F("amount")),
                name="upkeep_claim_deduction_within_amount",
            ),
            models.CheckConstraint(
                condition=~Q(decided_by=F("prepared_by")), name="upkeep_claim_decided_by_another"
            ),
            models.CheckConstraint(
                condition=Q(status="proposed") | Q(decided_by__isnull=False),
                name="upkeep_claim_decided_by_someone",
            ),
            models.CheckConstraint(
                condition=~Q(status="paid") | Q(paid_by__isnull=False),
                name="upkeep_claim_paid_by_someone",
            ),
        ]

    def __str__(self):
        return self.number

    @property
    def net(self):
        """What the body is paid: the gross upkeep less the over-payments recovered from it."""
        return self.amount - self.deduction

    @property
    def due(self):
        return self.net if self.status == self.Status.APPROVED else Decimal("0.00")


# The ends that begin a holding of their own (at `to_gaushala`, from the end's date).
MOVED_IN = ("transferred", "recaptured")


class HoldingEndQuerySet(DistrictScopedQuerySet):
    scope = "gaushala__district_id"


class HoldingEnd(models.Model):
    """The end of a body's holding of an animal handed over: its death at the body, its transfer
    to another body of the district's register (which then holds it from that day), its escape,
    or its return to the owner by a court's order or the Act's release. A recapture ends an
    escape: the body holds the animal again from that day; or the escaped animal is found dead,
    which is final (`HOLDING_MOVES`)."""

    class Kind(models.TextChoices):
        DIED = "died", _("Died")
        TRANSFERRED = "transferred", _("Transferred to another body")
        ESCAPED = "escaped", _("Escaped from the body")
        RETURNED = "returned", _("Returned to the owner by a court's order or the Act's release")
        RECAPTURED = "recaptured", _("Recaptured by the body after an escape")
        FOUND_DEAD = "found_dead", _("Found dead after an escape")

    handover = models.ForeignKey(Handover, on_delete=models.PROTECT, related_name="ends")
    animal = models.ForeignKey("impounding.Animal", on_delete=models.PROTECT, related_name="+")
    gaushala = models.ForeignKey(Gaushala, on_delete=models.PROTECT, related_name="ends")
    since = models.DateField()  # the day this body's holding began (handover or transfer in)
    # The transfer that began this holding; None for the holding the handover began.
    began_by = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="next_end"
    )
    kind = models.CharField(_("what happened"), max_length=12, choices=Kind.choices)
    on = models.DateField(_("date"))
    cause = models.CharField(_("cause of death as reported"), max_length=200, blank=True)
    reference = models.CharField(_("reference"), max_length=120)
    to_gaushala = models.ForeignKey(
        Gaushala, on_delete=models.PROTECT, null=True, blank=True, related_name="transfers_in"
    )
    # The legal basis of an escape, a return or a recapture: the pack's citation of the gaushala
    # route, the body's agreement, or the court's order or provision the office names; where
    # none is cited, `basis_note` says so. The entry's pack is named either way.
    basis = models.CharField(max_length=250, blank=True, default="", db_default="")
    basis_note = models.CharField(max_length=250, blank=True, default="", db_default="")
    rule_pack = models.CharField(max_length=40, blank=True, default="", db_default="")
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = HoldingEndQuerySet.as_manager()

    class Meta:
        verbose_name = _("death or transfer at a gaushala")
        verbose_name_plural = _("deaths and transfers at gaushalas")
        ordering = ["on", "id"]
        constraints = [
            models.UniqueConstraint(  # a transfer's holding ends once: `began_by` is one to one
                fields=["animal", "handover"],
                condition=Q(began_by__isnull=True),
                name="holding_ends_once",
            ),
            models.CheckConstraint(
                condition=(Q(kind__in=MOVED_IN) & Q(to_gaushala__isnull=False))
                | (~Q(kind__in=MOVED_IN) & Q(to_gaushala__isnull=True)),
                name="holding_end_transfer_names_body",
            ),
            models.CheckConstraint(  # a recapture brings the animal back to the body it left
                condition=~Q(kind="recaptured") | Q(to_gaushala=F("gaushala")),
                name="holding_recaptured_by_its_body",
            ),
            models.CheckConstraint(condition=Q(on__gte=F("since")), name="holding_end_after"),
        ]
        indexes = [models.Index(fields=["to_gaushala", "on"], name="holding_transfer_in")]

    def __str__(self):
        return f"{self.animal_id} @ {self.gaushala_id}: {self.kind} {self.on}"


# The state of an animal at the bodies (what its last end made it, "held" before any) and the
# ends that may follow it. A transfer or a recapture leaves it held (by the receiving body, or
# by the body again); a death and a return are final; an escaped animal may only be recaptured
# or found dead, and being found dead is final (no upkeep follows: it stopped at the escape).
HOLDING_MOVES = {
    "held": {
        HoldingEnd.Kind.DIED,
        HoldingEnd.Kind.TRANSFERRED,
        HoldingEnd.Kind.ESCAPED,
        HoldingEnd.Kind.RETURNED,
    },
    HoldingEnd.Kind.ESCAPED: {HoldingEnd.Kind.RECAPTURED, HoldingEnd.Kind.FOUND_DEAD},
    HoldingEnd.Kind.DIED: set(),
    HoldingEnd.Kind.RETURNED: set(),
    HoldingEnd.Kind.FOUND_DEAD: set(),
}


class UpkeepOverpayment(models.Model):
    """Upkeep a claim already approved paid for days the body no longer held the animal: the
    death or transfer was recorded after the claim. Nothing posted is edited: the expense is
    reversed into a receivable when the over-payment is flagged, and the receivable is recovered
    from the body's next claims (`UpkeepRecovery`), or stays open until it is."""

    claim = models.ForeignKey(UpkeepClaim, on_delete=models.PROTECT, related_name="overpayments")
    end = models.ForeignKey(HoldingEnd, on_delete=models.PROTECT, related_name="overpayments")
    gaushala = models.ForeignKey(Gaushala, on_delete=models.PROTECT, related_name="overpayments")
    days = models.PositiveIntegerField(_("animal-days over-paid"))
    rate = _money()  # the claim's rate: the rate in force for that month
    amount = _money(_("over-paid"))
    section = models.CharField(max_length=20)
    rule_pack = models.CharField(max_length=40)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)

    objects = HoldingEndQuerySet.as_manager()

    class Meta:
        verbose_name = _("upkeep over-payment")
        verbose_name_plural = _("upkeep over-payments")
        ordering = ["recorded_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["end", "claim"], name="upkeep_overpaid_once"),
            models.CheckConstraint(
                condition=Q(days__gt=0) & Q(amount__gt=0), name="upkeep_overpaid_positive"
            ),
        ]
        indexes = [
            models.Index(fields=["gaushala", "recorded_at", "id"], name="upkeep_overpaid_list")
        ]

    def __str__(self):
        return f"{self.claim_id}: {self.days} × {self.rate}"


class UpkeepRecovery(models.Model):
    """The part of an over-payment deducted from a later claim of the same body. A refused
    claim's recoveries no longer count: the over-payment waits for the next claim."""

    overpayment = models.ForeignKey(
        UpkeepOverpayment, on_delete=models.PROTECT, related_name="recoveries"
    )
    claim = models.ForeignKey(UpkeepClaim, on_delete=models.PROTECT, related_name="recoveries")
    amount = _money()

    class Meta:
        verbose_name = _("upkeep recovery")
        verbose_name_plural = _("upkeep recoveries")
        constraints = [
            models.UniqueConstraint(fields=["overpayment", "claim"], name="upkeep_recovered_once"),
            models.CheckConstraint(condition=Q(amount__gt=0), name="upkeep_recovery_positive"),
        ]

    def __str__(self):
        return f"{self.overpayment_id} → {self.claim_id}: {self.amount}"
