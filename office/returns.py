"""Periodic returns (s.7): the monthly return of a pound, the district's consolidation, and the
daily cash book. This module is the one place their figures come from: the PDFs, the CSV files
and the screens only lay them out.

Animal figures come from the register, money figures from the ledger, so a return always agrees
with the books: both through their month totals (impounding.AnimalMonth, docs/decisions/0066;
ledger.AccountMonth, docs/decisions/0006), so a return reads a few rows a pound and month,
however long the register. Periods are Asia/Kolkata calendar days (docs/domain.md decision 1).

Animals: for each category (species), those on the register at the start of the month, those
impounded and born in it, those that reached an end in it (by the way they left), and those on
the register at its end. An animal that escaped and is still out stays "on the register": only
an end (release, sale, return, disposal, death) takes it off. So, for every row,
opening + impounded + born - every outcome = closing.

Money: each figure is the net of the ledger postings that make it, in transactions dated in the
month. A reversal counts against the figure of the transaction it reverses, so a mistake undone
in the same month nets to nothing.
"""

from collections import defaultdict
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import F, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from auctions.models import S16Case, Sale
from impounding import months
from impounding.models import AnimalState, Deposit, Release, Species
from kernel import clock, refs
from kernel.dates import add_months
from ledger.models import AccountKind, AccountMonth, Posting, TransactionKind, net_of_months

from .models import Remittance, SurplusDeposit

ZERO = Decimal("0.00")
CASH_KINDS = (AccountKind.POUND_CASH, AccountKind.POUND_DIGITAL)

# How an animal left the pound, in the order of the return's columns.
OUTCOMES = [
    ("claimed", AnimalState.RELEASED_PAID),
    ("deposit", AnimalState.RELEASED_ON_DEPOSIT),
    ("court", AnimalState.RELEASED_BY_ORDER),
    ("sold", AnimalState.SOLD),
    ("returned", AnimalState.RETURNED_S16),
    ("disposed", AnimalState.DISPOSED),
    ("died", AnimalState.DIED),
]
OUTCOME_COLUMNS = tuple(key for key, _state in OUTCOMES)
ANIMAL_COLUMNS = ("opening", "impounded", "born", *OUTCOME_COLUMNS, "closing")

K = TransactionKind
# Fines and feeding are "credited" when they become the District Magistrate's or the
# pound-keeper's: paid on release, applied from a deposit, or met from sale proceeds.
CREDITED = {K.PAYMENT_S13, K.DEPOSIT_APPLIED, K.SALE_S14, K.S16_SETTLED}
# (figure, accounts, transaction kinds, sign): the figure is sign x the net of the postings.
MONEY_RULES = [
    ("fines", {AccountKind.FINES_DUE_DM}, CREDITED, -1),
    ("feeding", {AccountKind.FEEDING_PK}, CREDITED, -1),
    ("deposits_received", {AccountKind.DEPOSITS_HELD}, {K.DEPOSIT_S15}, -1),
    ("deposits_applied", {AccountKind.DEPOSITS_HELD}, {K.DEPOSIT_APPLIED}, 1),
    ("deposits_refunded", {AccountKind.DEPOSIT_REFUNDS_DUE}, {K.DEPOSIT_REFUNDED}, 1),
    ("proceeds", set(CASH_KINDS), {K.SALE_S14, K.SALE_S16}, 1),
    ("sale_expenses", {AccountKind.SALE_EXPENSES}, {K.SALE_S14, K.S16_SETTLED}, -1),
    ("surplus", {AccountKind.DM_SURPLUS_HELD}, {K.SALE_S14}, -1),
    ("remitted", set(CASH_KINDS), {K.REMITTANCE_SENT}, -1),
]
MONEY_COLUMNS = tuple(rule[0] for rule in MONEY_RULES)
# The pound's cash and UPI collections over the month: opening + received - paid out = closing.
CASH_COLUMNS = ("cash_opening", "cash_in", "cash_out", "cash_closing")

