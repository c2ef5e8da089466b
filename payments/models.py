"""Payments taken through a gateway for an entry's dues (docs/decisions/0075).

One row per attempt. Only the gateway's server-to-server callback and the status query move a
payment past pending; the release that takes a succeeded payment marks it reconciled, in the
transaction that posts its money.
"""

import secrets
import uuid

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.makerchecker import MakerChecker
from accounts.models import District, User
from accounts.scoping import DistrictScopedQuerySet, PoundScopedQuerySet
from impounding.models import Impoundment, Release


class PaymentState(models.TextChoices):
    CREATED = "created", _("Created")
    PENDING = "pending", _("Payment in progress")
    SUCCEEDED = "succeeded", _("Paid, awaiting release")
    FAILED = "failed", _("Failed")
    UNKNOWN = "unknown", _("Payment in progress (awaiting the gateway)")
    RECONCILED = "reconciled", _("Paid and released")
    REFUNDED = "refunded", _("Refunded to the payer")


TRANSITIONS = {
    PaymentState.CREATED: {PaymentState.PENDING, PaymentState.FAILED},
    PaymentState.PENDING: {PaymentState.SUCCEEDED, PaymentState.FAILED, PaymentState.UNKNOWN},
    PaymentState.UNKNOWN: {PaymentState.SUCCEEDED, PaymentState.FAILED},
    PaymentState.SUCCEEDED: {PaymentState.RECONCILED, PaymentState.REFUNDED},
    PaymentState.FAILED: set(),
    PaymentState.RECONCILED: set(),
    PaymentState.REFUNDED: set(),
}

# While a payment is in one of these states the entry's dues are being paid (or are paid and
# not yet released on): a second payment of them is refused, by the index below.
OPEN_STATES = (
    PaymentState.CREATED,
    PaymentState.PENDING,
    PaymentState.UNKNOWN,
    PaymentState.SUCCEEDED,
)
# Shown as "payment in progress", never as unpaid.
IN_PROGRESS = (PaymentState.CREATED, PaymentState.PENDING, PaymentState.UNKNOWN)


class TransitionNotAllowed(ValidationError):
    pass


class PaymentQuerySet(PoundScopedQuerySet):
    scope = "impoundment__pound_id"

    def open(self):
        return self.filter(state__in=OPEN_STATES)

    def in_progress(self):
        return self.filter(state__in=IN_PROGRESS)

    def succeeded_for(self, entry):
        """The entry's payment the gateway confirmed, which its release takes; or None."""
        return self.filter(impoundment=entry, state=PaymentState.SUCCEEDED).first()


