"""Read models for the District Magistrate's office: the home page's panels and charts, and the
list of approvals waiting for the office.

Each function runs a fixed number of queries, whatever the number of entries, deposits or sales:
lists are fetched with their relations in one go, and the charts aggregate in the database, by
month in Asia/Kolkata (docs/domain.md decision 1).
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.db.models import (
    Avg,
    Count,
    DateField,
    DurationField,
    ExpressionWrapper,
    F,
    Prefetch,
    Q,
    Sum,
)
from django.db.models.functions import Coalesce, TruncMonth
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.roles import Permission
from accounts.scoping import visible_district_ids, visible_pound_ids
from impounding.dues import OUT, custody_intervals
from impounding.models import (
    Animal,
    AnimalState,
    Complaint,
    CourtOrder,
    CustodyEvent,
    Deposit,
    FeedingLog,
    Impoundment,
)
from impounding.services import deposit_awaiting_application
from ledger.models import AccountKind
from poundadmin.charts import Series, bar_chart
from poundadmin.dates import add_months, days_between, ist_date

from .models import Remittance, SurplusClaim, SurplusDeposit
from .returns import day_start
from .statements import fines_credited

ZERO = Decimal("0.00")
MONTHS = 12
FEEDING_DAYS = 7

# The complaint that decides a deposit's fate (s.20): its status on the office's lists.
COMPLAINT_STATUS = {
    "none": gettext_lazy("None made"),
    "pending": gettext_lazy("Pending"),
    "dismissed": gettext_lazy("Dismissed"),
    "upheld": gettext_lazy("Upheld (s.22)"),
}


# --- s.15 deposits ---------------------------------------------------------------------------


def complaints_of(deposit):
    """The complaints that decide a deposit: those naming it, else the entry's complaints that
    name no deposit (the rule of deposit_awaiting_application), from prefetched rows."""
    linked = list(deposit.complaints.all())
    if linked:
        return linked
    return [c for c in deposit.release.impoundment.complaints.all() if c.deposit_id is None]


def complaint_status(complaints):
    outcomes = {c.outcome for c in complaints}
    if not outcomes:
        return "none"
    if Complaint.Outcome.PENDING in outcomes:
        return "pending"
    if Complaint.Outcome.UPHELD in outcomes:
        return "upheld"
    return "dismissed"


def held_deposits(pound_ids, today):
    """Deposits held under s.15 in these pounds, last day to complain first. Three queries.

    Each carries `entry`, `complaint_status` (none, pending, dismissed, upheld) with its label,
    `days_left` to complain, and `awaiting`: whether it may be applied as payment now."""
    deposits = list(
        Deposit.objects.filter(
            release__impoundment__pound_id__in=pound_ids, status=Deposit.Status.HELD
        )
        .select_related(
            "release__impoundment__pound__district", "release__receipt", "application_confirmed_by"
        )
        .prefetch_related("complaints", "release__impoundment__complaints")
        .order_by("complaint_deadline", "pk")
    )
    for d in deposits:
        d.entry = d.release.impoundment
        d.complaint_list = complaints_of(d)
        d.complaint_status = complaint_status(d.complaint_list)
        d.complaint_status_label = COMPLAINT_STATUS[d.complaint_status]
        d.days_left = (d.complaint_deadline - today).days
        d.awaiting = deposit_awaiting_application(d, today)
        d.applies_on = d.complaint_deadline + timedelta(days=1)
    return deposits


# --- s.17 surplus and fines --------------------------------------------------------------------


def surplus_deposits(district_ids, today):
    """Surplus sale proceeds not yet paid out or transferred: at a pound awaiting the office, or
    held in deposit, soonest expiry first. Two queries."""
    rows = list(
        SurplusDeposit.objects.filter(
            district_id__in=district_ids,
            status__in=[SurplusDeposit.Status.AWAITING_RECEIPT, SurplusDeposit.Status.HELD],
        )
        .select_related("pound", "sale__lot__auction")
        .prefetch_related(
            Prefetch(
                "claims",
                queryset=SurplusClaim.objects.filter(status=SurplusClaim.Status.PENDING),
                to_attr="pending_claims",
            )
        )
        .order_by(F("expires_on").asc(nulls_first=True), "sale_date", "pk")
    )
    for s in rows:
        s.days_left = (s.expires_on - today).days if s.expires_on else None
    return rows


@dataclass
class PoundFines:
    pound: object
    credited: Decimal = ZERO
    sent: Decimal = ZERO
    confirmed: Decimal = ZERO

    @property
    def remitted(self):
        return self.sent + self.confirmed

    @property
    def unremitted(self):
        """What office.unremitted_fines(pound) gives: credited less everything remitted."""
        return self.credited - self.sent - self.confirmed


def fines_by_pound(pounds):
    """For each pound: fines credited to the District Magistrate from its collections, the
    remittances awaiting the office's confirmation, those confirmed, and what is still to be
    remitted. The same figures as office.unremitted_fines, for every pound in two queries."""
    rows = {p.pk: PoundFines(p) for p in pounds}
    for pound_id, credited in fines_credited(rows).items():
        rows[pound_id].credited = credited
    remitted = (
        Remittance.objects.filter(pound_id__in=rows)
        .values("pound_id", "status")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    for r in remitted:
        row = rows[r["pound_id"]]
        if r["status"] == Remittance.Status.CONFIRMED:
            row.confirmed += r["total"]
        else:
            row.sent += r["total"]
    return list(rows.values())


# --- Approvals waiting for the office ---------------------------------------------------------


@dataclass
class Approvals:
    """Everything waiting for the office, by kind. Each row has `may_act`: whether this user may
    take the action (the clerk prepares; the Magistrate approves)."""

    deposits_to_apply: list = field(default_factory=list)
    deposits_in_window: list = field(default_factory=list)
    disposals: list = field(default_factory=list)
    shortfalls: list = field(default_factory=list)
    court_orders: list = field(default_factory=list)
    claims: list = field(default_factory=list)

    @property
    def total(self):
        return (
            len(self.deposits_to_apply)
            + len(self.deposits_in_window)
            + len(self.disposals)
            + len(self.shortfalls)
            + len(self.court_orders)
            + len(self.claims)
        )


def approvals(user, pound_ids, district_ids, today, deposits=None):
    """The approvals waiting in these pounds and districts. Four queries, plus three for the
    deposits unless the caller has them already."""
    from auctions.models import DisposalOrder, Shortfall

    approve_in = set(visible_pound_ids(user, Permission.APPROVE))
    prepare_in = set(visible_pound_ids(user, Permission.PREPARE_ORDERS))
    approve_districts = set(visible_district_ids(user, Permission.APPROVE))
    result = Approvals()
    if deposits is None:
        deposits = held_deposits(pound_ids, today)
    for d in deposits:
        d.may_act = d.entry.pound_id in approve_in
        if d.awaiting:
            result.deposits_to_apply.append(d)
        elif d.complaint_status != "upheld" and not d.application_confirmed_by_id:
            result.deposits_in_window.append(d)
    result.disposals = list(
        DisposalOrder.objects.filter(pound_id__in=pound_ids, status=DisposalOrder.Status.PROPOSED)
        .select_related("pound", "prepared_by")
        .annotate(animal_count=Count("animals"))
        .order_by("prepared_at", "pk")
    )
    result.shortfalls = list(
        Shortfall.objects.filter(pound_id__in=pound_ids, status=Shortfall.Status.PENDING)
        .select_related("pound", "sale__lot__auction", "s16_case__impoundment")
        .order_by("recorded_at", "pk")
    )
    result.court_orders = list(
        CourtOrder.objects.filter(impoundment__pound_id__in=pound_ids, reviewed_at__isnull=True)
        .select_related("impoundment__pound", "recorded_by")
        .order_by("recorded_at", "pk")
    )
    result.claims = list(
        SurplusClaim.objects.filter(
            deposit__district_id__in=district_ids, status=SurplusClaim.Status.PENDING
        )
        .select_related("deposit__pound", "deposit__district", "prepared_by")
        .order_by("filed_on", "pk")
    )
    for row in result.disposals + result.shortfalls:
        row.may_act = row.pound_id in approve_in
    for order in result.court_orders:
        order.may_act = order.impoundment.pound_id in prepare_in
    for claim in result.claims:
        claim.may_act = claim.deposit.district_id in approve_districts
    return result


# --- Overdue work per pound --------------------------------------------------------------------


@dataclass
class PoundOverdue:
    pound: object
    reports: int = 0
    notices: int = 0
    auctions: int = 0
    feeding_days: list = field(default_factory=list)

    @property
    def any(self):
        return bool(self.reports or self.notices or self.auctions or self.feeding_days)


def missing_feeding_days(pound_ids, first, last):
    """{pound id: [dates]}: impounding.selectors.missing_feeding_days for several pounds at once,
    with the same custody intervals. Three queries, whatever the number of pounds."""
    start, end = day_start(first), day_start(last + timedelta(days=1))
    as_of = min(timezone.now(), end)
    animals = (
        Animal.objects.filter(impoundment__pound_id__in=pound_ids, impoundment__arrived_at__lt=end)
        .filter(Q(custody_ended_at__isnull=True) | Q(custody_ended_at__gte=start))
        .select_related("impoundment")
        .prefetch_related(
            Prefetch(
                "custody_events",
                queryset=CustodyEvent.objects.filter(
                    kind__in=[*OUT, CustodyEvent.Kind.RETURNED]
                ).order_by("at", "pk"),
            )
        )
    )
    in_pound = defaultdict(set)
    for animal in animals:
        for begin, finish in custody_intervals(animal, as_of):
            in_pound[animal.impoundment.pound_id].update(
                days_between(max(ist_date(begin), first), min(ist_date(finish), last))
            )
    fed = defaultdict(set)
    for pound_id, day in FeedingLog.objects.filter(
        pound_id__in=pound_ids, date__range=(first, last)
    ).values_list("pound_id", "date"):
        fed[pound_id].add(day)
    return {pound_id: sorted(days - fed[pound_id]) for pound_id, days in in_pound.items() if days}


def overdue_by_pound(pounds, today):
    """Per pound: reports of unclaimed cattle not sent (s.14), reports whose notice is not
    posted, notices run out with the cattle neither sold nor in a lot, and the days of the last
    week with cattle in the pound and no feeding record (ss.9, 27). Six queries."""
    from auctions.clocks import reports_due
    from auctions.models import Lot, LotAnimal, Notice, Report

    rows = {p.pk: PoundOverdue(p) for p in pounds}
    ids = list(rows)
    for row in reports_due(ids, today):
        rows[row["entry"].pound_id].reports += 1
    # A report whose cattle have all left the pound needs no notice any more.
    notices = (
        Report.objects.filter(
            pound_id__in=ids, notice__isnull=True, animals__state=AnimalState.IMPOUNDED
        )
        .values("pound_id")
        .annotate(n=Count("pk", distinct=True))
        .order_by()
    )
    for r in notices:
        rows[r["pound_id"]].notices = r["n"]
    open_lots = LotAnimal.objects.filter(lot__status=Lot.Status.OPEN).values("animal_id")
    auctions = (
        Notice.objects.filter(
            pound_id__in=ids,
            earliest_sale__lte=today,
            report__animals__state=AnimalState.IMPOUNDED,
        )
        .exclude(report__animals__in=open_lots)
        .values("pound_id")
        .annotate(n=Count("pk", distinct=True))
        .order_by()
    )
    for r in auctions:
        rows[r["pound_id"]].auctions = r["n"]
    missing = missing_feeding_days(
        ids, today - timedelta(days=FEEDING_DAYS), today - timedelta(days=1)
    )
    for pound_id, days in missing.items():
        rows[pound_id].feeding_days = days
    return list(rows.values())


# --- Charts ----------------------------------------------------------------------------------


@dataclass
class Chart:
    """A chart and the table that says the same in words: `columns` head the table, each row is
    (label, [values]). `series` is kept so that the SVG's element ids stay unique on the page."""

    key: str
    title: str
    description: str
    row_heading: str
    columns: list
    rows: list
    series: list
    svg: str = ""
    money: bool = False
    decimals: bool = False


