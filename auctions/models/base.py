"""Sales of unclaimed cattle (s.14) and sales when the owner will not pay (s.16).

The first clock: cattle not claimed within seven days of impounding are reported to the officer
(the officer in charge of the pound's nearest police station, or the officer the District
Magistrate appoints for that pound: the report and notice are in `unclaimed`). The second clock:
the officer's notice; the cattle may be sold by public auction from the eighth day after it was
posted (GCA s.9). Or the District Magistrate orders another disposal (the proviso). Money from
every sale goes through the ledger.
"""

from datetime import timedelta
from decimal import Decimal

from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.makerchecker import MakerChecker
from accounts.models import (
    District,
    InForceQuerySet,
    IssuedDocument,
    Pound,
    User,
)
from accounts.scoping import DistrictScopedQuerySet, PoundScopedQuerySet
from impounding.models import Animal, Impoundment
from kernel.uploads import UploadName
from ledger.models import PaymentMode

from ..bidders import Bidder, BidderQuerySet  # noqa: F401 (kept here)
from .secondlanguage import ConditionsInSecondLanguage


class ConditionsQuerySet(InForceQuerySet, DistrictScopedQuerySet):
    """The orders in force on a day, and those of the districts a user sees."""


class AuctionConditions(ConditionsInSecondLanguage):
    """The District Magistrate's standing order on the place, time and conditions of sale
    (s.14). Versioned: a new order ends the one before it."""

    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    order_reference = models.CharField(_("order reference"), max_length=120)
    order_date = models.DateField(_("order date"))
    valid_from = models.DateField(_("in force from"))
    valid_to = models.DateField(_("in force until"), null=True, blank=True)
    place = models.CharField(_("place of sale"), max_length=200)
    hours = models.CharField(_("hours of sale"), max_length=120)
    reserve_policy = models.CharField(_("reserve price"), max_length=250)
    earnest_money = models.DecimalField(_("earnest money (₹)"), max_digits=10, decimal_places=2)
    buyer_declarations = models.TextField(_("declarations every buyer signs"))
    chargeable_expenses = models.TextField(_("sale expenses that may be charged"))
    max_expenses_per_lot = models.DecimalField(
        _("most sale expenses per lot (₹)"),
        max_digits=10,
        decimal_places=2,
        default=Decimal("0.00"),
    )
    s16_min_gap_days = models.PositiveSmallIntegerField(
        _("days between the owner's refusal and a s.16 sale"), default=1
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # The order form's single-use key: sent twice, one order (null when recorded by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = ConditionsQuerySet.as_manager()

    class Meta:
        verbose_name = _("auction conditions (s.14)")
        verbose_name_plural = _("auction conditions (s.14)")
        ordering = ["district", "-valid_from"]
        constraints = [
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True) | Q(valid_to__gte=models.F("valid_from")),
                name="conditions_range_ordered",
            )
        ]

    def __str__(self):
        return f"{self.order_reference} ({self.order_date:%d-%m-%Y})"


