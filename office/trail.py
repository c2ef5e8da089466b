"""The money trail of a register entry (s.17): every rupee from its receipt to where it is now,
with the business record that explains each balance.

Nothing here writes. A fixed number of queries, whatever the number of transactions.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Prefetch, Q, Subquery, Sum
from django.utils.translation import gettext_lazy as _

from auctions.models import S16Case, Sale
from impounding.models import Deposit
from kernel.refs import ref
from ledger.models import (
    Account,
    AccountKind,
    AccountMonth,
    Posting,
    Transaction,
    TransactionKind,
    month_of,
)

from .models import Remittance, SurplusClaim, SurplusDeposit
from .returns import day_start

ZERO = Decimal("0.00")
CASH_LIKE = {AccountKind.POUND_CASH, AccountKind.POUND_DIGITAL, AccountKind.DM_TREASURY}
# Transactions that hand money back to a person: what they take out of the cash has left.
PAYOUTS = {
    TransactionKind.DEPOSIT_REFUNDED,
    TransactionKind.S16_BALANCE_PAID,
    TransactionKind.SURPLUS_CLAIM_PAID,
}


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


def _fines_cover(pound, txns):
    """Which of the pound's remittances carried this entry's fines, taking the pound's fines in
    the order they were credited and its remittances in the order they were sent (first in,
    first out): remittances are lump sums for the pound, not for an entry.

    The fines credited before the month of the entry's first fine come from the ledger's month
    totals; only those since then are read posting by posting, so an entry page reads a month
    or two of the pound's fines, not its whole history."""
    since = min((month_of(t.at) for t in txns), default=None)
    if since is None:
        return []
    months_before = (
        AccountMonth.objects.filter(
            pound=pound, account__kind=AccountKind.FINES_DUE_DM, month__lt=since
        )
        .order_by()
        .values("pound")
        .annotate(total=Sum("credit"))
        .values("total")
    )
    # The pound's fines credited from that month to this entry's last, by the pound's
    # transactions in that time (an index range, transaction_pound_at), in the order credited:
    # bounded on both sides, so an old entry's page reads the weeks of its own fines, not the
    # postings of every fine credited since.
    window = (
        Posting.objects.filter(
            transaction__pound=pound,
            transaction__at__gte=day_start(since),
            transaction__at__lte=max(t.at for t in txns),
            account__kind=AccountKind.FINES_DUE_DM,
            amount__lt=0,
        )
        .annotate(before=Subquery(months_before))  # one value, read once (an InitPlan)
        .order_by("transaction__at", "transaction_id", "pk")
        .values_list("transaction_id", "amount", "before")
    )
    ours = {t.pk for t in txns}
    spans, credited = [], ZERO
    for txn_id, amount, before in window:
        if txn_id in ours:
            start = (before or ZERO) + credited
            spans.append((start, start - amount))  # (start, end] in the pound's stream
        credited -= amount
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


def _trail_records(entry):
    """The sales of the entry's animals, their surplus deposits and the entry's s.16 cases."""
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
    return sales, surpluses, cases


