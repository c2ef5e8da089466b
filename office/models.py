"""The District Magistrate's office: fines remitted by the pounds, and the surplus proceeds of
s.14 sales held in deposit for three months, claimed by owners or credited to revenue (s.17)."""

import uuid

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Replace, Upper
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.makerchecker import MakerChecker
from accounts.models import District, IssuedDocument, Pound, User
from accounts.scoping import DistrictScopedQuerySet, PoundScopedQuerySet
from kernel.uploads import UploadName


class Remittance(MakerChecker):
    """Fines collected at a pound, remitted to the District Magistrate with a challan (s.17)."""

    class Status(models.TextChoices):
        SENT = "sent", _("Sent: awaiting the office's confirmation")
        CONFIRMED = "confirmed", _("Confirmed received")

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="remittances")
    number = models.CharField(_("remittance number"), max_length=40, unique=True)
    amount = models.DecimalField(_("amount (₹)"), max_digits=12, decimal_places=2)
    challan_number = models.CharField(_("challan or treasury reference"), max_length=80)
    treasury = models.CharField(_("treasury or bank"), max_length=150)
    remitted_on = models.DateField(_("remitted on"))
    from_cash = models.BooleanField(_("paid from cash (not from UPI collections)"), default=True)
    sent_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    sent_at = models.DateTimeField(default=timezone.now)
    # The money leaves the pound's till: the keeper's to send; when the office sends it instead,
    # the written authority it sends on.
    authority = models.CharField(_("authority for the payment"), max_length=200, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SENT)
    confirmed_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    # The form's single-use key: a form sent twice, or twenty times at once, records one
    # remittance (null for remittances recorded by code that sends each once).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = PoundScopedQuerySet.as_manager()
    maker_field = "sent_by"
    maker_refusal = _("You sent this remittance: another person confirms it.")

    class Meta:
        verbose_name = _("remittance of fines")
        verbose_name_plural = _("remittances of fines")
        ordering = ["-remitted_on", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="remittance_positive"),
            models.CheckConstraint(
                condition=~Q(status="confirmed") | Q(confirmed_at__isnull=False),
                name="remittance_confirmed_dated",
            ),
            # Maker-checker: whoever sent the money does not confirm it arrived.
            models.CheckConstraint(
                condition=~Q(confirmed_by=F("sent_by")),
                name="remittance_confirmed_by_another",
            ),
            # A treasury's challan (an e-GRAS GRN, or a manual challan's number) settles one
            # payment: the same challan may not prove two remittances. Compared as the office
            # compares it on confirming: without case or spaces.
            models.UniqueConstraint(
                Upper(Replace("challan_number", Value(" "), Value(""))),
                name="remittance_challan_once",
                violation_error_message=_(
                    "This challan is already recorded for another remittance: a challan "
                    "settles one payment."
                ),
            ),
        ]
        # The remittances page's latest confirmed, walked in order and stopped at the page, not
        # every remittance the pounds ever confirmed sorted (migration 0009).
        indexes = [
            models.Index(
                fields=["-confirmed_at", "-id"],
                name="remittance_confirmed_latest",
                condition=Q(status="confirmed"),
            ),
            # The API's list, newest first (migration 0010).
            models.Index(fields=["-remitted_on", "-id"], name="remittance_newest"),
        ]

    def __str__(self):
        return self.number

    @staticmethod
    def challan_key(challan_number):
        """The challan as the unique index compares it: without case or spaces."""
        return challan_number.replace(" ", "").upper()