def last_months(today, count=MONTHS):
    """The first days of the last `count` months, oldest first, this month last."""
    this_month = today.replace(day=1)
    return [add_months(this_month, -k) for k in range(count - 1, -1, -1)]


def _month_label(month, short=False):
    # The chart's axis has room for the month's short name only; its table has the full one.
    return date_format(month, "M" if short else "F Y")


def _by_month(months, per_month):
    return [per_month.get(m) for m in months]


def _draw(chart, months=None, categories=None):
    # Narrow, so that its text stays readable on a 360 px screen.
    chart.svg = bar_chart(
        title=chart.title,
        description=chart.description,
        categories=categories or [_month_label(m, short=True) for m in months],
        series=chart.series,
        width=480,
        height=260,
    )
    return chart


def _period(today, months):
    return day_start(months[0]), day_start(today + timedelta(days=1))


def _month_of(field_name):
    return TruncMonth(field_name, output_field=DateField(), tzinfo=timezone.get_default_timezone())


def impoundments_chart(pounds, today, months):
    """Register entries made each month, per pound. One query."""
    start, end = _period(today, months)
    counts = defaultdict(int)
    for r in (
        Impoundment.objects.filter(pound__in=pounds, arrived_at__gte=start, arrived_at__lt=end)
        .annotate(month=_month_of("arrived_at"))
        .values("month", "pound_id")
        .annotate(n=Count("pk"))
        .order_by()
    ):
        counts[(r["month"], r["pound_id"])] = r["n"]
    series = [Series(p.label, [counts[(m, p.pk)] for m in months]) for p in pounds]
    chart = Chart(
        key="impoundments",
        title=_("Impoundments per month, by pound"),
        description=_(
            "Register entries made in each of the last twelve months at each pound. The table "
            "that follows gives the same figures."
        ),
        row_heading=_("Month"),
        columns=[p.label for p in pounds],
        rows=[(_month_label(m), [counts[(m, p.pk)] for p in pounds]) for m in months],
        series=series,
    )
    return _draw(chart, months)


