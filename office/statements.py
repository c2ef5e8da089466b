"""Read models of the money screens (s.17): what each pound holds and owes, and the pound-keeper's
feeding money against his feeding log. The money trail of a register entry is in office.trail.

Nothing here writes: an account that does not exist yet simply holds nothing (the services create
accounts on first use). Each function runs a fixed number of queries, whatever the number of
pounds, days or transactions.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from impounding.models import Impoundment
from impounding.selectors import feeding_days
from kernel import clock
from kernel.dates import add_months
from ledger.models import AccountKind, AccountMonth, Posting, TransactionKind, net_of_months
from rulepacks import services as rulepacks

from .models import Remittance

ZERO = Decimal("0.00")


def _day_start(day):
    return datetime.combine(day, time.min, tzinfo=timezone.get_default_timezone())


# --- What each pound holds and owes -------------------------------------------------------------


@dataclass
class PoundPosition:
    pound: object
    fines_due: Decimal = ZERO  # credited to the District Magistrate, not yet remitted
    cash: Decimal = ZERO
    digital: Decimal = ZERO
    awaiting_confirmation: Decimal = ZERO

    @property
    def remittable(self):
        """The default amount to remit: all the fines due, as far as the cash in hand goes."""
        return max(min(self.fines_due, self.cash), ZERO)


def fines_credited(pound_ids):
    """{pound id: fines credited to the District Magistrate from the pound's collections}, in
    one query over the ledger's month totals, net of reversals. The office's confirmation of a
    remittance also posts to the fines account; it is counted as a remittance, not here. Every
    "fines not yet remitted" figure (the remittance form, the dashboard, the remittances page)
    starts from this."""
    rows = (
        AccountMonth.objects.filter(pound_id__in=pound_ids, account__kind=AccountKind.FINES_DUE_DM)
        .exclude(kind=TransactionKind.REMITTANCE_CONFIRMED)
        .values("pound_id")
        .annotate(total=net_of_months())
        .order_by()
        .values_list("pound_id", "total")
    )
    return {pound_id: -total for pound_id, total in rows}


def pound_positions(pounds):
    """{pound id: PoundPosition} in three queries. The same sums as `office.unremitted_fines`
    and `office.cash_in_hand`, for many pounds at once and without creating accounts, from the
    ledger's month totals: a few rows a month, however long the pounds' history."""
    pounds = list(pounds)
    ids = [p.pk for p in pounds]
    credited = fines_credited(ids)
    sent = {
        row["pound_id"]: row
        for row in Remittance.objects.filter(pound_id__in=ids)
        .values("pound_id")
        .annotate(
            total=Sum("amount"),
            pending=Sum("amount", filter=Q(status=Remittance.Status.SENT), default=ZERO),
        )
    }
    held = {
        (pound_id, kind): balance
        for pound_id, kind, balance in AccountMonth.objects.filter(
            account__pound_id__in=ids,
            account__kind__in=[AccountKind.POUND_CASH, AccountKind.POUND_DIGITAL],
        )
        .values("account__pound_id", "account__kind")
        .annotate(balance=net_of_months())
        .order_by()
        .values_list("account__pound_id", "account__kind", "balance")
    }
    positions = {}
    for pound in pounds:
        row = sent.get(pound.pk, {})
        positions[pound.pk] = PoundPosition(
            pound=pound,
            fines_due=credited.get(pound.pk, ZERO) - row.get("total", ZERO),
            cash=held.get((pound.pk, AccountKind.POUND_CASH), ZERO),
            digital=held.get((pound.pk, AccountKind.POUND_DIGITAL), ZERO),
            awaiting_confirmation=row.get("pending", ZERO),
        )
    return positions


# --- The pound-keeper's feeding money against his feeding log (s.17, s.9) ----------------------

FEEDING_SOURCES = {
    TransactionKind.PAYMENT_S13: _("Paid by owners on release (s.13)"),
    TransactionKind.DEPOSIT_APPLIED: _("Deposits applied as payment (s.15)"),
    TransactionKind.SALE_S14: _("Deducted from the proceeds of sales (ss.14, 17)"),
    TransactionKind.S16_SETTLED: _("Deducted from the proceeds of sales (ss.16, 17)"),
    TransactionKind.REVERSAL: _("Reversals"),
}


@dataclass
class FeedingStatement:
    pound: object
    first: date
    last: date
    upto: date  # the last day counted: the month's end, or today in the current month
    credits: list  # one row per ledger posting to the feeding account
    sources: list  # (label, count, amount), one per source
    days: list  # impounding.selectors.FeedingDay, oldest first
    kept: Decimal
    spent: Decimal
    days_logged: int
    animals_fed: int
    days_without_cost: int
    missing: list  # days with animals in the pound and no feeding record

    @property
    def balance(self):
        return self.kept - self.spent

    @property
    def difference(self):
        return abs(self.balance)


def feeding_statement(pound, first):
    """The feeding money the pound-keeper kept in the month starting `first` (FEEDING_PK credits,
    per source), against what the feeding log records for the month. Five queries."""
    today = clock.today(pound)
    last = add_months(first, 1) - timedelta(days=1)
    upto = min(last, today)
    postings = list(
        Posting.objects.filter(
            account__pound=pound,
            account__kind=AccountKind.FEEDING_PK,
            transaction__at__gte=_day_start(first),
            transaction__at__lt=_day_start(last + timedelta(days=1)),
        )
        .select_related("transaction")
        .order_by("transaction__at", "transaction_id", "pk")
    )
    entry_ids = {p.transaction.impoundment_id for p in postings if p.transaction.impoundment_id}
    entries = dict(
        Impoundment.objects.filter(pk__in=entry_ids).values_list("pk", "register_number")
    )
    credits, by_source = [], defaultdict(lambda: [0, ZERO])
    for p in postings:
        txn = p.transaction
        amount = -p.amount
        label = FEEDING_SOURCES.get(txn.kind, txn.get_kind_display())
        by_source[str(label)][0] += 1
        by_source[str(label)][1] += amount
        credits.append(
            {
                "at": txn.at,
                "source": label,
                "memo": txn.memo,
                "entry_id": txn.impoundment_id,
                "register_number": entries.get(txn.impoundment_id, ""),
                "amount": amount,
            }
        )
    days = list(reversed(feeding_days(pound, first, upto))) if upto >= first else []
    logs = [log for d in days for log in d.logs]
    return FeedingStatement(
        pound=pound,
        first=first,
        last=last,
        upto=upto,
        credits=credits,
        sources=[(label, n, amount) for label, (n, amount) in by_source.items()],
        days=days,
        kept=sum((c["amount"] for c in credits), ZERO),
        spent=sum((log.cost for log in logs if log.cost is not None), ZERO),
        days_logged=sum(1 for d in days if d.logs),
        animals_fed=sum(log.animals_fed for log in logs),
        days_without_cost=sum(1 for log in logs if log.cost is None),
        missing=[d for d in days if d.missing and d.date < today],
    )


def surplus_hold_months(deposit):
    """The months the district's rule pack holds a surplus (s.17; three under the Act), or None
    where the pack leaves it for the State to fill: what the clock would start under today."""
    return rulepacks.pack_for(deposit.district).rules.clocks.surplus_hold_months


def surplus_hold_months_by_district(district_ids):
    """{district id: months its pack holds a surplus, or None where the State has to fill it},
    in at most two queries for a list's rows."""
    packs = rulepacks.district_pack_ids(district_ids)
    return {
        district_id: rulepacks.pack_of(pack_id).rules.clocks.surplus_hold_months
        for district_id, pack_id in packs.items()
    }


def surplus_min_expiry(deposit, months):
    """Before the office receives a surplus: the earliest its holding period can end; None where
    the pack leaves the period for the State to fill (no figure is invented)."""
    return add_months(deposit.sale_date, months) if months is not None else None
