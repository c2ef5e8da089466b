"""Double-entry ledger. Every rupee moves in a balanced Transaction of Postings.

Sign convention: a posting's amount is positive for a debit and negative for a credit, so the
postings of a transaction sum to zero and an account's balance is the sum of its postings
(positive: a debit balance, as for cash; negative: a credit balance, as for money owed).

Posted rows are never updated or deleted: database triggers refuse it (see the migrations), and a
mistake is undone by a reversing transaction.

AccountMonth keeps each account's postings added up by month, so that a balance or a figure over
all history reads a few month rows, not millions of postings (docs/decisions/0006).
"""

from decimal import Decimal

from django.db import models
from django.db.models import Count, F, Q, Sum
from django.db.models.functions import TruncMonth
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import District, Pound, User
from accounts.scoping import DistrictScopedQuerySet


class PaymentMode(models.TextChoices):
    CASH = "cash", _("Cash")
    UPI = "upi", _("UPI")
    OTHER = "other", _("Other (cheque, demand draft, bank transfer)")


class AccountKind(models.TextChoices):
    # Assets (debit balances)
    POUND_CASH = "pound_cash", _("Cash at the pound")
    POUND_DIGITAL = "pound_digital", _("UPI and other collections at the pound")
    # Liabilities and funds (credit balances)
    FINES_DUE_DM = "fines_due_dm", _("Fines due to the District Magistrate (s.17)")
    FEEDING_PK = "feeding_pk", _("Feeding money retained by the pound-keeper (s.17)")
    DEPOSITS_HELD = "deposits_held", _("Deposits held under s.15")
    DEPOSIT_REFUNDS_DUE = "deposit_refunds_due", _("Deposits to refund (s.22)")
    SALE_PROCEEDS_HELD = "sale_proceeds_held", _("s.16 sale proceeds awaiting the owner's account")
    SALE_EXPENSES = "sale_expenses", _("Sale expenses payable (ss.16, 17)")
    OWNER_BALANCES_DUE = "owner_balances_due", _("Balances due to owners after a s.16 sale")
    DM_SURPLUS_HELD = (
        "dm_surplus_held",
        _("Surplus sale proceeds held by the District Magistrate (s.17)"),
    )
    # The District Magistrate's side (s.17)
    REMITTANCES_IN_TRANSIT = "remittances_in_transit", _("Fines remitted, not yet confirmed")
    DM_TREASURY = "dm_treasury", _("Money received by the District Magistrate's office")
    FINES_RECEIVED = "fines_received", _("Fines received by the District Magistrate (s.17)")
    STATE_REVENUE = "state_revenue", _("Credited to the revenues of the State (s.17)")
    LOCAL_FUND = "local_fund", _("Credited to the local fund (s.31)")
    UPKEEP_EXPENSE = "upkeep_expense", _("Upkeep of cattle handed to gaushalas")
    UPKEEP_PAYABLE = "upkeep_payable", _("Upkeep payable to gaushalas")
    # Upkeep paid for days after an animal's death or transfer, to recover from the body.
    UPKEEP_RECOVERABLE = "upkeep_recoverable", _("Upkeep over-paid, to recover from gaushalas")
    # Money an owner paid through the gateway, held by the gateway until it settles to us.
    GATEWAY_CLEARING = "gateway_clearing", _("Paid online, held by the payment gateway")
    # Paid online and being sent back through the gateway's refund (docs/decisions/0083).
    GATEWAY_REFUNDS_DUE = "gateway_refunds_due", _("Paid online, being refunded")


# Which accounts exist once per pound, and which once per district.
POUND_ACCOUNTS = (AccountKind.POUND_CASH, AccountKind.POUND_DIGITAL, AccountKind.FEEDING_PK)
DISTRICT_ACCOUNTS = (
    AccountKind.FINES_DUE_DM,
    AccountKind.DEPOSITS_HELD,
    AccountKind.DEPOSIT_REFUNDS_DUE,
    AccountKind.SALE_PROCEEDS_HELD,
    AccountKind.SALE_EXPENSES,
    AccountKind.OWNER_BALANCES_DUE,
    AccountKind.DM_SURPLUS_HELD,
    AccountKind.REMITTANCES_IN_TRANSIT,
    AccountKind.DM_TREASURY,
    AccountKind.FINES_RECEIVED,
    AccountKind.STATE_REVENUE,
    AccountKind.LOCAL_FUND,
    AccountKind.UPKEEP_EXPENSE,
    AccountKind.UPKEEP_PAYABLE,
)
# District accounts made on their first posting, not opened ahead with a pound's chart: a pound
# that takes no online payment needs none (and a new entry's path stays as short).
DISTRICT_ACCOUNTS_ON_USE = (
    AccountKind.GATEWAY_CLEARING,
    AccountKind.GATEWAY_REFUNDS_DUE,
    AccountKind.UPKEEP_RECOVERABLE,
)