# Where the money of the district stands: the ledger accounts each destination is made of, and
# whether the account holds a credit (negative) balance.
DESTINATIONS = [
    (
        "fines",
        gettext_lazy("Fines to the District Magistrate (s.17)"),
        gettext_lazy("Fines"),
        [AccountKind.FINES_DUE_DM, AccountKind.FINES_RECEIVED],
    ),
    (
        "feeding",
        gettext_lazy("Feeding money kept by the pound-keepers (s.17)"),
        gettext_lazy("Feeding"),
        [AccountKind.FEEDING_PK],
    ),
    (
        "deposits",
        gettext_lazy("Deposits held under s.15"),
        gettext_lazy("Deposits"),
        [AccountKind.DEPOSITS_HELD],
    ),
    (
        "surplus",
        gettext_lazy("Surplus sale proceeds held (s.17)"),
        gettext_lazy("Surplus"),
        [AccountKind.DM_SURPLUS_HELD],
    ),
    (
        "revenue",
        gettext_lazy("Credited to revenue or the local fund (ss.17, 31)"),
        gettext_lazy("Revenue"),
        [AccountKind.STATE_REVENUE, AccountKind.LOCAL_FUND],
    ),
]


def money_by_destination(district):
    """The district's money by where it has gone, from the ledger's account balances (all
    credit balances, shown as positive amounts). One query."""
    from ledger.models import Account

    balances = defaultdict(lambda: ZERO)
    for r in (
        Account.objects.filter(district=district)
        .values("kind")
        .annotate(total=Sum("postings__amount", default=ZERO))
        .order_by()
    ):
        balances[r["kind"]] += r["total"]
    return {key: -sum((balances[k] for k in kinds), ZERO) for key, _l, _s, kinds in DESTINATIONS}