class SurplusDeposit(models.Model):
    """Surplus proceeds of a s.14 sale, held in deposit by the District Magistrate for three
    months from the day his office received them, then credited to revenue (s.17; s.31)."""

    class Status(models.TextChoices):
        AWAITING_RECEIPT = "awaiting", _("At the pound: to be sent to the office")
        HELD = "held", _("Held in deposit")
        PAID = "paid", _("Paid to the owner on a proved claim")
        TRANSFERRED = "transferred", _("Credited to revenue")

    class Destination(models.TextChoices):
        STATE_REVENUE = "state", _("Revenues of the State (s.17)")
        LOCAL_FUND = "local_fund", _("Local fund (s.31)")

    sale = models.OneToOneField(
        "auctions.Sale", on_delete=models.PROTECT, related_name="surplus_deposit"
    )
    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    amount = models.DecimalField(_("amount (₹)"), max_digits=12, decimal_places=2)
    sale_date = models.DateField(_("date of sale"))
    received_on = models.DateField(_("received by the office on"), null=True, blank=True)
    received_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    expires_on = models.DateField(_("held until"), null=True, blank=True)
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.AWAITING_RECEIPT
    )
    destination = models.CharField(max_length=12, choices=Destination.choices, blank=True)
    transferred_at = models.DateTimeField(null=True, blank=True)
    transfer_memo = models.OneToOneField(
        IssuedDocument, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    objects = PoundScopedQuerySet.as_manager()

    class Meta:
        verbose_name = _("surplus deposit (s.17)")
        verbose_name_plural = _("surplus deposits (s.17)")
        ordering = ["expires_on", "pk"]
        indexes = [
            models.Index(fields=["status", "expires_on"]),
            # The closed list and the API's, latest sale first, walked in order and stopped at
            # the page; and those awaiting their receipt, oldest first (office.selectors).
            models.Index(fields=["-sale_date", "-id"], name="surplus_sale_date"),
            models.Index(
                fields=["sale_date", "id"],
                name="surplus_awaiting",
                condition=Q(status="awaiting"),
            ),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="surplus_positive"),
            models.CheckConstraint(
                condition=Q(status="awaiting")
                | Q(received_on__isnull=False, expires_on__isnull=False),
                name="surplus_received_dated",
            ),
            models.CheckConstraint(
                condition=~Q(status="transferred")
                | Q(transferred_at__isnull=False) & ~Q(destination=""),
                name="surplus_transfer_recorded",
            ),
        ]

    def __str__(self):
        return f"Surplus {self.amount} ({self.sale})"

    def check_claim(self, filed_on, *, today):
        """Refuse an owner's claim filed on `filed_on`: only a surplus held in deposit, on a day
        between the sale and today and within the three months (s.17), and not while another
        claim awaits the Magistrate's decision. Reads the claims through `claims.all()`, so a
        page that prefetched them asks nothing more."""
        if self.status != self.Status.HELD:
            raise ValidationError(gettext("Only a surplus held in deposit can be claimed."))
        if filed_on > today or filed_on > self.expires_on:
            message = gettext("A claim must be made within the three months (until %(date)s).")
            date = self.expires_on.strftime("%d-%m-%Y")
            raise ValidationError({"filed_on": message % {"date": date}})
        if filed_on < self.sale_date:
            # There was no surplus to claim before the sale.
            message = gettext("The date must fall between the sale and today.")
            raise ValidationError({"filed_on": message})
        if any(claim.status == SurplusClaim.Status.PENDING for claim in self.claims.all()):
            raise ValidationError(gettext("A claim to this surplus is already awaiting decision."))

    def claimable_on(self, day):
        """Whether a claim filed on `day` may be recorded that day."""
        try:
            self.check_claim(day, today=day)
        except ValidationError:
            return False
        return True


