"""What the sales say each ledger account should hold, for `manage.py check_ledger`."""

from accounts.models import Pound
from ledger.models import AccountKind, PaymentMode, till

from .models import S16Case, Sale


def expectations():
    districts = dict(Pound.objects.values_list("pk", "district_id"))

    for sale in Sale.objects.select_related("lot__auction"):
        auction = sale.lot.auction
        pound, district = auction.pound_id, districts[auction.pound_id]
        yield (district, pound, till(sale.payment_mode)), sale.price
        if auction.s16_case_id is None:
            yield (district, None, AccountKind.FINES_DUE_DM), -sale.fines
            yield (district, pound, AccountKind.FEEDING_PK), -sale.feeding
            yield (district, None, AccountKind.SALE_EXPENSES), -sale.expenses
            yield (district, None, AccountKind.DM_SURPLUS_HELD), -sale.surplus
        else:
            # Held until the owner's account is settled, then applied (below).
            yield (district, None, AccountKind.SALE_PROCEEDS_HELD), -sale.price
    for case in S16Case.objects.filter(status=S16Case.Status.CLOSED):
        pound, district = case.pound_id, districts[case.pound_id]
        short_fines, short_feeding, short_exp = _short(case)
        yield (district, None, AccountKind.SALE_PROCEEDS_HELD), case.proceeds
        yield (district, None, AccountKind.FINES_DUE_DM), -(case.fines - short_fines)
        yield (district, pound, AccountKind.FEEDING_PK), -(case.feeding - short_feeding)
        yield (district, None, AccountKind.SALE_EXPENSES), -(case.expenses - short_exp)
        yield (district, pound, till(case.balance_mode or PaymentMode.CASH)), -case.balance


def _short(case):
    record = getattr(case, "shortfall_record", None)
    if record is None:
        return 0, 0, 0
    return record.fines, record.feeding, record.expenses