class Payment(models.Model):
    impoundment = models.ForeignKey(
        Impoundment, on_delete=models.PROTECT, related_name="payments", verbose_name=_("entry")
    )
    animal_ids = models.JSONField(default=list)
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=2)
    gateway = models.CharField(_("gateway"), max_length=30)
    reference = models.CharField(_("our reference"), max_length=40, unique=True)
    token = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # The owner's "Pay online" form's single-use key (docs/decisions/0085): sent twice, one
    # payment. The keeper's screen locks the entry instead, and leaves it blank.
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)
    gateway_reference = models.CharField(_("gateway's reference"), max_length=80, blank=True)
    state = models.CharField(
        _("state"), max_length=20, choices=PaymentState, default=PaymentState.CREATED
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    settled_at = models.DateTimeField(null=True, blank=True)
    release = models.OneToOneField(
        Release, on_delete=models.PROTECT, null=True, blank=True, related_name="gateway_payment"
    )
    # The bank statement's line that shows the money arrived (docs/decisions/0082): one line
    # settles one payment, once.
    statement_line = models.OneToOneField(
        "StatementLine", on_delete=models.PROTECT, null=True, blank=True, related_name="payment"
    )

    objects = PaymentQuerySet.as_manager()

    class Meta:
        verbose_name = _("payment")
        verbose_name_plural = _("payments")
        ordering = ["-created_at"]
        indexes = [
            # The payments the gateway confirmed that no bank statement has shown yet: the
            # Magistrate's dashboard counts these, and reads only them.
            models.Index(
                fields=["settled_at"],
                condition=Q(state__in=("succeeded", "reconciled"), statement_line__isnull=True),
                name="payment_not_on_statement",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["impoundment"],
                condition=Q(state__in=OPEN_STATES),
                name="payment_one_open_per_entry",
                violation_error_message=_("A payment of these dues is already in progress."),
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="payment_amount_positive"),
            models.CheckConstraint(
                condition=Q(state=PaymentState.RECONCILED, release__isnull=False)
                | (~Q(state=PaymentState.RECONCILED) & Q(release__isnull=True)),
                name="payment_reconciled_iff_released",
            ),
        ]

    def __str__(self):
        return self.reference

    @property
    def in_progress(self):
        return self.state in IN_PROGRESS

    def ensure_transition(self, to):
        if to not in TRANSITIONS[PaymentState(self.state)]:
            raise TransitionNotAllowed(
                _("A payment %(from)s cannot become %(to)s.")
                % {"from": self.get_state_display(), "to": PaymentState(to).label}
            )


def new_pay_token():
    """Eight URL-safe characters (48 random bits): short enough for an SMS's link, and
    guessed only at the public page's rate limit (docs/decisions/0085)."""
    return secrets.token_urlsafe(6)


class PayLink(models.Model):
    """The owner's pay page of one entry, `/p/<token>` (docs/decisions/0085): made with the
    first message or slip that names it, the same ever after."""

    impoundment = models.OneToOneField(
        Impoundment, on_delete=models.PROTECT, related_name="pay_link", verbose_name=_("entry")
    )
    token = models.CharField(max_length=16, unique=True, default=new_pay_token, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = PoundScopedQuerySet.through("impoundment__pound_id").as_manager()

    class Meta:
        verbose_name = _("pay link")
        verbose_name_plural = _("pay links")

    def __str__(self):
        return self.token


class PaymentEvent(models.Model):
    """Every change of a payment: who or which gateway message, when, and what it said."""

    payment = models.ForeignKey(Payment, on_delete=models.PROTECT, related_name="events")
    old_state = models.CharField(max_length=20, choices=PaymentState, blank=True)
    new_state = models.CharField(max_length=20, choices=PaymentState)
    at = models.DateTimeField(auto_now_add=True)
    by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    source = models.CharField(max_length=20)  # "screen", "callback", "status", "release"
    section = models.CharField(max_length=10, default="s.13")
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self):
        return f"{self.payment_id}: {self.old_state} -> {self.new_state}"


# --- The bank statement (docs/decisions/0082) -------------------------------------------------


class BankStatement(models.Model):
    """One statement file a district's accounts staff imported: MT940, or CSV in a bank's
    columns. The same file twice is one statement (the digest); its lines are StatementLine."""

    class Kind(models.TextChoices):
        MT940 = "mt940", "MT940"
        CSV = "csv", "CSV"

    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=10, choices=Kind)
    bank = models.CharField(_("bank's format"), max_length=30, blank=True)
    statement_id = models.CharField(_("statement"), max_length=80, blank=True)
    digest = models.CharField(max_length=64)
    file_name = models.CharField(max_length=200, blank=True)
    imported_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("bank statement")
        verbose_name_plural = _("bank statements")
        constraints = [
            models.UniqueConstraint(fields=["district", "digest"], name="statement_file_once")
        ]

    def __str__(self):
        return self.statement_id or self.file_name


class LineState(models.TextChoices):
    UNMATCHED = "unmatched", _("Unmatched")
    REVIEW = "review", _("To review")
    MATCHED = "matched", _("Matched")
    SET_ASIDE = "set_aside", _("Set aside")
    DEBIT = "debit", _("Debit")