class AccountQuerySet(DistrictScopedQuerySet):
    def with_balances(self):
        return self.annotate(balance=Sum("postings__amount", default=Decimal("0.00")))


class Account(models.Model):
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="accounts")
    pound = models.ForeignKey(
        Pound, on_delete=models.PROTECT, null=True, blank=True, related_name="accounts"
    )
    kind = models.CharField(_("account"), max_length=30, choices=AccountKind)

    objects = AccountQuerySet.as_manager()

    class Meta:
        verbose_name = _("ledger account")
        verbose_name_plural = _("ledger accounts")
        ordering = ["district", "pound", "kind"]
        constraints = [
            models.UniqueConstraint(
                fields=["district", "pound", "kind"],
                name="account_unique_per_pound",
                condition=Q(pound__isnull=False),
            ),
            models.UniqueConstraint(
                fields=["district", "kind"],
                name="account_unique_per_district",
                condition=Q(pound__isnull=True),
            ),
        ]

    def __str__(self):
        where = self.pound.label if self.pound is not None else self.district.label
        return f"{self.get_kind_display()}: {where}"

    def balance(self):
        return self.postings.aggregate(total=Sum("amount", default=Decimal("0.00")))["total"]


class TransactionKind(models.TextChoices):
    PAYMENT_S13 = "payment_s13", _("Fines and feeding paid on release (s.13)")
    DEPOSIT_S15 = "deposit_s15", _("Deposit on release (s.15)")
    DEPOSIT_APPLIED = "deposit_applied", _("Deposit applied as payment (s.15)")
    DEPOSIT_REFUND_DUE = "deposit_refund_due", _("Deposit ordered refunded (s.22)")
    DEPOSIT_REFUNDED = "deposit_refunded", _("Deposit refunded to the owner (s.22)")
    SALE_S14 = "sale_s14", _("Sale of unclaimed cattle: proceeds applied (ss.14, 17)")
    SALE_S16 = "sale_s16", _("Sale on the owner's refusal: proceeds received (s.16)")
    S16_SETTLED = "s16_settled", _("s.16 proceeds applied to fines, feeding and expenses (s.17)")
    S16_BALANCE_PAID = "s16_balance_paid", _("Balance of a s.16 sale paid to the owner")
    REMITTANCE_SENT = "remittance_sent", _("Fines remitted to the District Magistrate (s.17)")
    REMITTANCE_CONFIRMED = "remittance_confirmed", _("Remittance of fines confirmed (s.17)")
    SURPLUS_RECEIVED = "surplus_received", _("Surplus sale proceeds received in deposit (s.17)")
    SURPLUS_CLAIM_PAID = "surplus_claim_paid", _("Surplus paid to the owner on his claim (s.17)")
    SURPLUS_TRANSFERRED = "surplus_transferred", _("Surplus credited to revenue (s.17, s.31)")
    UPKEEP_CLAIMED = "upkeep_claimed", _("Upkeep claimed by a gaushala, approved")
    UPKEEP_PAID = "upkeep_paid", _("Upkeep paid to a gaushala")
    UPKEEP_OVERPAID = "upkeep_overpaid", _("Upkeep over-paid after a death or transfer, to recover")
    GATEWAY_REFUND_SENT = "gateway_refund_sent", _("Online payment sent back for refund")
    GATEWAY_REFUNDED = "gateway_refunded", _("Online payment refunded by the gateway")
    REVERSAL = "reversal", _("Reversal")


class Transaction(models.Model):
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    pound = models.ForeignKey(
        Pound, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=30, choices=TransactionKind)
    at = models.DateTimeField(default=timezone.now, db_index=True)
    by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, related_name="+")
    memo = models.CharField(max_length=300)
    section = models.CharField(_("section of the Act"), max_length=20, blank=True)
    # The business record the money belongs to ("impounding.receipt:42"), for the money trail.
    source = models.CharField(max_length=60, db_index=True)
    impoundment_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    reverses = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversed_by"
    )

    class Meta:
        verbose_name = _("ledger transaction")
        verbose_name_plural = _("ledger transactions")
        ordering = ["at", "pk"]
        # A pound's transactions over a stretch of time: the money trail's running fines.
        indexes = [
            models.Index(fields=["pound", "at"], name="transaction_pound_at"),
            # The few transactions of a month that the returns read one by one (reversals, whose
            # figure is their original's, and remittances): not the month's every payment.
            models.Index(
                fields=["pound", "kind", "at"],
                name="transaction_pound_rare_kinds",
                condition=Q(kind__in=["reversal", "remittance_sent"]),
            ),
        ]

    def __str__(self):
        return f"#{self.pk} {self.get_kind_display()} {self.memo}"