class S16Case(models.Model):
    """The owner appeared and refused or omitted to pay (or, under s.15, to deposit): as many
    animals as necessary are sold, and the rest go back with the balance (s.16)."""

    class Status(models.TextChoices):
        OPEN = "open", _("Sale to be held")
        COVERED = "covered", _("Dues covered: no more lots to be sold")
        CLOSED = "closed", _("Closed: remaining cattle and balance returned")

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    impoundment = models.ForeignKey(Impoundment, on_delete=models.PROTECT, related_name="s16_cases")
    animals = models.ManyToManyField(Animal, related_name="s16_cases")
    # The animals given back to the owner when the case closed (s.16).
    returned_animals = models.ManyToManyField(Animal, related_name="+", blank=True)
    owner_name = models.CharField(_("owner or agent"), max_length=150)
    owner_address = models.CharField(_("address"), max_length=250)
    refused = models.BooleanField(_("refused (not merely omitted) to pay"), default=True)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    # Closing: the account of items (a)-(f), the balance and the owner's receipt for them.
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    fines = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    feeding = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    expenses = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    proceeds = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    balance = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    shortfall = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    # The refusal form's single-use key: sent twice, it opens one case (null when made by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)
    balance_mode = models.CharField(max_length=10, choices=PaymentMode.choices, blank=True)
    balance_reference = models.CharField(max_length=120, blank=True)
    acknowledgement = models.CharField(max_length=15, blank=True)
    register_page = models.CharField(max_length=30, blank=True)
    signature = models.ImageField(upload_to=UploadName("signatures"), blank=True)
    account_document = models.OneToOneField(
        IssuedDocument, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    objects = PoundScopedQuerySet.as_manager()

    class Meta:
        verbose_name = _("sale on the owner's refusal (s.16)")
        verbose_name_plural = _("sales on the owner's refusal (s.16)")
        ordering = ["-recorded_at"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="closed") | Q(closed_at__isnull=False), name="s16_closed_dated"
            ),
            models.CheckConstraint(
                condition=Q(balance__gte=0) & Q(shortfall__gte=0), name="s16_amounts_not_negative"
            ),
        ]

    def __str__(self):
        return f"s.16 {self.impoundment}: {self.owner_name}"

    def get_absolute_url(self):
        return reverse("auctions:s16_case", kwargs={"pk": self.pk})

    def first_sale_day(self, conditions):
        """The first day of the sale: the gap the District Magistrate's `conditions` set after the
        owner's refusal (docs/domain.md §1.1)."""
        return timezone.localdate(self.recorded_at) + timedelta(days=conditions.s16_min_gap_days)


class Auction(models.Model):
    class Kind(models.TextChoices):
        UNCLAIMED = "s14", _("Unclaimed cattle (s.14)")
        OWNER_REFUSED = "s16", _("Owner refused or omitted to pay (s.16)")

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Scheduled")
        CLOSED = "closed", _("Held and closed")
        CANCELLED = "cancelled", _("Cancelled")

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(_("sale under"), max_length=4, choices=Kind.choices)
    number = models.CharField(_("auction number"), max_length=40, unique=True)
    scheduled_for = models.DateTimeField(_("date and time of sale"))
    place = models.CharField(_("place of sale"), max_length=200)
    conditions = models.ForeignKey(
        AuctionConditions, on_delete=models.PROTECT, related_name="auctions"
    )
    officer = models.ForeignKey(
        User, on_delete=models.PROTECT, related_name="+", verbose_name=_("conducting officer")
    )
    deputy = models.ForeignKey(
        User,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("officer deputed to conduct the sale"),
    )
    deputation_order = models.CharField(_("deputation order"), max_length=120, blank=True)
    s16_case = models.ForeignKey(
        S16Case, on_delete=models.PROTECT, null=True, blank=True, related_name="auctions"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    closed_at = models.DateTimeField(null=True, blank=True)
    officer_declaration_at = models.DateTimeField(
        _("conducting officer's declaration (s.19) signed at"), null=True, blank=True
    )
    # The scheduling form's single-use key: sent twice, one auction (null when made by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = PoundScopedQuerySet.as_manager()

    class Meta:
        verbose_name = _("auction")
        verbose_name_plural = _("auctions")
        ordering = ["-scheduled_for"]
        indexes = [
            models.Index(fields=["pound", "-scheduled_for"]),
            # The auctions screen's two keyset lists (auctions.selectors.AUCTION_LISTS): those
            # to come by status, those held by time, over the caller's pounds.
            models.Index(fields=["status", "scheduled_for", "id"], name="auction_status_when"),
            models.Index(fields=["scheduled_for", "id"], name="auction_when"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~Q(kind="s16") | Q(s16_case__isnull=False), name="auction_s16_has_case"
            ),
        ]

    def __str__(self):
        return self.number

    def get_absolute_url(self):
        return reverse("auctions:auction", kwargs={"pk": self.pk})

    def status_label(self):
        """The status as a person reads it: it follows the lots. A scheduled auction whose lots
        have all left OPEN (sold, not sold, withdrawn, not needed) has been held and waits only for
        the officer to close it; it no longer reads "Scheduled"."""
        if self.status == self.Status.SCHEDULED and self.lots.exists():
            if not self.lots.filter(status=Lot.Status.OPEN).exists():
                return _("Held: every lot decided, to be closed")
        return self.get_status_display()


class LotQuerySet(PoundScopedQuerySet):
    scope = "auction__pound_id"

    def open(self):
        return self.filter(status=Lot.Status.OPEN)

    def leave_open(self, status, *, note=None):
        """The one way lots leave OPEN: sold, not sold, withdrawn or not needed. Only the lots
        still open move, so none is moved twice; returns how many moved."""
        if status == Lot.Status.OPEN:
            raise ValueError("a lot leaves OPEN for another status")
        fields = {"status": status} if note is None else {"status": status, "note": note}
        return self.open().update(**fields)


class Lot(models.Model):
    """One animal, or a dam with her suckling calf, offered as one."""

    class Status(models.TextChoices):
        OPEN = "open", _("To be offered")
        SOLD = "sold", _("Sold")
        UNSOLD = "unsold", _("Not sold")
        WITHDRAWN = "withdrawn", _("Withdrawn: claimed before the hammer")
        NOT_NEEDED = "not_needed", _("Not needed: the dues were covered (s.16)")

    auction = models.ForeignKey(Auction, on_delete=models.PROTECT, related_name="lots")
    number = models.PositiveSmallIntegerField(_("lot number"))
    sequence = models.PositiveSmallIntegerField(_("order of sale"))
    animals = models.ManyToManyField(Animal, through="LotAnimal", related_name="lots")
    reserve_price = models.DecimalField(
        _("reserve price (₹)"), max_digits=10, decimal_places=2, default=Decimal("0.00")
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    note = models.CharField(max_length=250, blank=True)

    objects = LotQuerySet.as_manager()

    class Meta:
        verbose_name = _("lot")
        verbose_name_plural = _("lots")
        ordering = ["auction", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["auction", "number"], name="lot_number"),
            models.UniqueConstraint(fields=["auction", "sequence"], name="lot_sequence"),
        ]

    def __str__(self):
        return f"{self.auction.number} lot {self.number}"


class LotAnimal(models.Model):
    lot = models.ForeignKey(Lot, on_delete=models.PROTECT)
    animal = models.ForeignKey(Animal, on_delete=models.PROTECT)
    sold = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["lot", "animal"], name="lotanimal_unique"),
            # An animal is sold at most once, whatever lots it was offered in.
            models.UniqueConstraint(
                fields=["animal"], condition=Q(sold=True), name="animal_sold_once"
            ),
        ]

    def __str__(self):
        return f"{self.lot}: {self.animal}"