# Short headings, for the tables, the CSV header row and the screen.
COLUMN_LABELS = {
    "opening": _("On the register at the start"),
    "impounded": _("Impounded"),
    "born": _("Born in the pound"),
    "claimed": _("Claimed, on payment (s.13)"),
    "deposit": _("Released on deposit (s.15)"),
    "court": _("Released by court order (s.19)"),
    "sold": _("Sold (ss.14, 16)"),
    "returned": _("Returned after a s.16 sale"),
    "disposed": _("Disposed of (s.14 proviso)"),
    "died": _("Died"),
    "closing": _("On the register at the end"),
    "fines": _("Fines (s.12)"),
    "feeding": _("Feeding charges (s.5)"),
    "deposits_received": _("Deposits received (s.15)"),
    "deposits_applied": _("Deposits applied (s.15)"),
    "deposits_refunded": _("Deposits refunded (s.22)"),
    "proceeds": _("Sale proceeds (ss.14, 16)"),
    "sale_expenses": _("Sale expenses met (s.17)"),
    "surplus": _("Surplus for the District Magistrate (s.17)"),
    "remitted": _("Fines remitted (s.17)"),
    "cash_opening": _("Cash and UPI at the start"),
    "cash_in": _("Received"),
    "cash_out": _("Paid out"),
    "cash_closing": _("Cash and UPI at the end"),
}


def day_start(day):
    """The first instant of an IST calendar day."""
    return timezone.make_aware(datetime.combine(day, time.min))


def month_range(year, month):
    """The first and last day of a calendar month."""
    first = date(year, month, 1)
    return first, add_months(first, 1) - timedelta(days=1)


def _window(first, last):
    return day_start(first), day_start(last + timedelta(days=1))


def species_label(code):
    """A species' short name: "Cattle (cow, bull, ...)" -> "Cattle"."""
    return str(Species(code).label).split(" (")[0]


# --- Animals --------------------------------------------------------------------------------


def _animal_figures(pound_ids, first):
    """{pound id: {species: {column: count}}}, from the register's month totals
    (docs/decisions/0066): the animals on the register at the month's start are those that came
    before it less those that left before it; the month's own movements fill the other columns,
    and the closing follows. A few rows per pound, however long its register."""
    figures = defaultdict(lambda: defaultdict(lambda: dict.fromkeys(ANIMAL_COLUMNS, 0)))
    state_column = {months.left(state): key for key, state in OUTCOMES}
    for (pound_id, species, movement), (before, during) in months.movements(
        pound_ids, first
    ).items():
        counts = figures[pound_id][species]
        if movement in (months.IMPOUNDED, months.BORN):
            counts["opening"] += before
            counts[movement] += during
        else:
            # Every end takes the animal off the register, whether or not the return has a
            # column for it.
            counts["opening"] -= before
            column = state_column.get(movement)
            if column is not None:
                counts[column] += during
            counts["closing"] -= during
    for by_species in figures.values():
        for counts in by_species.values():
            counts["closing"] += counts["opening"] + counts["impounded"] + counts["born"]
    return figures


def _category_rows(by_species):
    """The rows of a return's animal table, one per category present, in the Act's order."""
    return [
        {"species": code, "label": species_label(code), **by_species[code]}
        for code in Species.values
        if code in by_species and any(by_species[code].values())
    ]


def _sum(rows, columns):
    return {c: sum(row[c] for row in rows) for c in columns}


# --- Money ----------------------------------------------------------------------------------


def _origin(kind, reversed_kind, reversed_reversed_kind):
    """The kind of transaction whose money a posting moves: a reversal moves its original's."""
    if kind != K.REVERSAL:
        return kind
    if reversed_kind != K.REVERSAL:
        return reversed_kind
    return reversed_reversed_kind


def _nets(pound_ids, first, last):
    """(pound id, account kind, kind of the money's transaction, net) of the month: the ledger's
    month totals (docs/decisions/0006) for every kind but reversals, whose money is their
    original's; the month's reversals themselves, few, one by one through their own index."""
    rows = (
        AccountMonth.objects.filter(pound_id__in=pound_ids, month=first)
        .exclude(kind=K.REVERSAL)
        .order_by()
        .values_list("pound_id", "account__kind", "kind")
        .annotate(total=net_of_months())
    )
    yield from rows
    start, end = _window(first, last)
    reversals = (
        Posting.objects.filter(
            transaction__pound_id__in=pound_ids,
            transaction__kind=K.REVERSAL,
            transaction__at__gte=start,
            transaction__at__lt=end,
        )
        .order_by()
        .values_list(
            "transaction__pound_id",
            "account__kind",
            "transaction__reverses__kind",
            "transaction__reverses__reverses__kind",
        )
        .annotate(total=Sum("amount"))
    )
    for pound_id, account_kind, reversed_kind, reversed_reversed_kind, total in reversals:
        origin = _origin(K.REVERSAL, reversed_kind, reversed_reversed_kind)
        yield pound_id, account_kind, origin, total


