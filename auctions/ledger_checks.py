"""What the sales say each ledger account should hold, for `manage.py check_ledger`. Each is one
grouped query: a row per pound, payment mode and kind of sale, whatever the number of sales."""

from decimal import Decimal

from django.db.models import BooleanField, ExpressionWrapper, F, Q, Sum, Value
from django.db.models.functions import Coalesce, NullIf

from ledger.checks import till_of
from ledger.models import AccountKind, PaymentMode

from .models import DisposalOrder, DisposalTerms, S16Case, Sale, UpkeepClaim, UpkeepOverpayment

ZERO = Decimal("0.00")


def expectations():
    yield from _sales()
    yield from _closed_s16_cases()
    yield from _disposals()
    yield from _upkeep()


def _sales():
    rows = (
        Sale.objects.order_by()
        .values(
            "lot__auction__pound__district_id",
            "lot__auction__pound_id",
            paid_to=till_of("payment_mode"),
            under_s16=ExpressionWrapper(
                Q(lot__auction__s16_case__isnull=False), output_field=BooleanField()
            ),
        )
        .annotate(
            price=Sum("price"),
            fines=Sum("fines"),
            feeding=Sum("feeding"),
            expenses=Sum("expenses"),
            surplus=Sum("surplus"),
        )
    )
    for row in rows:
        district, pound = row["lot__auction__pound__district_id"], row["lot__auction__pound_id"]
        yield (district, pound, row["paid_to"]), row["price"]
        if row["under_s16"]:
            # Held until the owner's account is settled, then applied (below).
            yield (district, None, AccountKind.SALE_PROCEEDS_HELD), -row["price"]
        else:
            yield (district, None, AccountKind.FINES_DUE_DM), -row["fines"]
            yield (district, pound, AccountKind.FEEDING_PK), -row["feeding"]
            yield (district, None, AccountKind.SALE_EXPENSES), -row["expenses"]
            yield (district, None, AccountKind.DM_SURPLUS_HELD), -row["surplus"]


def _less_shortfall(field):
    """The case's dues less what its shortfall record leaves unpaid (none without a record)."""
    return F(field) - Coalesce(f"shortfall_record__{field}", Value(ZERO))


def _closed_s16_cases():
    # A case closed with no balance mode recorded counts in the cash box, the service's default.
    balance_mode = Coalesce(NullIf("balance_mode", Value("")), Value(PaymentMode.CASH))
    rows = (
        S16Case.objects.filter(status=S16Case.Status.CLOSED)
        .order_by()
        .values("pound__district_id", "pound_id", balance_to=till_of(balance_mode))
        .annotate(
            proceeds=Sum("proceeds"),
            fines=Sum(_less_shortfall("fines")),
            feeding=Sum(_less_shortfall("feeding")),
            expenses=Sum(_less_shortfall("expenses")),
            balance=Sum("balance"),
        )
    )
    for row in rows:
        district, pound = row["pound__district_id"], row["pound_id"]
        yield (district, None, AccountKind.SALE_PROCEEDS_HELD), row["proceeds"]
        yield (district, None, AccountKind.FINES_DUE_DM), -row["fines"]
        yield (district, pound, AccountKind.FEEDING_PK), -row["feeding"]
        yield (district, None, AccountKind.SALE_EXPENSES), -row["expenses"]
        yield (district, pound, row["balance_to"]), -row["balance"]


def _disposals():
    """Sales by private treaty under the proviso to s.14, once the Magistrate approved them: the
    price in the till, split as a s.14 sale's proceeds are (s.17). An approved order whose money
    was never posted leaves its till, and the accounts it feeds, short of what it says."""
    rows = (
        DisposalTerms.objects.filter(
            order__status=DisposalOrder.Status.APPROVED, price__isnull=False
        )
        .order_by()
        .values("order__pound__district_id", "order__pound_id", paid_to=till_of("payment_mode"))
        .annotate(
            price=Sum("price"), fines=Sum("fines"), feeding=Sum("feeding"), surplus=Sum("surplus")
        )
    )
    for row in rows:
        district, pound = row["order__pound__district_id"], row["order__pound_id"]
        yield (district, pound, row["paid_to"]), row["price"]
        yield (district, None, AccountKind.FINES_DUE_DM), -row["fines"]
        yield (district, pound, AccountKind.FEEDING_PK), -row["feeding"]
        yield (district, None, AccountKind.DM_SURPLUS_HELD), -row["surplus"]


def _upkeep():
    """Approved upkeep claims are an expense (gross) and a payable (net of the over-payments
    they recovered); paid ones leave the DM's account. An over-payment flagged after a claim
    moves its amount from the expense to a receivable, which the later claims recover."""
    rows = (
        UpkeepClaim.objects.filter(status__in=["approved", "paid"])
        .order_by()
        .values("gaushala__district_id", "status")
        .annotate(amount=Sum("amount"), deduction=Sum("deduction"))
    )
    for row in rows:
        district, amount = row["gaushala__district_id"], row["amount"]
        net = amount - row["deduction"]
        yield (district, None, AccountKind.UPKEEP_EXPENSE), amount
        yield (district, None, AccountKind.UPKEEP_RECOVERABLE), -row["deduction"]
        if row["status"] == UpkeepClaim.Status.PAID:
            yield (district, None, AccountKind.DM_TREASURY), -net
        else:
            yield (district, None, AccountKind.UPKEEP_PAYABLE), -net
    flagged = (
        UpkeepOverpayment.objects.order_by()
        .values("gaushala__district_id")
        .annotate(amount=Sum("amount"))
    )
    for row in flagged:
        district = row["gaushala__district_id"]
        yield (district, None, AccountKind.UPKEEP_RECOVERABLE), row["amount"]
        yield (district, None, AccountKind.UPKEEP_EXPENSE), -row["amount"]
