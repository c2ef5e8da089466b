"""The terms of a disposal under the proviso to s.14, and what its money did.

The District Magistrate may order cattle unlikely to fetch a fair price disposed of as he thinks
fit (`base.DisposalOrder`). Each kind of disposal has its own terms: a sale by private treaty
names the buyer, the price and how it was paid; a transfer names the receiving body and its
registration; destruction names the veterinary certificate and its vet. On approval the price is
split as a sale's is (s.17) and the dues it does not cover become a shortfall for write-off
(docs/decisions/0055)."""

from decimal import Decimal

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from ledger.models import PaymentMode

from ..bidders import Bidder
from .base import DisposalOrder

ZERO = Decimal("0.00")


def _money(label="", **kw):
    return models.DecimalField(label, max_digits=12, decimal_places=2, **kw)


class DisposalTerms(models.Model):
    """One order's terms, as prepared, and (once approved) where the price went."""

    order = models.OneToOneField(DisposalOrder, on_delete=models.PROTECT, related_name="terms")
    # Whoever receives the animals: the buyer, the gaushala or institution, the vet.
    address = models.CharField(_("address"), max_length=250, blank=True)
    phone = models.CharField(_("phone"), max_length=15, blank=True)
    id_kind = models.CharField(
        _("identity document"), max_length=10, choices=Bidder.IdKind.choices, blank=True
    )
    id_number = models.CharField(_("document number"), max_length=40, blank=True)
    registration = models.CharField(_("registration number"), max_length=80, blank=True)
    certificate_number = models.CharField(
        _("veterinary certificate number"), max_length=80, blank=True
    )
    details = models.TextField(_("terms of the disposal"), blank=True)
    # A sale by private treaty: the price and its payment; the buyer's s.19 check.
    price = _money(_("price (₹)"), null=True, blank=True)
    payment_mode = models.CharField(
        _("paid by"), max_length=10, choices=PaymentMode.choices, blank=True
    )
    payment_reference = models.CharField(_("payment reference"), max_length=120, blank=True)
    declaration_signed = models.BooleanField(
        _("signed the buyer's declaration (s.19)"), default=False
    )
    # A sale the State's law allows only to a buyer who declares the use (the rule pack's
    # declared sale, ADR 0068): his declaration and the permit number the law requires.
    use_declared = models.BooleanField(
        _("signed the declaration of the use the State's law requires"),
        default=False,
        db_default=False,
    )
    permit_number = models.CharField(
        _("permit number"), max_length=80, blank=True, default="", db_default=""
    )
    matches = models.JSONField(default=list, blank=True)
    # On approval: the dues of the animals, and the price split over them (s.17).
    fines_due = _money(default=ZERO)
    feeding_due = _money(default=ZERO)
    fines = _money(default=ZERO)
    feeding = _money(default=ZERO)
    surplus = _money(default=ZERO)
    shortfall = _money(default=ZERO)

    class Meta:
        verbose_name = _("terms of a disposal (s.14 proviso)")
        verbose_name_plural = _("terms of disposals (s.14 proviso)")
        constraints = [
            models.CheckConstraint(
                condition=Q(price__isnull=True) | Q(price__gt=0), name="disposal_price_positive"
            ),
            models.CheckConstraint(
                condition=Q(price__isnull=True) | ~Q(payment_mode=""),
                name="disposal_price_paid_somehow",
            ),
            models.CheckConstraint(
                condition=Q(fines__gte=0)
                & Q(feeding__gte=0)
                & Q(surplus__gte=0)
                & Q(shortfall__gte=0),
                name="disposal_amounts_not_negative",
            ),
        ]

    def __str__(self):
        return f"{self.order}: {self.price or '-'}"

    @property
    def dues(self):
        return self.fines_due + self.feeding_due