OPEN_LINE_STATES = (LineState.UNMATCHED, LineState.REVIEW)


class StatementLineQuerySet(DistrictScopedQuerySet):
    def open(self):
        return self.filter(state__in=OPEN_LINE_STATES)


class StatementLine(MakerChecker):
    """One line of a bank statement. `key` is the bank's reference for the line, or the
    statement's id and the line's number where the bank gives none: the same line imported
    twice, in one file or in two, is one row."""

    statement = models.ForeignKey(BankStatement, on_delete=models.PROTECT, related_name="lines")
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    key = models.CharField(max_length=120)
    value_date = models.DateField(_("value date"))
    amount = models.DecimalField(_("amount"), max_digits=14, decimal_places=2)
    narration = models.CharField(_("narration"), max_length=500, blank=True)
    bank_reference = models.CharField(_("bank's reference"), max_length=80, blank=True)
    utr = models.CharField(_("UTR or RRN"), max_length=40, blank=True)
    state = models.CharField(_("state"), max_length=20, choices=LineState)
    reason = models.CharField(_("why it is here"), max_length=300, blank=True)
    imported_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    decided_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(_("note"), max_length=300, blank=True)

    maker_field = "imported_by"
    maker_refusal = _("You imported this statement: another person matches its lines.")

    objects = StatementLineQuerySet.as_manager()

    class Meta:
        verbose_name = _("statement line")
        verbose_name_plural = _("statement lines")
        ordering = ["value_date", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["district", "key"], name="statement_line_once"),
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=models.F("imported_by")),
                name="statement_line_decided_by_another",
            ),
        ]
        indexes = [
            # The review queue and the dashboard read only the open lines.
            models.Index(
                fields=["district", "value_date"],
                condition=Q(state__in=("unmatched", "review")),
                name="statement_line_open",
            )
        ]

    def __str__(self):
        return self.key

    @property
    def is_open(self):
        return self.state in OPEN_LINE_STATES


class RefundReason(models.TextChoices):
    ANIMALS_LEFT = (
        "animals_left",
        _("The animals left the pound another way (death, sale, deposit)"),
    )
    PAID_TWICE = "paid_twice", _("The same dues were paid a second time")
    # The dues shrank below the payment (a charge waived): the release cannot take it, so it
    # goes back whole and the dues are taken at the till (docs/decisions/0085).
    DUES_SHRANK = "dues_shrank", _("The dues are now less than the payment")


class RefundMethod(models.TextChoices):
    GATEWAY = "gateway", _("Through the gateway")
    # A payment the gateway never saw (a UPI payment from the slip's QR code, payments.upi_direct)
    # goes back by the office's bank transfer, recorded with the bank's UTR (ADR 0083 addendum).
    BANK = "bank", _("By bank transfer")


class RefundState(models.TextChoices):
    PREPARED = "prepared", _("Prepared, awaiting approval")
    DECLINED = "declined", _("Declined")
    PENDING = "pending", _("Refund pending (awaiting the gateway)")
    REFUNDED = "refunded", _("Refunded")
    FAILED = "failed", _("Refund failed")


REFUND_TRANSITIONS = {
    RefundState.PREPARED: {RefundState.DECLINED, RefundState.PENDING},
    RefundState.PENDING: {RefundState.REFUNDED, RefundState.FAILED},
    RefundState.DECLINED: set(),
    RefundState.REFUNDED: set(),
    RefundState.FAILED: set(),
}
# A payment has at most one refund in these states: its money goes back once.
REFUND_OPEN = (RefundState.PREPARED, RefundState.PENDING, RefundState.REFUNDED)


class RefundQuerySet(PoundScopedQuerySet):
    scope = "payment__impoundment__pound_id"


