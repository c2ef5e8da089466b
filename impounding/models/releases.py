"""Releases (s.13, s.15), receipts, deposits, complaints (ss.20-22) and court orders (s.19)."""

from decimal import Decimal

from django.db import connection, models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.makerchecker import MakerChecker
from accounts.models import IssuedDocument, Pound, User
from accounts.scoping import PoundScopedQuerySet
from ledger.models import PaymentMode

from . import complaint_states
from .choices import ClaimantRole
from .register import Impoundment, media_upload


class ReceiptQuerySet(PoundScopedQuerySet):
    def replaceable_for(self, entry):
        """The entry's cancelled payment receipts that no corrected receipt replaces yet
        (docs/domain.md decision 11)."""
        return self.filter(
            release__impoundment=entry,
            kind=Receipt.Kind.PAYMENT,
            cancelled_at__isnull=False,
            replaced_by__isnull=True,
        ).order_by("serial")


class Receipt(models.Model):
    """A money receipt. Serial numbers are unbroken per pound per financial year (April-March);
    a cancelled receipt keeps its number and shows as cancelled."""

    class Kind(models.TextChoices):
        PAYMENT = "payment", _("Receipt for fines and feeding charges (s.13)")
        DEPOSIT = "deposit", _("Deposit receipt (s.15)")

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="receipts")
    financial_year = models.CharField(_("financial year"), max_length=7)
    serial = models.PositiveIntegerField()
    number = models.CharField(_("receipt number"), max_length=40, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    issued_at = models.DateTimeField(default=timezone.now)
    issued_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    payer_name = models.CharField(_("received from"), max_length=150)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    payment_mode = models.CharField(max_length=10, choices=PaymentMode.choices)
    payment_reference = models.CharField(max_length=120, blank=True)
    document = models.OneToOneField(IssuedDocument, on_delete=models.PROTECT, related_name="+")
    cancelled_at = models.DateTimeField(null=True, blank=True)
    cancelled_reason = models.CharField(max_length=250, blank=True)
    # A corrected receipt takes the next serial and names the cancelled one it replaces.
    replaces = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="replaced_by"
    )

    objects = ReceiptQuerySet.as_manager()

    class Meta:
        verbose_name = _("receipt")
        verbose_name_plural = _("receipts")
        ordering = ["pound", "financial_year", "serial"]
        # The receipts list of the API (api.custody), latest issued first: over many pounds
        # (an auditor, the office) and in one (a pound-keeper).
        indexes = [
            models.Index(fields=["-issued_at", "-id"], name="receipt_issued"),
            models.Index(fields=["pound", "-issued_at", "-id"], name="receipt_pound_issued"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["pound", "financial_year", "serial"], name="receipt_serial_unique"
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="receipt_amount_positive"),
            models.CheckConstraint(
                condition=Q(cancelled_at__isnull=True, cancelled_reason="")
                | Q(cancelled_at__isnull=False) & ~Q(cancelled_reason=""),
                name="receipt_cancelled_with_reason",
            ),
        ]

    def __str__(self):
        return self.number


