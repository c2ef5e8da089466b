"""What the register's receipts, releases and deposits say each ledger account should hold, for
`manage.py check_ledger`."""

from ledger.models import AccountKind, till

from .models import Deposit, Receipt, Release


def expectations():
    for r in Receipt.objects.filter(cancelled_at__isnull=True).select_related("pound"):
        yield (r.pound.district_id, r.pound_id, till(r.payment_mode)), r.amount
    for release in Release.objects.filter(kind=Release.Kind.PAYMENT).select_related(
        "impoundment__pound"
    ):
        pound = release.impoundment.pound
        yield (pound.district_id, None, AccountKind.FINES_DUE_DM), -release.fines
        yield (pound.district_id, pound.pk, AccountKind.FEEDING_PK), -release.feeding
    for d in Deposit.objects.select_related("release__impoundment__pound"):
        pound = d.release.impoundment.pound
        if d.status == Deposit.Status.HELD:
            yield (pound.district_id, None, AccountKind.DEPOSITS_HELD), -d.amount
        elif d.status == Deposit.Status.REFUND_DUE:
            yield (pound.district_id, None, AccountKind.DEPOSIT_REFUNDS_DUE), -d.amount
        elif d.status == Deposit.Status.APPLIED:
            yield (pound.district_id, None, AccountKind.FINES_DUE_DM), -d.fines
            yield (pound.district_id, pound.pk, AccountKind.FEEDING_PK), -d.feeding
        elif d.status == Deposit.Status.REFUNDED:
            yield (pound.district_id, pound.pk, till(d.refund_mode)), -d.amount