class Posting(models.Model):
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="postings")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="postings")
    amount = models.DecimalField(max_digits=14, decimal_places=2)

    class Meta:
        verbose_name = _("posting")
        verbose_name_plural = _("postings")
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="posting_not_zero")]

    def __str__(self):
        return f"{self.account}: {self.amount}"


class AccountMonth(models.Model):
    """The postings of one month to one account, added up, per pound and kind of their
    transactions: the readers split the district's accounts by the transaction's pound, and
    the fines figures leave out one kind (docs/decisions/0006). A derived cache, not a record:
    `ledger.services.post` and `reverse` keep it in the posting's own transaction, and
    check_ledger holds it against the postings. `month` is the first day, in Asia/Kolkata."""

    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="months")
    # The transaction's pound, which a district account's posting does not carry itself.
    pound = models.ForeignKey(
        Pound, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=30, choices=TransactionKind)
    month = models.DateField()
    debit = models.DecimalField(max_digits=16, decimal_places=2, default=Decimal("0.00"))
    credit = models.DecimalField(max_digits=16, decimal_places=2, default=Decimal("0.00"))
    postings = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("month of an account")
        verbose_name_plural = _("months of the accounts")
        constraints = [
            models.UniqueConstraint(
                fields=["account", "kind", "month", "pound"],
                name="account_month_per_pound",
                condition=Q(pound__isnull=False),
            ),
            models.UniqueConstraint(
                fields=["account", "kind", "month"],
                name="account_month_no_pound",
                condition=Q(pound__isnull=True),
            ),
        ]
        indexes = [models.Index(fields=["pound", "month"], name="account_month_pound")]

    def __str__(self):
        return f"{self.account} {self.month:%Y-%m} {self.kind}"


class CheckedMonth(models.Model):
    """The month totals of the postings check_ledger has verified: those of every transaction
    up to LedgerCheckpoint.through, as AccountMonth says them. The default check adds to them
    the postings of the transactions written since, instead of walking all the postings again;
    `check_ledger --full` walks everything and sets them afresh."""

    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    pound = models.ForeignKey(
        Pound, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=30, choices=TransactionKind)
    month = models.DateField()
    debit = models.DecimalField(max_digits=16, decimal_places=2, default=Decimal("0.00"))
    credit = models.DecimalField(max_digits=16, decimal_places=2, default=Decimal("0.00"))
    postings = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("checked month of an account")
        verbose_name_plural = _("checked months of the accounts")

    def __str__(self):
        return f"{self.account_id} {self.month:%Y-%m} {self.kind}"


class LedgerCheckpoint(models.Model):
    """One row: how far check_ledger has verified the postings. `through` is the last
    transaction whose postings the CheckedMonth rows include. `candidate` is the last
    transaction a passing run saw, and becomes `through` at a later run once it is old enough
    that no transaction numbered below it can still be uncommitted (ledger.checkpoint.SETTLE)."""

    through = models.BigIntegerField(default=0)
    verified_at = models.DateTimeField(null=True, blank=True)
    candidate = models.BigIntegerField(default=0)
    candidate_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("ledger checkpoint")
        verbose_name_plural = _("ledger checkpoints")

    def __str__(self):
        return f"through #{self.through}"


def month_of(at):
    """The month a transaction at `at` counts in: its first day, in Asia/Kolkata."""
    return timezone.localtime(at).date().replace(day=1)


def months_of_postings(postings=None):
    """`postings` (all of them by default) added up as AccountMonth rows, by the database: one
    grouped query, a row per account, pound, kind and month. What the month totals must say."""
    postings = Posting.objects.all() if postings is None else postings
    return (
        postings.order_by()
        .values(
            "account_id",
            pound_id=F("transaction__pound_id"),
            kind=F("transaction__kind"),
            month=TruncMonth("transaction__at", output_field=models.DateField()),
        )
        .annotate(
            debit=Sum("amount", filter=Q(amount__gt=0), default=Decimal("0.00")),
            credit=-Sum("amount", filter=Q(amount__lt=0), default=Decimal("0.00")),
            postings=Count("pk"),
        )
    )


def net_of_months():
    """The balance of the month rows summed (debits positive, as a posting's amount)."""
    return Sum(F("debit") - F("credit"), default=Decimal("0.00"))


def till(mode):
    """The pound's account that money paid in `mode` lands in: the cash box, or the UPI and
    other collections. The one place a payment mode chooses an account."""
    return AccountKind.POUND_CASH if mode == PaymentMode.CASH else AccountKind.POUND_DIGITAL
