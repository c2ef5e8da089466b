"""What the payments say the ledger holds, for `manage.py check_ledger`: a release on a payment
through the gateway debited the gateway's clearing account, not the pound's till that its
receipt's mode names (docs/decisions/0075), and the till's cash for a top-up (0085). One
grouped query."""

from django.db.models import Sum

from ledger.models import AccountKind, PaymentMode, till

from .models import Payment, PaymentState, Refund, RefundState


def expectations():
    rows = (
        # A cancelled receipt's payment was reversed (decision 11), as the receipts' check says.
        Payment.objects.filter(
            state=PaymentState.RECONCILED, release__receipt__cancelled_at__isnull=True
        )
        .order_by()
        .values("impoundment__pound__district_id", "impoundment__pound_id")
        .annotate(total=Sum("amount"), released=Sum("release__amount"))
    )
    for row in rows:
        district, pound = row["impoundment__pound__district_id"], row["impoundment__pound_id"]
        # The receipt names the whole dues; the gateway paid `total`, and the dues that grew
        # after it were topped up in cash at the till (docs/decisions/0085).
        yield (district, pound, till(PaymentMode.OTHER)), -row["released"]
        yield (district, None, AccountKind.GATEWAY_CLEARING), row["total"]
        yield (district, pound, till(PaymentMode.CASH)), row["released"] - row["total"]
    # A refund sent and not yet answered: the gateway holds the money, owed back (ADR 0083).
    pending = (
        Refund.objects.filter(state=RefundState.PENDING)
        .order_by()
        .values("payment__impoundment__pound__district_id")
        .annotate(total=Sum("amount"))
    )
    for row in pending:
        district = row["payment__impoundment__pound__district_id"]
        yield (district, None, AccountKind.GATEWAY_CLEARING), row["total"]
        yield (district, None, AccountKind.GATEWAY_REFUNDS_DUE), -row["total"]