def _money_figures(pound_ids, first, last):
    """{pound id: {figure: Decimal}}: the money figures and the cash and UPI movement of the
    calendar month `first`..`last`, from the month totals and the month's reversals."""
    if first.day != 1 or last != add_months(first, 1) - timedelta(days=1):
        raise ValueError(f"not a calendar month: {first} to {last}")
    money = defaultdict(lambda: dict.fromkeys(MONEY_COLUMNS + CASH_COLUMNS, ZERO))
    for pound_id, account_kind, origin, total in _nets(pound_ids, first, last):
        for figure, accounts, kinds, sign in MONEY_RULES:
            if account_kind in accounts and origin in kinds:
                money[pound_id][figure] += sign * total
    # The cash and UPI movement from the month totals (docs/decisions/0006): the opening is
    # every month before this one, the month's debits came in and its credits went out. A
    # pound's till is its own account, so the account's pound is the pound.
    cash = (
        AccountMonth.objects.filter(
            account__pound_id__in=pound_ids, account__kind__in=CASH_KINDS, month__lte=first
        )
        .order_by()
        .values("account__pound_id")
        .annotate(
            opening=Sum(F("debit") - F("credit"), filter=Q(month__lt=first), default=ZERO),
            received=Sum("debit", filter=Q(month=first), default=ZERO),
            paid=Sum("credit", filter=Q(month=first), default=ZERO),
        )
    )
    for row in cash:
        figures = money[row["account__pound_id"]]
        figures["cash_opening"] = row["opening"]
        figures["cash_in"] = row["received"]
        figures["cash_out"] = row["paid"]
    for figures in money.values():
        figures["cash_closing"] = figures["cash_opening"] + figures["cash_in"] - figures["cash_out"]
    return money


def _remittances(pound_ids, first, last):
    """The remittances of fines whose ledger transaction falls in the month, by pound."""
    start, end = _window(first, last)
    sources = Posting.objects.filter(
        transaction__pound_id__in=pound_ids,
        transaction__kind=K.REMITTANCE_SENT,
        transaction__at__gte=start,
        transaction__at__lt=end,
    ).values_list("transaction__source", flat=True)
    ids = {int(s.rsplit(":", 1)[1]) for s in sources if s.startswith(f"{refs.key(Remittance)}:")}
    found = defaultdict(list)
    for remittance in Remittance.objects.filter(pk__in=ids).order_by("sent_at", "pk"):
        found[remittance.pound_id].append(remittance)
    return found


# --- The returns ----------------------------------------------------------------------------


def _over(last, of):
    """Whether the day `last` is over in `of`'s district: a training clock only runs ahead of
    the real one (ADR 0080), so a day over in real time costs no look at it."""
    return last < timezone.localdate() or last < clock.today(of)


def _returns(pounds, year, month):
    first, last = month_range(year, month)
    ids = [p.pk for p in pounds]
    animals = _animal_figures(ids, first)
    money = _money_figures(ids, first, last)
    remittances = _remittances(ids, first, last)
    results = []
    for pound in pounds:
        rows = _category_rows(animals[pound.pk])
        results.append(
            {
                "pound": pound,
                "first": first,
                "last": last,
                # A month not yet over gives figures to date: a provisional return.
                "complete": _over(last, pound),
                "animals": rows,
                "totals": _sum(rows, ANIMAL_COLUMNS),
                "money": dict(money[pound.pk]),
                "remittances": remittances[pound.pk],
            }
        )
    return results


def pound_return(pound, year, month):
    """The monthly return of one pound: animals by category and outcome, and money."""
    return _returns([pound], year, month)[0]


def district_return(district, year, month, pounds):
    """The district's consolidation: one row per pound, and the district's totals, which are the
    sums of the pounds' rows. A pound closed before the month appears only if it has figures."""
    first, last = month_range(year, month)
    pounds = list(pounds)
    rows = [
        row
        for row in _returns(pounds, year, month)
        if _active_in(row["pound"], first, last) or _has_figures(row)
    ]
    by_species = defaultdict(lambda: dict.fromkeys(ANIMAL_COLUMNS, 0))
    for row in rows:
        for line in row["animals"]:
            for column in ANIMAL_COLUMNS:
                by_species[line["species"]][column] += line[column]
    money_columns = MONEY_COLUMNS + CASH_COLUMNS
    return {
        "district": district,
        "first": first,
        "last": last,
        "complete": _over(last, district),
        "pounds": rows,
        "animals": _category_rows(by_species),
        "totals": _sum([row["totals"] for row in rows], ANIMAL_COLUMNS),
        "money": {c: sum((row["money"][c] for row in rows), ZERO) for c in money_columns},
    }