def money_chart(district):
    amounts = money_by_destination(district)
    series = [Series(_("Amount (₹)"), [amounts[key] for key, *_rest in DESTINATIONS])]
    chart = Chart(
        key="money",
        title=_("Money by destination (₹)"),
        description=_(
            "Where the district's money stands, from the balances of its ledger accounts. The "
            "table that follows gives the same figures."
        ),
        row_heading=_("Destination"),
        columns=[_("Amount (₹)")],
        rows=[(str(label), [amounts[key]]) for key, label, _s, _k in DESTINATIONS],
        series=series,
        money=True,
    )
    return _draw(chart, categories=[str(short) for _k, _l, short, _a in DESTINATIONS])


def _ended_in(pounds, today, months):
    start, end = _period(today, months)
    return Animal.objects.filter(
        impoundment__pound__in=pounds, custody_ended_at__gte=start, custody_ended_at__lt=end
    ).annotate(month=_month_of("custody_ended_at"))


def custody_chart(pounds, today, months):
    """The average time in the pound of the animals whose custody ended each month, from
    arrival (or birth in the pound) to the end of custody, in days. One query."""
    stay = ExpressionWrapper(
        F("custody_ended_at") - Coalesce("born_at", "impoundment__arrived_at"),
        output_field=DurationField(),
    )
    per_month = {
        r["month"]: r
        for r in _ended_in(pounds, today, months)
        .values("month")
        .annotate(n=Count("pk"), average=Avg(stay))
        .order_by()
    }
    averages, counts = {}, {}
    for month, r in per_month.items():
        counts[month] = r["n"]
        if r["average"] is not None:
            days = Decimal(r["average"].total_seconds()) / Decimal(86400)
            averages[month] = days.quantize(Decimal("0.1"))
    series = [Series(_("Average days in custody"), [averages.get(m, 0) for m in months])]
    chart = Chart(
        key="custody",
        title=_("Average days in custody, by month custody ended"),
        description=_(
            "For the animals whose custody ended in each of the last twelve months, the average "
            "time from arrival to release, sale, disposal or death, in days. The table that "
            "follows gives the same figures."
        ),
        row_heading=_("Month"),
        columns=[_("Animals"), _("Average days")],
        rows=[(_month_label(m), [counts.get(m, 0), averages.get(m)]) for m in months],
        series=series,
        decimals=True,
    )
    return _draw(chart, months)