def _trail_transactions(entry, sales, surpluses, cases):
    sources = (
        [ref(s) for s in sales]
        + [f"auctions.s16case:{c.pk}" for c in cases]
        + [ref(d) for d in surpluses]
    )
    return list(
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


def _walk(txns):
    """Each transaction with its lines, debits first; what came in and went out through the cash
    accounts, per kind of transaction; and the balance left in each other fund."""
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
    return rows, received, paid_out, funds


@dataclass
class FinesSplit:
    """Where an entry's fines are: received by the office, in transit, or still at the pound."""

    total: Decimal
    confirmed: Decimal = ZERO
    in_transit: Decimal = ZERO
    shares: list = field(default_factory=list)  # RemittanceShare

    @property
    def unremitted(self):
        return self.total - self.confirmed - self.in_transit


def _fines_split(entry, rows, funds):
    fines = funds.get(AccountKind.FINES_DUE_DM, ZERO)
    if fines <= 0:
        return FinesSplit(fines)
    fine_txns = [
        t.txn
        for t in rows
        if any(line.account.kind == AccountKind.FINES_DUE_DM and line.credit for line in t.lines)
    ]
    shares = _fines_cover(entry.pound, fine_txns)
    confirmed = sum(
        (s.amount for s in shares if s.remittance.status == Remittance.Status.CONFIRMED), ZERO
    )
    in_transit = sum(
        (s.amount for s in shares if s.remittance.status == Remittance.Status.SENT), ZERO
    )
    confirmed = min(confirmed, fines)
    return FinesSplit(fines, confirmed, min(in_transit, max(fines - confirmed, ZERO)), shares)


def money_trail(entry):
    """Every rupee of a register entry, from receipt to where it is now: the ledger transactions
    of the entry (and of the sales of its animals and their surplus), with their postings, and
    the balance each of them left in each fund, with the business record that explains it."""
    sales, surpluses, cases = _trail_records(entry)
    rows, received, paid_out, funds = _walk(_trail_transactions(entry, sales, surpluses, cases))
    fines = _fines_split(entry, rows, funds)
    deposits = list(
        Deposit.objects.filter(release__impoundment=entry)
        .select_related("release__receipt")
        .order_by("pk")
    )
    receipts = [
        (TransactionKind(kind).label, amount) for kind, amount in received.items() if amount
    ]
    return Trail(
        entry=entry,
        transactions=rows,
        received=receipts,
        total_received=sum((a for _k, a in receipts), ZERO),
        destinations=_destinations(funds, paid_out, fines, surpluses, deposits),
        fines=fines.total,
        fines_confirmed=fines.confirmed,
        fines_in_transit=fines.in_transit,
        fines_unremitted=fines.unremitted,
        remittances=fines.shares,
        deposits=deposits,
        sales=sales,
        surpluses=surpluses,
        cases=cases,
    )


# The funds whose balance the trail explains line by line; any other account the entry's money
# reached is listed under its own name.
EXPLAINED = {
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


def _fines_rows(fines):
    return [
        (
            "fines_confirmed",
            _("Fines received by the District Magistrate (remittance confirmed, s.17)"),
            fines.confirmed,
            (),
        ),
        (
            "fines_in_transit",
            _("Fines remitted to the District Magistrate, awaiting the office's confirmation"),
            fines.in_transit,
            (),
        ),
        (
            "fines_unremitted",
            _("Fines at the pound, due to the District Magistrate and not yet remitted (s.17)"),
            fines.unremitted,
            (),
        ),
    ]


def _pound_rows(funds, paid_out, deposits):
    """The feeding money, the sale expenses, the s.15 deposit and the s.16 proceeds."""
    held = [d for d in deposits if d.status == Deposit.Status.HELD]
    return [
        (
            "feeding",
            _("Feeding money kept by the pound-keeper (s.17)"),
            funds.get(AccountKind.FEEDING_PK, ZERO),
            (),
        ),
        (
            "expenses",
            _("Sale expenses (ss.16, 17)"),
            funds.get(AccountKind.SALE_EXPENSES, ZERO),
            (),
        ),
        (
            "deposit_held",
            _("Held in deposit under s.15, pending the complaint"),
            funds.get(AccountKind.DEPOSITS_HELD, ZERO),
            held,
        ),
        (
            "deposit_refund_due",
            _("Deposit ordered refunded to the owner (s.22), not yet paid"),
            funds.get(AccountKind.DEPOSIT_REFUNDS_DUE, ZERO),
            (),
        ),
        (
            "deposit_refunded",
            _("Deposit refunded to the owner (s.22)"),
            paid_out.get(TransactionKind.DEPOSIT_REFUNDED, ZERO),
            (),
        ),
        (
            "s16_held",
            _("Proceeds of the s.16 sale, awaiting the owner's account"),
            funds.get(AccountKind.SALE_PROCEEDS_HELD, ZERO),
            (),
        ),
        (
            "s16_balance_due",
            _("Balance due to the owner after the s.16 sale"),
            funds.get(AccountKind.OWNER_BALANCES_DUE, ZERO),
            (),
        ),
        (
            "s16_balance_paid",
            _("Balance paid to the owner after the s.16 sale"),
            paid_out.get(TransactionKind.S16_BALANCE_PAID, ZERO),
            (),
        ),
    ]


def _surplus_rows(funds, paid_out, surpluses):
    """The surplus of a s.14 sale: at the pound, held by the office, paid to a claimant, or
    credited to revenue."""
    by_status = defaultdict(list)
    for d in surpluses:
        by_status[d.status].append(d)
    transferred = by_status[SurplusDeposit.Status.TRANSFERRED]
    surplus_fund = funds.get(AccountKind.DM_SURPLUS_HELD, ZERO)
    waiting = by_status[SurplusDeposit.Status.AWAITING_RECEIPT]
    at_pound = min(sum((d.amount for d in waiting), ZERO), surplus_fund)
    return [
        (
            "surplus_at_pound",
            _("Surplus at the pound, to be sent to the District Magistrate (s.17)"),
            at_pound,
            waiting,
        ),
        (
            "surplus_held",
            _("Surplus held in deposit by the District Magistrate (s.17)"),
            surplus_fund - at_pound,
            by_status[SurplusDeposit.Status.HELD],
        ),
        (
            "surplus_paid",
            _("Surplus paid to the owner on a proved claim (s.17)"),
            paid_out.get(TransactionKind.SURPLUS_CLAIM_PAID, ZERO),
            by_status[SurplusDeposit.Status.PAID],
        ),
        (
            "state_revenue",
            _("Credited to the revenues of the State (s.17)"),
            funds.get(AccountKind.STATE_REVENUE, ZERO),
            [d for d in transferred if d.destination == SurplusDeposit.Destination.STATE_REVENUE],
        ),
        (
            "local_fund",
            _("Credited to the local fund (s.31)"),
            funds.get(AccountKind.LOCAL_FUND, ZERO),
            [d for d in transferred if d.destination == SurplusDeposit.Destination.LOCAL_FUND],
        ),
    ]


def _destinations(funds, paid_out, fines, surpluses, deposits):
    rows = [
        *_fines_rows(fines),
        *_pound_rows(funds, paid_out, deposits),
        *_surplus_rows(funds, paid_out, surpluses),
        *[
            (kind, AccountKind(kind).label, amount, ())
            for kind, amount in funds.items()
            if kind not in EXPLAINED
        ],
    ]
    return [
        Destination(key, label, amount, list(notes)) for key, label, amount, notes in rows if amount
    ]
