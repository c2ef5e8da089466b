"""Read models of the money screens (s.17): what each pound holds and owes, the pound-keeper's
feeding money against his feeding log, and the money trail of a register entry.

Nothing here writes: an account that does not exist yet simply holds nothing (the services create
accounts on first use). Each function runs a fixed number of queries, whatever the number of
pounds, days or transactions.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import OuterRef, Prefetch, Q, Subquery, Sum
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from impounding.selectors import feeding_days
from ledger.models import Account, AccountKind, Posting, Transaction, TransactionKind
from poundadmin.dates import add_months

from .models import Remittance, SurplusClaim, SurplusDeposit

ZERO = Decimal("0.00")
CASH_LIKE = {AccountKind.POUND_CASH, AccountKind.POUND_DIGITAL, AccountKind.DM_TREASURY}
# Transactions that hand money back to a person: what they take out of the cash has left.
PAYOUTS = {
    TransactionKind.DEPOSIT_REFUNDED,
    TransactionKind.S16_BALANCE_PAID,
    TransactionKind.SURPLUS_CLAIM_PAID,
}


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
    one query, net of reversals. The office's confirmation of a remittance also posts to the
    fines account; it is counted as a remittance, not here. Every "fines not yet remitted"
    figure (the remittance form, the dashboard, the remittances page) starts from this."""
    rows = (
        Posting.objects.filter(
            transaction__pound_id__in=pound_ids, account__kind=AccountKind.FINES_DUE_DM
        )
        .exclude(transaction__kind=TransactionKind.REMITTANCE_CONFIRMED)
        .values("transaction__pound_id")
        .annotate(total=Sum("amount"))
        .order_by()
        .values_list("transaction__pound_id", "total")
    )
    return {pound_id: -total for pound_id, total in rows}


def pound_positions(pounds):
    """{pound id: PoundPosition} in three queries. The same sums as `office.unremitted_fines`
    and `office.cash_in_hand`, for many pounds at once and without creating accounts."""
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
        (a.pound_id, a.kind): a.balance
        for a in Account.objects.filter(
            pound_id__in=ids, kind__in=[AccountKind.POUND_CASH, AccountKind.POUND_DIGITAL]
        ).with_balances()
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
    today = timezone.localdate()
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
    from impounding.models import Impoundment

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
    logs = [d.log for d in days if d.log is not None]
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
        days_logged=len(logs),
        animals_fed=sum(log.animals_fed for log in logs),
        days_without_cost=sum(1 for log in logs if log.cost is None),
        missing=[d for d in days if d.missing and d.date < today],
    )


# --- The money trail of a register entry ---------------------------------------------------------


@dataclass
class TrailLine:
    account: Account
    debit: Decimal | None
    credit: Decimal | None


@dataclass
class TrailTransaction:
    txn: Transaction
    lines: list


@dataclass
class Destination:
    """Where some of the entry's money is now."""

    key: str
    label: str
    amount: Decimal
    notes: list = field(default_factory=list)


@dataclass
class RemittanceShare:
    remittance: Remittance
    amount: Decimal  # how much of this entry's fines the remittance carried


@dataclass
class Trail:
    entry: object
    transactions: list
    received: list  # (label, amount) per kind of receipt
    total_received: Decimal
    destinations: list
    fines: Decimal
    fines_confirmed: Decimal
    fines_in_transit: Decimal
    fines_unremitted: Decimal
    remittances: list  # RemittanceShare, in order of sending
    deposits: list  # impounding.Deposit of the entry
    sales: list  # auctions.Sale of the entry's animals
    surpluses: list  # SurplusDeposit of those sales
    cases: list  # auctions.S16Case of the entry

    @property
    def total_accounted(self):
        return sum((d.amount for d in self.destinations), ZERO)