class Bid(models.Model):
    lot = models.ForeignKey(Lot, on_delete=models.PROTECT, related_name="bids")
    bidder = models.ForeignKey(Bidder, on_delete=models.PROTECT, related_name="bids")
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["lot", "at", "pk"]
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="bid_positive")]

    def __str__(self):
        return f"{self.lot}: {self.bidder.number} {self.amount}"


class Sale(models.Model):
    """The hammer falls: one sold lot, its buyer's payment and where every rupee went (s.17)."""

    lot = models.OneToOneField(Lot, on_delete=models.PROTECT, related_name="sale")
    buyer = models.ForeignKey(Bidder, on_delete=models.PROTECT, related_name="purchases")
    price = models.DecimalField(_("hammer price (₹)"), max_digits=10, decimal_places=2)
    payment_mode = models.CharField(max_length=10, choices=PaymentMode.choices)
    payment_reference = models.CharField(max_length=120, blank=True)
    sold_at = models.DateTimeField(default=timezone.now)
    sold_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # s.14 sales: the lot's own dues. s.16 sales: held until the case closes.
    fines = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    feeding = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    expenses = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    surplus = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    shortfall = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    certificate = models.OneToOneField(IssuedDocument, on_delete=models.PROTECT, related_name="+")

    objects = PoundScopedQuerySet.through("lot__auction__pound_id").as_manager()

    class Meta:
        verbose_name = _("sale")
        verbose_name_plural = _("sales")
        ordering = ["sold_at"]
        indexes = [models.Index(fields=["-sold_at", "-id"], name="sale_sold")]
        constraints = [
            models.CheckConstraint(condition=Q(price__gt=0), name="sale_price_positive"),
            models.CheckConstraint(
                condition=Q(surplus__gte=0) & Q(shortfall__gte=0), name="sale_amounts_not_negative"
            ),
        ]

    def __str__(self):
        return f"{self.lot}: {self.price}"


