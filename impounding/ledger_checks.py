"""What the register's receipts, releases and deposits say each ledger account should hold, for
`manage.py check_ledger`. Each is one grouped query: a row per pound (and per payment mode or
deposit status), whatever the length of the register."""

from django.db.models import Sum

from ledger.checks import till_of
from ledger.models import AccountKind

from .models import Deposit, Receipt, Release


def expectations():
    yield from _receipts()
    yield from _payments()
    yield from _deposits()


def _receipts():
    rows = (
        Receipt.objects.filter(cancelled_at__isnull=True)
        .order_by()
        .values("pound__district_id", "pound_id", account=till_of("payment_mode"))
        .annotate(total=Sum("amount"))
    )
    for row in rows:
        yield (row["pound__district_id"], row["pound_id"], row["account"]), row["total"]


def _payments():
    rows = (
        # A cancelled receipt's payment was reversed (decision 11).
        Release.objects.filter(kind=Release.Kind.PAYMENT, receipt__cancelled_at__isnull=True)
        .order_by()
        .values("impoundment__pound__district_id", "impoundment__pound_id")
        .annotate(fines=Sum("fines"), feeding=Sum("feeding"))
    )
    for row in rows:
        district, pound = row["impoundment__pound__district_id"], row["impoundment__pound_id"]
        yield (district, None, AccountKind.FINES_DUE_DM), -row["fines"]
        yield (district, pound, AccountKind.FEEDING_PK), -row["feeding"]


def _deposits():
    rows = (
        Deposit.objects.order_by()
        .values(
            "release__impoundment__pound__district_id",
            "release__impoundment__pound_id",
            "status",
            refunded_to=till_of("refund_mode"),
        )
        .annotate(amount=Sum("amount"), fines=Sum("fines"), feeding=Sum("feeding"))
    )
    for row in rows:
        district = row["release__impoundment__pound__district_id"]
        pound = row["release__impoundment__pound_id"]
        status = row["status"]
        if status == Deposit.Status.HELD:
            yield (district, None, AccountKind.DEPOSITS_HELD), -row["amount"]
        elif status == Deposit.Status.REFUND_DUE:
            yield (district, None, AccountKind.DEPOSIT_REFUNDS_DUE), -row["amount"]
        elif status == Deposit.Status.APPLIED:
            yield (district, None, AccountKind.FINES_DUE_DM), -row["fines"]
            yield (district, pound, AccountKind.FEEDING_PK), -row["feeding"]
        elif status == Deposit.Status.REFUNDED:
            yield (district, pound, row["refunded_to"]), -row["amount"]