def _fines_cover(pound, txn_ids):
    """Which of the pound's remittances carried this entry's fines, taking the pound's fines in
    the order they were credited and its remittances in the order they were sent (first in,
    first out): remittances are lump sums for the pound, not for an entry."""
    credits = Posting.objects.filter(
        transaction__pound=pound, account__kind=AccountKind.FINES_DUE_DM, amount__lt=0
    )
    # The pound's fines credited before each of this entry's: ordered by time, then by id.
    earlier = (
        credits.filter(
            Q(transaction__at__lt=OuterRef("transaction__at"))
            | Q(
                transaction__at=OuterRef("transaction__at"),
                transaction_id__lt=OuterRef("transaction_id"),
            )
            | Q(transaction_id=OuterRef("transaction_id"), pk__lt=OuterRef("pk"))
        )
        .order_by()
        .values("account__kind")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    spans = [
        (-(before or ZERO), -(before or ZERO) - amount)  # (start, end] in the pound's stream
        for amount, before in credits.filter(transaction_id__in=txn_ids)
        .annotate(before=Subquery(earlier))
        .values_list("amount", "before")
    ]
    shares = []
    if not spans:
        return shares
    low, high = min(s for s, _e in spans), max(e for _s, e in spans)
    sent = ZERO
    for remittance in Remittance.objects.filter(pound=pound).order_by("sent_at", "pk"):
        start, sent = sent, sent + remittance.amount
        if sent <= low:
            continue
        if start >= high:
            break
        carried = sum((max(ZERO, min(sent, end) - max(start, begin)) for begin, end in spans), ZERO)
        if carried:
            shares.append(RemittanceShare(remittance, carried))
    return shares


def money_trail(entry):
    """Every rupee of a register entry, from receipt to where it is now: the ledger transactions
    of the entry (and of the sales of its animals and their surplus), with their postings, and
    the balance each of them left in each fund, with the business record that explains it."""
    from auctions.models import S16Case, Sale
    from impounding.models import Deposit

    sales = list(
        Sale.objects.filter(lot__lotanimal__animal__impoundment=entry)
        .distinct()
        .select_related("lot__auction")
        .order_by("sold_at", "pk")
    )
    surpluses = list(
        SurplusDeposit.objects.filter(sale__in=sales)
        .select_related("sale__lot__auction", "transfer_memo")
        .prefetch_related(
            Prefetch("claims", queryset=SurplusClaim.objects.order_by("filed_on", "pk"))
        )
        .order_by("sale_date", "pk")
    )
    cases = list(S16Case.objects.filter(impoundment=entry).order_by("recorded_at", "pk"))
    sources = (
        [f"auctions.sale:{s.pk}" for s in sales]
        + [f"auctions.s16case:{c.pk}" for c in cases]
        + [f"ledger.surplusdeposit:{d.pk}" for d in surpluses]
    )
    txns = list(
        Transaction.objects.filter(Q(impoundment_id=entry.pk) | Q(source__in=sources))
        .select_related("by", "reverses")
        .prefetch_related(
            Prefetch(
                "postings",
                queryset=Posting.objects.select_related("account__pound", "account__district"),
            )
        )
        .order_by("at", "pk")
    )

    received, paid_out, funds = defaultdict(lambda: ZERO), defaultdict(lambda: ZERO), {}
    rows = []
    for txn in txns:
        kind = txn.reverses.kind if txn.reverses_id else txn.kind
        postings = sorted(txn.postings.all(), key=lambda p: (p.amount < 0, p.account.kind))
        lines = []
        for p in postings:
            lines.append(
                TrailLine(
                    p.account,
                    p.amount if p.amount > 0 else None,
                    -p.amount if p.amount < 0 else None,
                )
            )
            if p.account.kind in CASH_LIKE:
                if kind in PAYOUTS:
                    paid_out[kind] -= p.amount
                else:
                    received[kind] += p.amount
            else:
                funds[p.account.kind] = funds.get(p.account.kind, ZERO) - p.amount
        rows.append(TrailTransaction(txn, lines))

    fines = funds.get(AccountKind.FINES_DUE_DM, ZERO)
    fine_txns = [
        t.txn.pk
        for t in rows
        if any(line.account.kind == AccountKind.FINES_DUE_DM and line.credit for line in t.lines)
    ]
    shares = _fines_cover(entry.pound, fine_txns) if fines > 0 else []
    confirmed = sum(
        (s.amount for s in shares if s.remittance.status == Remittance.Status.CONFIRMED), ZERO
    )
    in_transit = sum(
        (s.amount for s in shares if s.remittance.status == Remittance.Status.SENT), ZERO
    )
    confirmed, in_transit = min(confirmed, fines), min(in_transit, max(fines - confirmed, ZERO))
    unremitted = fines - confirmed - in_transit

    deposits = list(
        Deposit.objects.filter(release__impoundment=entry)
        .select_related("release__receipt")
        .order_by("pk")
    )
    destinations = _destinations(
        funds, paid_out, confirmed, in_transit, unremitted, surpluses, deposits
    )
    receipts = [
        (TransactionKind(kind).label, amount) for kind, amount in received.items() if amount
    ]
    return Trail(
        entry=entry,
        transactions=rows,
        received=receipts,
        total_received=sum((a for _k, a in receipts), ZERO),
        destinations=destinations,
        fines=fines,
        fines_confirmed=confirmed,
        fines_in_transit=in_transit,
        fines_unremitted=unremitted,
        remittances=shares,
        deposits=deposits,
        sales=sales,
        surpluses=surpluses,
        cases=cases,
    )


def _destinations(funds, paid_out, confirmed, in_transit, unremitted, surpluses, deposits):
    from impounding.models import Deposit

    out = []

    def add(key, label, amount, notes=()):
        if amount:
            out.append(Destination(key, label, amount, list(notes)))

    add(
        "fines_confirmed",
        _("Fines received by the District Magistrate (remittance confirmed, s.17)"),
        confirmed,
    )
    add(
        "fines_in_transit",
        _("Fines remitted to the District Magistrate, awaiting the office's confirmation"),
        in_transit,
    )
    add(
        "fines_unremitted",
        _("Fines at the pound, due to the District Magistrate and not yet remitted (s.17)"),
        unremitted,
    )
    add(
        "feeding",
        _("Feeding money kept by the pound-keeper (s.17)"),
        funds.get(AccountKind.FEEDING_PK, ZERO),
    )
    add("expenses", _("Sale expenses (ss.16, 17)"), funds.get(AccountKind.SALE_EXPENSES, ZERO))
    add(
        "deposit_held",
        _("Held in deposit under s.15, pending the complaint"),
        funds.get(AccountKind.DEPOSITS_HELD, ZERO),
        [d for d in deposits if d.status == Deposit.Status.HELD],
    )
    add(
        "deposit_refund_due",
        _("Deposit ordered refunded to the owner (s.22), not yet paid"),
        funds.get(AccountKind.DEPOSIT_REFUNDS_DUE, ZERO),
    )
    add(
        "deposit_refunded",
        _("Deposit refunded to the owner (s.22)"),
        paid_out.get(TransactionKind.DEPOSIT_REFUNDED, ZERO),
    )
    add(
        "s16_held",
        _("Proceeds of the s.16 sale, awaiting the owner's account"),
        funds.get(AccountKind.SALE_PROCEEDS_HELD, ZERO),
    )
    add(
        "s16_balance_due",
        _("Balance due to the owner after the s.16 sale"),
        funds.get(AccountKind.OWNER_BALANCES_DUE, ZERO),
    )
    add(
        "s16_balance_paid",
        _("Balance paid to the owner after the s.16 sale"),
        paid_out.get(TransactionKind.S16_BALANCE_PAID, ZERO),
    )
    waiting = [d for d in surpluses if d.status == SurplusDeposit.Status.AWAITING_RECEIPT]
    held = [d for d in surpluses if d.status == SurplusDeposit.Status.HELD]
    surplus_fund = funds.get(AccountKind.DM_SURPLUS_HELD, ZERO)
    waiting_total = sum((d.amount for d in waiting), ZERO)
    add(
        "surplus_at_pound",
        _("Surplus at the pound, to be sent to the District Magistrate (s.17)"),
        min(waiting_total, surplus_fund),
        waiting,
    )
    add(
        "surplus_held",
        _("Surplus held in deposit by the District Magistrate (s.17)"),
        surplus_fund - min(waiting_total, surplus_fund),
        held,
    )
    add(
        "surplus_paid",
        _("Surplus paid to the owner on a proved claim (s.17)"),
        paid_out.get(TransactionKind.SURPLUS_CLAIM_PAID, ZERO),
        [d for d in surpluses if d.status == SurplusDeposit.Status.PAID],
    )
    transferred = [d for d in surpluses if d.status == SurplusDeposit.Status.TRANSFERRED]
    add(
        "state_revenue",
        _("Credited to the revenues of the State (s.17)"),
        funds.get(AccountKind.STATE_REVENUE, ZERO),
        [d for d in transferred if d.destination == SurplusDeposit.Destination.STATE_REVENUE],
    )
    add(
        "local_fund",
        _("Credited to the local fund (s.31)"),
        funds.get(AccountKind.LOCAL_FUND, ZERO),
        [d for d in transferred if d.destination == SurplusDeposit.Destination.LOCAL_FUND],
    )
    known = {
        AccountKind.FINES_DUE_DM,
        AccountKind.FEEDING_PK,
        AccountKind.SALE_EXPENSES,
        AccountKind.DEPOSITS_HELD,
        AccountKind.DEPOSIT_REFUNDS_DUE,
        AccountKind.SALE_PROCEEDS_HELD,
        AccountKind.OWNER_BALANCES_DUE,
        AccountKind.DM_SURPLUS_HELD,
        AccountKind.STATE_REVENUE,
        AccountKind.LOCAL_FUND,
    }
    for kind, amount in funds.items():  # any other account the entry's money reached
        if kind not in known:
            add(kind, AccountKind(kind).label, amount)
    return out


def surplus_min_expiry(deposit):
    """Before the office receives a surplus: the earliest its three months can end."""
    return add_months(deposit.sale_date, 3)