def _active_in(pound, first, last):
    return pound.active_from <= last and (pound.active_to is None or pound.active_to >= first)


def _has_figures(row):
    return any(row["totals"].values()) or any(row["money"].values())


# --- The daily cash book ----------------------------------------------------------------------


def cash_book(pound, day):
    """Opening balance, every receipt and payment of the IST day `day` in the pound's cash and
    its UPI and other collections, and the closing balance. Each line carries the running
    balance and the number of the receipt, remittance or other document behind it."""
    start, end = _window(day, day)
    postings = Posting.objects.filter(account__pound=pound, account__kind__in=CASH_KINDS)
    # The opening: the month totals of the months before this one, then this month's postings
    # before the day; never a sum over the pound's whole history.
    month = day.replace(day=1)
    opening = dict.fromkeys(CASH_KINDS, ZERO)
    for row in (
        AccountMonth.objects.filter(
            account__pound=pound, account__kind__in=CASH_KINDS, month__lt=month
        )
        .order_by()
        .values("account__kind")
        .annotate(total=Sum(F("debit") - F("credit")))
    ):
        opening[row["account__kind"]] += row["total"]
    for row in (
        postings.filter(transaction__at__gte=day_start(month), transaction__at__lt=start)
        .order_by()
        .values("account__kind")
        .annotate(total=Sum("amount"))
    ):
        opening[row["account__kind"]] += row["total"]
    lines = list(
        postings.filter(transaction__at__gte=start, transaction__at__lt=end)
        .select_related("transaction", "account")
        .order_by("transaction__at", "transaction_id", "pk")
    )
    references = document_numbers([p.transaction for p in lines])
    balance = sum(opening.values(), ZERO)
    closing = dict(opening)
    entries = []
    for posting in lines:
        balance += posting.amount
        closing[posting.account.kind] += posting.amount
        entries.append(
            {
                "posting": posting,
                "transaction": posting.transaction,
                "at": posting.transaction.at,
                "memo": posting.transaction.memo,
                "reference": references.get(posting.transaction_id, ""),
                "cash": posting.account.kind == AccountKind.POUND_CASH,
                "receipt": posting.amount if posting.amount > 0 else None,
                "payment": -posting.amount if posting.amount < 0 else None,
                "balance": balance,
            }
        )
    receipts = sum((p.amount for p in lines if p.amount > 0), ZERO)
    payments = -sum((p.amount for p in lines if p.amount < 0), ZERO)
    return {
        "pound": pound,
        "day": day,
        "complete": _over(day, pound),
        "opening": _balances(opening),
        "lines": entries,
        "receipts": receipts,
        "payments": payments,
        "closing": _balances(closing),
    }


def _balances(by_kind):
    cash, digital = by_kind[AccountKind.POUND_CASH], by_kind[AccountKind.POUND_DIGITAL]
    return {"cash": cash, "digital": digital, "total": cash + digital}


def document_numbers(transactions):
    """{transaction id: the number of the receipt, remittance, certificate or account the
    money moved on}, found from each transaction's source record, a few queries in all."""
    wanted = defaultdict(set)
    for txn in transactions:
        kind, _sep, pk = txn.source.partition(":")
        if pk.isdigit():
            wanted[kind].add(int(pk))
    lookups = {
        refs.key(Release): lambda ids: {
            r.pk: r.receipt.number
            for r in Release.objects.filter(pk__in=ids).select_related("receipt")
        },
        refs.key(Deposit): lambda ids: {
            d.pk: d.release.receipt.number
            for d in Deposit.objects.filter(pk__in=ids).select_related("release__receipt")
        },
        refs.key(Remittance): lambda ids: dict(
            Remittance.objects.filter(pk__in=ids).values_list("pk", "number")
        ),
        refs.key(Sale): lambda ids: dict(
            Sale.objects.filter(pk__in=ids).values_list("pk", "certificate__number")
        ),
        refs.key(S16Case): lambda ids: dict(
            S16Case.objects.filter(pk__in=ids).values_list("pk", "account_document__number")
        ),
        refs.key(SurplusDeposit): lambda ids: dict(
            SurplusDeposit.objects.filter(pk__in=ids).values_list("pk", "sale__certificate__number")
        ),
    }
    found = {kind: lookups[kind](ids) for kind, ids in wanted.items() if kind in lookups}
    numbers = {}
    for txn in transactions:
        kind, _sep, pk = txn.source.partition(":")
        number = found.get(kind, {}).get(int(pk)) if pk.isdigit() else None
        numbers[txn.pk] = number or ""
    return numbers