class Refund(models.Model):
    """The whole of a succeeded payment sent back through the gateway's refund operation
    (docs/decisions/0083). Prepared by one person, approved by another; the approval asks the
    gateway. A refund the gateway has not answered is pending, never shown as not refunded."""

    payment = models.ForeignKey(
        Payment, on_delete=models.PROTECT, related_name="refunds", verbose_name=_("payment")
    )
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=2)
    reason = models.CharField(_("reason"), max_length=20, choices=RefundReason)
    note = models.CharField(_("note"), max_length=300, blank=True)
    state = models.CharField(
        _("state"), max_length=20, choices=RefundState, default=RefundState.PREPARED
    )
    idempotency_key = models.UUIDField(unique=True)
    prepared_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    prepared_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    gateway_reference = models.CharField(_("gateway's reference"), max_length=80, blank=True)
    method = models.CharField(
        _("how it goes back"),
        max_length=10,
        choices=RefundMethod,
        default=RefundMethod.GATEWAY,
        db_default=RefundMethod.GATEWAY,
    )
    # The payer's bank account, for a refund by bank transfer: shown whole only to the officers
    # who approve it or send it, masked everywhere else (Refund.masked_account).
    payee_name = models.CharField(
        _("account holder's name"), max_length=100, blank=True, default="", db_default=""
    )
    account_number = models.CharField(
        _("account number"), max_length=18, blank=True, default="", db_default=""
    )
    ifsc = models.CharField(_("IFSC"), max_length=11, blank=True, default="", db_default="")

    objects = RefundQuerySet.as_manager()

    class Meta:
        verbose_name = _("refund")
        verbose_name_plural = _("refunds")
        ordering = ["-prepared_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["payment"],
                condition=Q(state__in=REFUND_OPEN),
                name="refund_one_per_payment",
                violation_error_message=_("This payment is already being refunded."),
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="refund_amount_positive"),
            models.CheckConstraint(
                condition=Q(state=RefundState.PREPARED) | ~Q(decided_by=models.F("prepared_by")),
                name="refund_decided_by_another",
            ),
            models.CheckConstraint(
                condition=~Q(method=RefundMethod.BANK)
                | (~Q(account_number="") & ~Q(ifsc="") & ~Q(payee_name="")),
                name="refund_bank_account_given",
            ),
            # A bank's UTR pays one refund: a second refund recorded with it is refused.
            models.UniqueConstraint(
                fields=["gateway_reference"],
                condition=Q(method=RefundMethod.BANK) & ~Q(gateway_reference=""),
                name="refund_bank_reference_once",
                violation_error_message=_("This UTR already records another refund."),
            ),
        ]

    def __str__(self):
        return f"{self.payment.reference}: {self.amount}"

    @property
    def masked_account(self):
        """The account number as lists and settled refunds show it: its last four digits."""
        return f"XXXX{self.account_number[-4:]}" if self.account_number else ""

    @property
    def by_bank(self):
        return self.method == RefundMethod.BANK

    @property
    def state_label(self):
        """The state as the screens say it: an approved bank transfer waits for the bank."""
        if self.by_bank and self.state == RefundState.PENDING:
            return _("Approved: awaiting the bank transfer")
        return self.get_state_display()

    def ensure_transition(self, to):
        if to not in REFUND_TRANSITIONS[RefundState(self.state)]:
            raise TransitionNotAllowed(
                _("A refund %(from)s cannot become %(to)s.")
                % {"from": self.get_state_display(), "to": RefundState(to).label}
            )


class RefundEvent(models.Model):
    """Every change of a refund: who or which gateway answer, when, and what it said."""

    refund = models.ForeignKey(Refund, on_delete=models.PROTECT, related_name="events")
    old_state = models.CharField(max_length=20, choices=RefundState, blank=True)
    new_state = models.CharField(max_length=20, choices=RefundState)
    at = models.DateTimeField(auto_now_add=True)
    by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    source = models.CharField(max_length=20)  # "screen", "gateway", "status"
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self):
        return f"{self.refund_id}: {self.old_state} -> {self.new_state}"