class Shortfall(models.Model):
    """Dues a sale did not cover, for the District Magistrate to write off (decision 7)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Awaiting write-off")
        WRITTEN_OFF = "written_off", _("Written off")

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    sale = models.OneToOneField(
        Sale, on_delete=models.PROTECT, null=True, blank=True, related_name="shortfall_record"
    )
    s16_case = models.OneToOneField(
        S16Case, on_delete=models.PROTECT, null=True, blank=True, related_name="shortfall_record"
    )
    # A disposal under the proviso to s.14 whose price (if any) did not cover the dues.
    disposal = models.OneToOneField(
        "auctions.DisposalOrder",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="shortfall_record",
    )
    fines = models.DecimalField(max_digits=12, decimal_places=2)
    feeding = models.DecimalField(max_digits=12, decimal_places=2)
    expenses = models.DecimalField(max_digits=12, decimal_places=2)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    recorded_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    objects = PoundScopedQuerySet.as_manager()

    class Meta:
        verbose_name = _("shortfall")
        verbose_name_plural = _("shortfalls")
        constraints = [
            models.CheckConstraint(
                condition=Q(sale__isnull=False)
                | Q(s16_case__isnull=False)
                | Q(disposal__isnull=False),
                name="shortfall_has_source",
            ),
        ]

    def __str__(self):
        return f"Shortfall {self.total}"

    @property
    def total(self):
        return self.fines + self.feeding + self.expenses


class DisposalOrder(MakerChecker):
    """The District Magistrate's order under the proviso to s.14: cattle unlikely to fetch a
    fair price are disposed of as he thinks fit. The office prepares; the Magistrate approves."""

    class Status(models.TextChoices):
        PROPOSED = "proposed", _("Awaiting the Magistrate's approval")
        APPROVED = "approved", _("Approved and carried out")
        REJECTED = "rejected", _("Not approved")

    class Mode(models.TextChoices):
        GAUSHALA = "gaushala", _("Transfer to a gaushala")
        INSTITUTION = "institution", _("Transfer to an animal welfare institution")
        PRIVATE_SALE = "private_sale", _("Sale by private treaty")
        DESTROYED = "destroyed", _("Humane destruction on a veterinary certificate")
        OTHER = "other", _("Other")

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    animals = models.ManyToManyField(Animal, related_name="disposal_orders")
    number = models.CharField(_("order number"), max_length=40, unique=True)
    reason = models.TextField(_("why a fair price is unlikely"))
    mode = models.CharField(_("mode of disposal"), max_length=20, choices=Mode.choices)
    recipient = models.CharField(_("recipient"), max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED)
    prepared_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    prepared_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(max_length=300, blank=True)
    # The order form's single-use key: sent twice, one order (null when prepared by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = PoundScopedQuerySet.as_manager()
    maker_refusal = _("You prepared this order: another person decides it.")

    class Meta:
        verbose_name = _("disposal order (s.14 proviso)")
        verbose_name_plural = _("disposal orders (s.14 proviso)")
        ordering = ["-prepared_at"]
        # The disposal orders' two keyset lists (auctions.selectors.DISPOSAL_LISTS).
        indexes = [
            models.Index(fields=["status", "-prepared_at", "-id"], name="disposal_status_prepared"),
            models.Index(fields=["-prepared_at", "-id"], name="disposal_prepared"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="proposed") | Q(decided_by__isnull=False),
                name="disposal_decided_by_someone",
            ),
            # Maker-checker: whoever prepared the order does not decide it.
            models.CheckConstraint(
                condition=~Q(decided_by=F("prepared_by")),
                name="disposal_decided_by_another",
            ),
        ]

    def __str__(self):
        return self.number
