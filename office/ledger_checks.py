"""What remittances and surplus deposits say each ledger account should hold, for
`manage.py check_ledger`. Each is one grouped query: a row per pound and state of the record,
whatever the number of records."""

from django.db.models import Sum

from ledger.checks import till_of
from ledger.models import AccountKind

from .models import Remittance, SurplusDeposit
from .remittances import remitted_from


def expectations():
    yield from _remittances()
    yield from _surplus_deposits()


def _remittances():
    rows = (
        Remittance.objects.order_by()
        .values("pound__district_id", "pound_id", "from_cash", "status")
        .annotate(amount=Sum("amount"))
    )
    for row in rows:
        district, pound, amount = row["pound__district_id"], row["pound_id"], row["amount"]
        yield (district, pound, remitted_from(row["from_cash"])), -amount
        yield (district, None, AccountKind.REMITTANCES_IN_TRANSIT), amount
        if row["status"] == Remittance.Status.CONFIRMED:
            yield (district, None, AccountKind.REMITTANCES_IN_TRANSIT), -amount
            yield (district, None, AccountKind.DM_TREASURY), amount
            yield (district, None, AccountKind.FINES_DUE_DM), amount
            yield (district, None, AccountKind.FINES_RECEIVED), -amount


def _surplus_deposits():
    rows = (
        SurplusDeposit.objects.exclude(status=SurplusDeposit.Status.AWAITING_RECEIPT)
        .order_by()
        .values(
            "district_id",
            "pound_id",
            "status",
            "destination",
            paid_to=till_of("sale__payment_mode"),
        )
        .annotate(amount=Sum("amount"))
    )
    for row in rows:
        district, amount = row["district_id"], row["amount"]
        yield (district, row["pound_id"], row["paid_to"]), -amount
        yield (district, None, AccountKind.DM_TREASURY), amount
        if row["status"] == SurplusDeposit.Status.PAID:
            yield (district, None, AccountKind.DM_SURPLUS_HELD), amount
            yield (district, None, AccountKind.DM_TREASURY), -amount
        elif row["status"] == SurplusDeposit.Status.TRANSFERRED:
            kind = (
                AccountKind.LOCAL_FUND
                if row["destination"] == SurplusDeposit.Destination.LOCAL_FUND
                else AccountKind.STATE_REVENUE
            )
            yield (district, None, AccountKind.DM_SURPLUS_HELD), amount
            yield (district, None, kind), -amount