class SurplusClaim(MakerChecker):
    """An owner's claim to a held surplus, with the proof examined, decided by the Magistrate."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Awaiting the Magistrate's decision")
        ALLOWED = "allowed", _("Claim proved: paid")
        REJECTED = "rejected", _("Claim not proved")

    deposit = models.ForeignKey(SurplusDeposit, on_delete=models.PROTECT, related_name="claims")
    claimant_name = models.CharField(_("claimant"), max_length=150)
    claimant_address = models.CharField(_("address"), max_length=250)
    capacity = models.CharField(
        _("claims as"), max_length=120, help_text=_("Owner, his agent, or his heir.")
    )
    proof = models.TextField(_("proof offered"))
    proof_scan = models.FileField(
        _("scan of the proof"), upload_to=UploadName("claims"), blank=True
    )
    filed_on = models.DateField(_("filed on"))
    prepared_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision = models.TextField(_("findings on the proof"), blank=True)
    payment_mode = models.CharField(max_length=10, blank=True)
    payment_reference = models.CharField(max_length=120, blank=True)
    # The form's single-use key: the claim form sent twice records one claim.
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = PoundScopedQuerySet.through("deposit__pound_id").as_manager()
    maker_refusal = _("You prepared this claim: another person decides it.")

    class Meta:
        verbose_name = _("claim to surplus (s.17)")
        verbose_name_plural = _("claims to surplus (s.17)")
        ordering = ["-filed_on"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="pending") | Q(decided_by__isnull=False),
                name="surplus_claim_decided_by",
            ),
            # Maker-checker: whoever prepared the claim does not decide it.
            models.CheckConstraint(
                condition=~Q(decided_by=F("prepared_by")),
                name="surplus_claim_decided_by_another",
            ),
        ]
        # The API's list, newest first, walked and each claim's deposit probed for the reader's
        # pounds, not every claim joined to its deposit and sorted (migration 0011).
        indexes = [models.Index(fields=["-filed_on", "-id"], name="surplus_claim_newest")]

    def __str__(self):
        return f"{self.claimant_name}: {self.deposit}"


class ChartMonth(models.Model):
    """The dashboard's figures of one pound for one month that is over: entries made, and the
    animals whose custody ended, by how they left, with their total time in custody. A derived
    cache, not a record: written the first time a closed month is charted, so that the charts
    read twelve small rows a pound instead of a year of the register. A closed month's figures
    are kept as they stood then, as its monthly return is; only the current month is live."""

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    month = models.DateField()  # its first day, in Asia/Kolkata
    impounded = models.PositiveIntegerField(default=0)
    # {state: [animals, seconds in custody]} of the animals whose custody ended in the month.
    ended = models.JSONField(default=dict)
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("month of the charts")
        verbose_name_plural = _("months of the charts")
        constraints = [
            models.UniqueConstraint(fields=["pound", "month"], name="chart_month_per_pound")
        ]

    def __str__(self):
        return f"{self.pound} {self.month:%Y-%m}"


class PreparedFile(models.Model):
    """A file the worker prepares for one user: an export or a return, too slow for a request.
    The request records what to make and who may have it; the task (office/tasks.py) makes it
    once, and a retried task finds it made."""

    class Kind(models.TextChoices):
        REGISTER = "register", _("Register as CSV")
        LEDGER = "ledger", _("Ledger as CSV")
        MONTHLY_RETURN = "monthly_return", _("Monthly return of a pound")
        DISTRICT_RETURN = "district_return", _("Monthly return of a district")

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting for the worker")
        RUNNING = "running", _("Being prepared")
        READY = "ready", _("Ready")
        FAILED = "failed", _("Could not be prepared")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The form's idempotency key: a second press of the button finds the first file.
    key = models.UUIDField(unique=True)
    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # What to make, fixed when asked: the pounds and districts the owner might see then.
    params = models.JSONField()
    filename = models.CharField(max_length=120)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    file = models.FileField(upload_to=UploadName("prepared"), blank=True)
    size = models.PositiveBigIntegerField(default=0)
    requested_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The worker's task that makes it, the latest one enqueued: given up after its worker
    # stopped on every try (kernel.worker.sweep), the file can no longer be made.
    task_id = models.CharField(max_length=64, blank=True, default="", editable=False)

    class Meta:
        verbose_name = _("prepared file")
        verbose_name_plural = _("prepared files")
        indexes = [models.Index(fields=["owner", "-requested_at"])]

    def __str__(self):
        return self.filename


class KeptCashBook(models.Model):
    """A pound's daily cash book as last drawn, with the fingerprint of what it says
    (kernel.documents.html_basis): a download whose book says the same gets this file, one whose
    book has changed since (a payment recorded, a late entry) is drawn afresh and kept in its
    place. A derived cache of a working record, not an issued document (docs/decisions/0066)."""

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    day = models.DateField()
    drawn_from = models.CharField(max_length=64)
    file = models.FileField(upload_to=UploadName("cashbooks"))
    drawn_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("kept cash book")
        verbose_name_plural = _("kept cash books")
        constraints = [
            models.UniqueConstraint(fields=["pound", "day"], name="kept_cash_book_per_day")
        ]

    def __str__(self):
        return f"{self.pound} {self.day}"


class TreasuryChallan(MakerChecker):
    """The treasury's proof of one transfer to the State: a remittance of fines, or a surplus
    credited to the State's revenues (s.17). An e-GRAS or GRAS challan's GRN, the bank's CIN,
    and the treasury scroll that lists it, by number and date.

    A row is the GRN's defacement (ADR 0076): the unique index refuses the same GRN for a
    second transfer, of either kind, compared without case or spaces. Whoever records it does
    not confirm it."""

    grn = models.CharField(_("GRN (challan's government reference number)"), max_length=80)
    cin = models.CharField(
        _("CIN (bank's challan identification number)"), max_length=40, blank=True
    )
    scroll_number = models.CharField(_("treasury scroll number"), max_length=40, blank=True)
    scroll_date = models.DateField(_("scroll date"), null=True, blank=True)
    remittance = models.OneToOneField(
        Remittance, on_delete=models.PROTECT, null=True, blank=True, related_name="treasury_challan"
    )
    surplus = models.OneToOneField(
        SurplusDeposit,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="treasury_challan",
    )
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)
    confirmed_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    # The recording form's single-use key: sent twice, it records one challan (null for the
    # challans that a remittance defaces as it is sent).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    maker_field = "recorded_by"
    maker_refusal = _("You recorded this GRN: another person confirms it.")

    class Meta:
        verbose_name = _("treasury challan")
        verbose_name_plural = _("treasury challans")
        constraints = [
            # The defacement: a GRN settles one transfer only.
            models.UniqueConstraint(
                Upper(Replace("grn", Value(" "), Value(""))),
                name="treasury_grn_once",
                violation_error_message=_(
                    "This GRN is already defaced: it settled another transfer to the State."
                ),
            ),
            models.CheckConstraint(
                condition=Q(remittance__isnull=True, surplus__isnull=False)
                | Q(remittance__isnull=False, surplus__isnull=True),
                name="treasury_challan_one_transfer",
            ),
            models.CheckConstraint(
                condition=~Q(confirmed_by=F("recorded_by")),
                name="treasury_challan_confirmed_by_another",
            ),
            models.CheckConstraint(
                condition=Q(confirmed_by__isnull=True)
                | Q(confirmed_at__isnull=False, scroll_date__isnull=False)
                & ~Q(cin="")
                & ~Q(scroll_number=""),
                name="treasury_challan_confirmed_complete",
            ),
        ]

    def __str__(self):
        return self.grn

    @staticmethod
    def grn_key(grn):
        return grn.replace(" ", "").upper()


class ScrollLine(models.Model):
    """One line of a treasury scroll the office imported (docs/decisions/0082): a GRN, its
    CIN, amount, scroll number and date, matched to the challan that recorded the GRN. The same
    line imported twice is one row; a line that disagrees with our challan is flagged."""

    class Outcome(models.TextChoices):
        FILLED = "filled", _("CIN and scroll filled in")
        AGREES = "agrees", _("Agrees with the challan")
        AMOUNT = "amount", _("The amount differs from the transfer's")
        UNKNOWN = "unknown", _("No challan of ours has this GRN")
        DEFACED = "defaced", _("The GRN is defaced: the challan names another CIN or scroll")

    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    grn = models.CharField(_("GRN"), max_length=80)
    cin = models.CharField(_("CIN"), max_length=40)
    amount = models.DecimalField(_("amount (₹)"), max_digits=12, decimal_places=2)
    scroll_number = models.CharField(_("treasury scroll number"), max_length=40)
    scroll_date = models.DateField(_("scroll date"))
    challan = models.ForeignKey(
        TreasuryChallan, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    outcome = models.CharField(_("outcome"), max_length=20, choices=Outcome)
    imported_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    imported_at = models.DateTimeField(auto_now_add=True)

    FLAGGED = (Outcome.AMOUNT, Outcome.UNKNOWN, Outcome.DEFACED)

    objects = DistrictScopedQuerySet.as_manager()

    class Meta:
        verbose_name = _("treasury scroll line")
        verbose_name_plural = _("treasury scroll lines")
        ordering = ["-scroll_date", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["district", "grn", "scroll_number"], name="scroll_line_once"
            )
        ]
        indexes = [
            models.Index(
                fields=["district", "scroll_date"],
                condition=Q(outcome__in=("amount", "unknown", "defaced")),
                name="scroll_line_flagged",
            )
        ]

    def __str__(self):
        return f"{self.scroll_number}: {self.grn}"