OUTCOMES = [
    (AnimalState.RELEASED_PAID, gettext_lazy("Claimed (s.13)")),
    (AnimalState.RELEASED_ON_DEPOSIT, gettext_lazy("On deposit (s.15)")),
    (AnimalState.SOLD, gettext_lazy("Sold")),
    (AnimalState.DISPOSED, gettext_lazy("Disposed of")),
    (AnimalState.DIED, gettext_lazy("Died")),
    (AnimalState.RELEASED_BY_ORDER, gettext_lazy("Court order")),
    (AnimalState.RETURNED_S16, gettext_lazy("Returned (s.16)")),
]


def outcomes_chart(pounds, today, months):
    """How the animals whose custody ended each month left the pound. One query."""
    counts = defaultdict(int)
    for r in (
        _ended_in(pounds, today, months).values("month", "state").annotate(n=Count("pk")).order_by()
    ):
        counts[(r["month"], r["state"])] = r["n"]
    series = [Series(str(label), [counts[(m, state)] for m in months]) for state, label in OUTCOMES]
    chart = Chart(
        key="outcomes",
        title=_("Outcomes per month"),
        description=_(
            "How the animals whose custody ended in each of the last twelve months left the "
            "pound: claimed, released on deposit, sold, disposed of, died, released by a court's "
            "order, or returned after a s.16 sale. The table that follows gives the same figures."
        ),
        row_heading=_("Month"),
        columns=[str(label) for _s, label in OUTCOMES],
        rows=[(_month_label(m), [counts[(m, state)] for state, _l in OUTCOMES]) for m in months],
        series=series,
    )
    return _draw(chart, months)


# --- The page ----------------------------------------------------------------------------------


@dataclass
class Dashboard:
    district: object
    pounds: list
    today: date
    deposits: list
    surplus: list
    fines: list
    approvals: Approvals
    overdue: list
    charts: list

    @property
    def fines_total(self):
        return PoundFines(
            None,
            sum((r.credited for r in self.fines), ZERO),
            sum((r.sent for r in self.fines), ZERO),
            sum((r.confirmed for r in self.fines), ZERO),
        )

    @property
    def overdue_any(self):
        return any(row.any for row in self.overdue)


def dashboard(user, district, pounds, today=None):
    """The office's home page for one district: a fixed number of queries (about twenty)."""
    today = today or timezone.localdate()
    pound_ids = [p.pk for p in pounds]
    deposits = held_deposits(pound_ids, today)
    months = last_months(today)
    return Dashboard(
        district=district,
        pounds=pounds,
        today=today,
        deposits=deposits,
        surplus=surplus_deposits([district.pk], today),
        fines=fines_by_pound(pounds),
        approvals=approvals(user, pound_ids, [district.pk], today, deposits=deposits),
        overdue=overdue_by_pound(pounds, today),
        charts=[
            impoundments_chart(pounds, today, months),
            money_chart(district),
            custody_chart(pounds, today, months),
            outcomes_chart(pounds, today, months),
        ],
    )