class ReceiptCancellation(MakerChecker):
    """A receipt issued in error: the pound-keeper asks, with the reason, and the office
    decides (docs/domain.md decision 11). Approved, the receipt keeps its number and shows
    CANCELLED; the money is reversed and the animals are back in custody."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Awaiting the office")
        APPROVED = "approved", _("Approved: receipt cancelled")
        REJECTED = "rejected", _("Refused")

    receipt = models.ForeignKey(Receipt, on_delete=models.PROTECT, related_name="cancellations")
    reason = models.CharField(_("why the receipt was issued in error"), max_length=250)
    requested_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(_("note"), max_length=250, blank=True)
    # The form's single-use key: the request sent twice is one request (null when asked by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = PoundScopedQuerySet.through("receipt__pound_id").as_manager()

    maker_field = "requested_by"
    maker_refusal = _("You asked for this cancellation: another person decides it.")

    class Meta:
        verbose_name = _("receipt cancellation")
        verbose_name_plural = _("receipt cancellations")
        ordering = ["-requested_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["receipt"],
                condition=Q(status__in=["pending", "approved"]),
                name="receipt_cancellation_one_standing",
            ),
            models.CheckConstraint(
                condition=Q(status="pending") | Q(decided_by__isnull=False),
                name="receipt_cancellation_decided_by",
            ),
            # Maker-checker: the keeper who asks does not approve.
            models.CheckConstraint(
                condition=~Q(decided_by=models.F("requested_by")),
                name="receipt_cancellation_decided_by_another",
            ),
        ]

    def __str__(self):
        return f"{self.receipt}: {self.get_status_display()}"


class Release(models.Model):
    """One claim: a claimant takes back some or all of an entry's animals, on payment (s.13) or
    on deposit (s.15). Made once: the idempotency key makes a replayed confirmation harmless."""

    class Kind(models.TextChoices):
        PAYMENT = "s13", _("On payment (s.13)")
        DEPOSIT = "s15", _("On deposit, seizure disputed (s.15)")

    class Acknowledgement(models.TextChoices):
        REGISTER_PAGE = "register_page", _("Signed the paper register")
        SIGNATURE = "signature", _("Signed on the screen")

    impoundment = models.ForeignKey(Impoundment, on_delete=models.PROTECT, related_name="releases")
    kind = models.CharField(max_length=4, choices=Kind.choices)
    idempotency_key = models.UUIDField(unique=True)
    claimant_name = models.CharField(_("claimant's name"), max_length=150)
    claimant_address = models.CharField(_("claimant's address"), max_length=250)
    claimant_phone = models.CharField(_("claimant's phone"), max_length=15, blank=True)
    claimant_role = models.CharField(_("claims as"), max_length=10, choices=ClaimantRole.choices)
    owner_name = models.CharField(_("owner's name"), max_length=150)
    agent_authority = models.CharField(
        _("authority relied on"),
        max_length=250,
        blank=True,
        help_text=_("For an agent: the letter, document or other authority shown."),
    )
    id_document = models.CharField(_("identity document seen"), max_length=120, blank=True)
    fines = models.DecimalField(max_digits=12, decimal_places=2)
    feeding = models.DecimalField(max_digits=12, decimal_places=2)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    payment_mode = models.CharField(_("paid by"), max_length=10, choices=PaymentMode.choices)
    payment_reference = models.CharField(_("payment reference"), max_length=120, blank=True)
    ground = models.CharField(
        _("ground stated"),
        max_length=300,
        blank=True,
        help_text=_("s.15: why the owner says the seizure was illegal."),
    )
    acknowledgement = models.CharField(max_length=15, choices=Acknowledgement.choices)
    register_page = models.CharField(_("register page signed"), max_length=30, blank=True)
    signature = models.ImageField(upload_to=media_upload("signatures"), blank=True)
    released_at = models.DateTimeField(default=timezone.now)
    released_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    receipt = models.OneToOneField(Receipt, on_delete=models.PROTECT, related_name="release")

    objects = PoundScopedQuerySet.through("impoundment__pound_id").as_manager()

    class Meta:
        verbose_name = _("release")
        verbose_name_plural = _("releases")
        ordering = ["released_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount=models.F("fines") + models.F("feeding")),
                name="release_amount_is_sum",
            ),
            models.CheckConstraint(
                condition=~Q(claimant_role="agent") | ~Q(agent_authority=""),
                name="release_agent_has_authority",
            ),
            models.CheckConstraint(
                condition=~Q(acknowledgement="register_page") | ~Q(register_page=""),
                name="release_register_page_given",
            ),
        ]

    def __str__(self):
        return f"{self.impoundment} → {self.claimant_name}"


class ReleaseLine(models.Model):
    """What each animal of a release was charged: the itemised statement, as it stood."""

    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="lines")
    # One standing line per animal: a cancelled receipt's lines stay, marked, beside the
    # corrected receipt's.
    animal = models.ForeignKey(
        "impounding.Animal", on_delete=models.PROTECT, related_name="release_lines"
    )
    cancelled = models.BooleanField(default=False)
    category = models.CharField(max_length=250)
    fine = models.DecimalField(max_digits=12, decimal_places=2)
    feeding_days = models.PositiveIntegerField()
    feeding = models.DecimalField(max_digits=12, decimal_places=2)
    detail = models.JSONField(default=dict)

    class Meta:
        ordering = ["animal__number"]
        constraints = [
            models.UniqueConstraint(
                fields=["animal"], condition=Q(cancelled=False), name="release_line_one_standing"
            )
        ]

    def __str__(self):
        return f"{self.release}: {self.animal}"


class Deposit(models.Model):
    """A s.15 deposit, held apart from revenue until the complaint is decided."""

    class Status(models.TextChoices):
        HELD = "held", _("Held")
        REFUND_DUE = "refund_due", _("To be refunded (seizure held illegal)")
        REFUNDED = "refunded", _("Refunded")
        APPLIED = "applied", _("Applied as payment of fines and charges")

    release = models.OneToOneField(Release, on_delete=models.PROTECT, related_name="deposit")
    # The entry's pound, copied as an animal's is (docs/decisions/0007), so that a pound's
    # deposits, and the office's queues of those held, are an index range rather than a join
    # through every release the pound ever made. Never set by hand: save() copies it, and on
    # PostgreSQL a trigger sets it from the release's entry on every insert and update.
    pound = models.ForeignKey(
        Pound, on_delete=models.PROTECT, related_name="+", editable=False, db_index=False
    )  # served by the deposit_pound_deadline index below
    fines = models.DecimalField(max_digits=12, decimal_places=2)
    feeding = models.DecimalField(max_digits=12, decimal_places=2)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    complaint_deadline = models.DateField(_("last day to complain (s.20)"))
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.HELD)
    applied_at = models.DateTimeField(null=True, blank=True)
    applied_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    refunded_at = models.DateTimeField(null=True, blank=True)
    refunded_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # The office may confirm ahead that the deposit is to be applied if no complaint is made in
    # time; the daily run then applies it the day after the window closes.
    application_confirmed_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    application_confirmed_at = models.DateTimeField(null=True, blank=True)
    refund_mode = models.CharField(max_length=10, choices=PaymentMode.choices, blank=True)
    refund_reference = models.CharField(max_length=120, blank=True)
    # When the office, not the pound-keeper, paid the refund out of the till: its authority.
    refund_authority = models.CharField(_("authority for the payment"), max_length=200, blank=True)
    # The state of the complaints that decide it (complaint_states): the office's queues read it.
    complaint_state = models.CharField(
        max_length=10,
        default=complaint_states.NONE,
        db_default=complaint_states.NONE,
        editable=False,
    )

    objects = PoundScopedQuerySet.as_manager()

    class Meta:
        verbose_name = _("deposit (s.15)")
        verbose_name_plural = _("deposits (s.15)")
        # The deposits held now, in the order the office's lists show them (office.dashboard):
        # the office's pages read these, not every deposit ever taken.
        indexes = [
            models.Index(
                fields=["complaint_deadline", "id"],
                name="deposit_held",
                condition=Q(status="held"),
            ),
            # The deposits whose refund is due (s.20), as few and as open as those held: the
            # deposits page's list walked these, not the whole deadline index, to find them.
            models.Index(
                fields=["complaint_deadline", "id"],
                name="deposit_refund_due",
                condition=Q(status="refund_due"),
            ),
            # A pound's deposits, and every pound's, latest last day to complain first (the
            # API's list), walked in order and stopped at the page.
            models.Index(
                fields=["pound", "-complaint_deadline", "-id"], name="deposit_pound_deadline"
            ),
            models.Index(fields=["-complaint_deadline", "-id"], name="deposit_deadline"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount=models.F("fines") + models.F("feeding")),
                name="deposit_amount_is_sum",
            ),
            models.CheckConstraint(
                condition=~Q(status="applied") | Q(applied_at__isnull=False),
                name="deposit_applied_dated",
            ),
            models.CheckConstraint(
                condition=~Q(status="refunded") | Q(refunded_at__isnull=False),
                name="deposit_refunded_dated",
            ),
        ]

    def __str__(self):
        return f"Deposit {self.release.receipt.number}"

    def save(self, *args, **kwargs):
        if self.pound_id is None and self.release_id is not None:
            self.pound_id = self.release.impoundment.pound_id
        adding = self._state.adding
        super().save(*args, **kwargs)
        if adding and connection.vendor != "postgresql":  # there, a trigger has done it
            complaint_states.refresh(self.release.impoundment_id)

    @property
    def impoundment(self):
        return self.release.impoundment


class Complaint(models.Model):
    """A complaint of illegal seizure or detention (ss.20-21) and the Magistrate's finding
    (s.22)."""

    class Mode(models.TextChoices):
        WRITTEN = "written", _("In writing")
        ORAL = "oral", _("Orally (substance written down by the Magistrate)")

    class Outcome(models.TextChoices):
        PENDING = "pending", _("Pending")
        UPHELD = "upheld", _("Seizure or detention held illegal (s.22)")
        DISMISSED = "dismissed", _("Dismissed")

    impoundment = models.ForeignKey(
        Impoundment, on_delete=models.PROTECT, related_name="complaints"
    )
    deposit = models.ForeignKey(
        Deposit, on_delete=models.PROTECT, null=True, blank=True, related_name="complaints"
    )
    complainant_name = models.CharField(_("complainant"), max_length=150)
    through_agent = models.BooleanField(_("made through an agent"), default=False)
    agent_name = models.CharField(_("agent's name"), max_length=150, blank=True)
    agent_acquaintance = models.CharField(
        _("how the agent knows the circumstances"), max_length=250, blank=True
    )
    mode = models.CharField(_("made"), max_length=10, choices=Mode.choices)
    substance = models.TextField(_("substance of the complaint"), blank=True)
    court = models.CharField(_("court of the Magistrate"), max_length=200)
    case_number = models.CharField(_("case number"), max_length=80, blank=True)
    filed_on = models.DateField(_("filed on"))
    deadline = models.DateField(_("last day to complain (s.20)"))
    summons_on = models.DateField(_("summons issued on"), null=True, blank=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, default=Outcome.PENDING)
    decided_on = models.DateField(_("decided on"), null=True, blank=True)
    order_reference = models.CharField(_("order reference"), max_length=120, blank=True)
    compensation = models.DecimalField(
        _("compensation awarded (₹)"), max_digits=10, decimal_places=2, default=Decimal("0.00")
    )
    payable_by = models.CharField(_("payable by"), max_length=250, blank=True)
    recorded_at = models.DateTimeField(default=timezone.now)
    # The complaint form's single-use key: sent twice, one complaint (null when made by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")

    objects = PoundScopedQuerySet.through("impoundment__pound_id").as_manager()

    class Meta:
        verbose_name = _("complaint (s.20)")
        verbose_name_plural = _("complaints (s.20)")
        ordering = ["filed_on"]
        # The complaints still to decide, in the deposits page's order: that list walks these,
        # not every complaint ever made (0031).
        indexes = [
            models.Index(
                fields=["filed_on", "id"], name="complaint_pending", condition=Q(outcome="pending")
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(outcome="pending") | Q(decided_on__isnull=False),
                name="complaint_decided_dated",
            ),
            models.CheckConstraint(
                condition=Q(compensation__gte=0), name="complaint_compensation_ge_0"
            ),
        ]

    def __str__(self):
        return f"{self.impoundment}: {self.complainant_name}"

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        if connection.vendor != "postgresql":  # there, a trigger has done it
            complaint_states.refresh(self.impoundment_id)

    @property
    def in_time(self):
        return self.filed_on <= self.deadline


class CourtOrderQuerySet(PoundScopedQuerySet):
    def to_check(self):
        """The orders the office has still to check against the court's record: those awaiting
        their check before the release, and any released before the check was required."""
        return self.filter(reviewed_at__isnull=True).exclude(status=CourtOrder.Status.REJECTED)


class CourtOrder(MakerChecker):
    """An order of a Magistrate or Civil Court releasing cattle (s.19; s.22).

    The pound-keeper records it with its scan; the animals stay in the pound until someone else
    (the District Magistrate's office) has checked it against the court's record and confirmed
    it (docs/decisions/0056)."""

    class Kind(models.TextChoices):
        S22 = "s22", _("Magistrate's order on a complaint (s.22)")
        MAGISTRATE = "magistrate", _("Other order of a Magistrate (s.19)")
        CIVIL_COURT = "civil", _("Order of a Civil Court (s.19)")

    class Status(models.TextChoices):
        AWAITING = "awaiting", _("Court-order release awaiting its check")
        RELEASED = "released", _("Checked: the animals released")
        REJECTED = "rejected", _("Rejected on the check: the animals stay")

    maker_field = "recorded_by"
    maker_refusal = _("Whoever recorded a court order may not check it.")

    impoundment = models.ForeignKey(
        Impoundment, on_delete=models.PROTECT, related_name="court_orders"
    )
    complaint = models.ForeignKey(
        Complaint, on_delete=models.PROTECT, null=True, blank=True, related_name="court_orders"
    )
    kind = models.CharField(_("order"), max_length=12, choices=Kind.choices)
    # The database defaults are for the previous release's code, which names neither column and
    # released the animals at once, while it still serves after the migration (docs/operations.md,
    # "Old code on the new schema").
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=Status.choices,
        default=Status.AWAITING,
        db_default=Status.RELEASED,
    )
    court = models.CharField(_("court"), max_length=200)
    case_number = models.CharField(_("case number"), max_length=80)
    order_date = models.DateField(_("date of the order"))
    scan = models.FileField(_("scan of the order"), upload_to=media_upload("orders"))
    order_text = models.TextField(_("what the order says"), blank=True, default="", db_default="")
    conditions = models.TextField(_("conditions in the order"), blank=True)
    # The animals the order names: they stay in the pound until the order is confirmed.
    animals_named = models.ManyToManyField(
        "impounding.Animal", related_name="court_orders_named", blank=True
    )
    # Dues left unpaid by the release, and who the order makes liable for them.
    unpaid_fines = models.DecimalField(max_digits=12, decimal_places=2)
    unpaid_feeding = models.DecimalField(max_digits=12, decimal_places=2)
    dues_payable_by = models.CharField(_("dues payable by"), max_length=250, blank=True)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # Who checked the order against the court's record, and when (its `verification` says how).
    reviewed_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_note = models.CharField(max_length=300, blank=True)
    # The order form's single-use key: sent twice, it records one order (null when made by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = CourtOrderQuerySet.through("impoundment__pound_id").as_manager()

    class Meta:
        verbose_name = _("court order")
        verbose_name_plural = _("court orders")
        ordering = ["order_date"]
        constraints = [
            models.CheckConstraint(
                condition=Q(reviewed_by__isnull=True) | ~Q(reviewed_by=models.F("recorded_by")),
                name="court_order_checked_by_another",
            ),
            models.CheckConstraint(
                condition=~Q(status="rejected") | Q(reviewed_at__isnull=False),
                name="court_order_rejected_when_checked",
            ),
        ]

    def __str__(self):
        return f"{self.court} {self.case_number}"

    @property
    def unpaid_total(self):
        return self.unpaid_fines + self.unpaid_feeding


class CourtOrderCheck(models.Model):
    """The check of a recorded court order against the court's own record, by someone other
    than whoever recorded it: confirmed (the animals released) or rejected (they stay)."""

    class Outcome(models.TextChoices):
        CONFIRMED = "confirmed", _("Confirmed: release the animals")
        REJECTED = "rejected", _("Rejected: the animals stay in the pound")

    class How(models.TextChoices):
        CERTIFIED_COPY = "certified_copy", _("A certified copy received from the court")
        COURT_WEBSITE = "court_website", _("The order on the court's website (eCourts)")
        COURT_OFFICE = "court_office", _("Confirmed with the court's office (reader or clerk)")
        OWN_ORDER = "own_order", _("The Magistrate's own order, in the office's file")

    order = models.OneToOneField(CourtOrder, on_delete=models.PROTECT, related_name="verification")
    outcome = models.CharField(_("outcome"), max_length=10, choices=Outcome.choices)
    how = models.CharField(_("how it was checked"), max_length=20, choices=How.choices)
    reference = models.CharField(_("reference of the check"), max_length=120)
    reason = models.TextField(_("reason"), blank=True)
    checked_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    checked_at = models.DateTimeField(default=timezone.now)
    # The check form's single-use key: sent twice, one check.
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = PoundScopedQuerySet.through("order__impoundment__pound_id").as_manager()

    class Meta:
        verbose_name = _("check of a court order")
        verbose_name_plural = _("checks of court orders")
        constraints = [
            models.CheckConstraint(
                condition=Q(outcome="confirmed") | ~Q(reason=""),
                name="court_order_check_rejection_has_reason",
            ),
        ]

    def __str__(self):
        return f"{self.order}: {self.get_outcome_display()}"


class SeizerLiability(models.Model):
    """What a s.22 order makes the seizer pay: compensation, and the fines and charges.
    Recoverable as a fine (s.23); the system tracks recovery, it does not collect it."""

    class Recovery(models.TextChoices):
        PENDING = "pending", _("Not yet recovered")
        RECOVERED = "recovered", _("Recovered")
        WRITTEN_OFF = "written_off", _("Written off")

    impoundment = models.ForeignKey(
        Impoundment, on_delete=models.PROTECT, related_name="seizer_liabilities"
    )
    complaint = models.OneToOneField(
        Complaint, on_delete=models.PROTECT, related_name="seizer_liability"
    )
    payable_by = models.CharField(max_length=250)
    fines = models.DecimalField(max_digits=12, decimal_places=2)
    feeding = models.DecimalField(max_digits=12, decimal_places=2)
    compensation = models.DecimalField(max_digits=12, decimal_places=2)
    recovery = models.CharField(max_length=12, choices=Recovery.choices, default=Recovery.PENDING)

    class Meta:
        verbose_name = _("seizer's liability (s.22)")
        verbose_name_plural = _("seizers' liabilities (s.22)")

    def __str__(self):
        return f"{self.impoundment}: {self.payable_by}"

    @property
    def total(self):
        return self.fines + self.feeding + self.compensation
