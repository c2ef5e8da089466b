"""Read models for the District Magistrate's office: the home page's figures (deposits, surplus,
fines), the list of approvals waiting for the office, and the page that gathers them with the
overdue board (office.overdue) and the charts (office.charts).

Each function runs a fixed number of queries, whatever the number of entries, deposits or sales:
lists are fetched with their relations in one go.
"""

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.db.models import Count, F, Prefetch, Q, Sum, prefetch_related_objects
from django.utils.translation import gettext_lazy

from accounts.roles import Permission
from accounts.scoping import visible_district_ids, visible_pound_ids
from auctions.models import DisposalOrder, Shortfall
from impounding.models import CourtOrder, Deposit, complaint_states
from impounding.services import deposit_awaiting_application
from kernel import clock
from kernel.views import keyset_page
from payments import reconcile

from . import charts
from .models import Remittance, SurplusClaim, SurplusDeposit
from .overdue import overdue_by_pound
from .statements import fines_credited

ZERO = Decimal("0.00")
LIST_ROWS = 10  # rows of each list on the home page and the approvals page: the most urgent
QUEUE_PAGE = 25  # rows of one approval queue shown alone, paged by keyset


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
    return complaint_status_of({c.outcome for c in complaints})


def complaint_status_of(outcomes):
    """The status of a deposit's deciding complaints, from their outcomes."""
    return complaint_states.state_of(outcomes)


DEPOSIT_ORDER = ("complaint_deadline", "pk")
# The approval queues paged keys first (kernel.views.keyset_page, ADR 0093): at 1M the "held"
# queue's ~900 candidates were each joined to their release, entry, receipt and pound, then
# sorted, to keep ten. "To apply" walks an index in its order and stops; the shortfalls were
# slower keys first (their nullable relations joined before the keys were kept).
KEYS_FIRST = ("deposits_in_window",)


def deposit_queues(pound_ids, today):
    """Deposits held under s.15 in these pounds, and the two approval queues among them as
    conditions: the rule of deposit_awaiting_application and complaints_of, read from the state
    of its deciding complaints that each deposit carries (`complaint_state`, ADR 0092). No
    query: a page and its counts read the held deposits they show and count, never every
    complaint about them."""
    held = Deposit.objects.filter(pound_id__in=pound_ids, status=Deposit.Status.HELD)
    # awaiting_application: every deciding complaint dismissed, or none made and the window
    # to complain over.
    to_apply = Q(complaint_state=complaint_states.DISMISSED) | Q(
        complaint_state=complaint_states.NONE, complaint_deadline__lt=today
    )
    in_window = (
        ~to_apply
        & ~Q(complaint_state=complaint_states.UPHELD)
        & Q(application_confirmed_by__isnull=True)
    )
    return held, {"deposits_to_apply": to_apply, "deposits_in_window": in_window}


def to_apply_at_their_days(days):
    """deposit_queues' "to apply" rule for pounds whose days differ ({day: [pound ids]}, as
    accounts.training.pounds_by_day gives; a training district's clock may run ahead, ADR
    0080): one condition on held deposits, each pound judged at its own day."""
    if len(days) == 1:  # one day for all, the usual case: no condition on the pound
        ((day, pks),) = days.items()
        return deposit_queues(pks, day)[1]["deposits_to_apply"]
    awaiting = Q(pk__in=[])
    for day, pks in days.items():
        awaiting |= Q(pound_id__in=pks) & deposit_queues(pks, day)[1]["deposits_to_apply"]
    return awaiting


def deposit_figures(held, queues):
    """How many deposits are held and their total, and how many wait in each queue: one query."""
    figures = held.aggregate(
        count=Count("pk"),
        total=Sum("amount"),
        **{key: Count("pk", filter=where) for key, where in queues.items()},
    )
    figures["total"] = figures["total"] or ZERO
    return figures


def decorate_deposits(deposits, today):
    """Each deposit of a page gets `entry`, `complaint_status` (none, pending, dismissed, upheld)
    with its label, `days_left` to complain, and `awaiting`: whether it may be applied now."""
    prefetch_related_objects(deposits, "complaints", "release__impoundment__complaints")
    for d in deposits:
        d.entry = d.release.impoundment
        d.complaint_list = complaints_of(d)
        d.complaint_status = complaint_status(d.complaint_list)
        d.complaint_status_label = COMPLAINT_STATUS[d.complaint_status]
        d.days_left = (d.complaint_deadline - today).days
        d.awaiting = deposit_awaiting_application(d, today)
        d.applies_on = d.complaint_deadline + timedelta(days=1)
    return deposits


def deposit_page(qs, *, after=None, size=LIST_ROWS):
    """A page of one of deposit_queues' querysets, soonest last day to complain first."""
    return keyset_page(
        qs.select_related(
            "release__impoundment__pound__district", "release__receipt", "application_confirmed_by"
        ),
        DEPOSIT_ORDER,
        after=after,
        size=size,
    )


# --- s.17 surplus and fines --------------------------------------------------------------------


def surplus_deposits(district_ids, today, size=LIST_ROWS):
    """Surplus sale proceeds not yet paid out or transferred: at a pound awaiting the office, or
    held in deposit, soonest expiry first: the first `size` of them, with how many there are and
    their total. Three queries."""
    qs = SurplusDeposit.objects.filter(
        district_id__in=district_ids,
        status__in=[SurplusDeposit.Status.AWAITING_RECEIPT, SurplusDeposit.Status.HELD],
    )
    figures = qs.aggregate(count=Count("pk"), total=Sum("amount"))
    rows = list(
        qs.select_related("pound", "sale__lot__auction")
        .prefetch_related(
            Prefetch(
                "claims",
                queryset=SurplusClaim.objects.filter(status=SurplusClaim.Status.PENDING),
                to_attr="pending_claims",
            )
        )
        .order_by(F("expires_on").asc(nulls_first=True), "sale_date", "pk")[:size]
    )
    for s in rows:
        s.days_left = (s.expires_on - today).days if s.expires_on else None
    return rows, figures["count"], figures["total"] or ZERO


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


QUEUES = (
    "deposits_to_apply",
    "deposits_in_window",
    "disposals",
    "shortfalls",
    "court_orders",
    "claims",
)


@dataclass
class Approvals:
    """Everything waiting for the office, by kind: the most urgent rows of each queue, with
    `counts` of them all and the cursor of each queue's next page. Each row has `may_act`:
    whether this user may take the action (the clerk prepares; the Magistrate approves)."""

    deposits_to_apply: list = field(default_factory=list)
    deposits_in_window: list = field(default_factory=list)
    disposals: list = field(default_factory=list)
    shortfalls: list = field(default_factory=list)
    court_orders: list = field(default_factory=list)
    claims: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    cursors: dict = field(default_factory=dict)

    @property
    def total(self):
        return sum(self.counts.values())

    @property
    def to_decide(self):
        """What waits for a decision now: every queue but the deposits that may be confirmed
        in advance (they are not late)."""
        return self.total - self.counts.get("deposits_in_window", 0)


def _queues(pound_ids, district_ids, deposits):
    """Each approval queue: its rows (with their relations) and the order it pages in;
    `deposits` is what deposit_queues gave."""
    held, deposit_where = deposits
    held = held.select_related(
        "release__impoundment__pound__district",
        "release__receipt",
        "application_confirmed_by",
    )
    return {
        "deposits_to_apply": (held.filter(deposit_where["deposits_to_apply"]), DEPOSIT_ORDER),
        "deposits_in_window": (held.filter(deposit_where["deposits_in_window"]), DEPOSIT_ORDER),
        "disposals": (
            DisposalOrder.objects.filter(
                pound_id__in=pound_ids, status=DisposalOrder.Status.PROPOSED
            ).select_related("pound", "prepared_by"),
            ("prepared_at", "pk"),
        ),
        "shortfalls": (
            Shortfall.objects.filter(
                pound_id__in=pound_ids, status=Shortfall.Status.PENDING
            ).select_related("pound", "sale__lot__auction", "s16_case__impoundment", "disposal"),
            ("recorded_at", "pk"),
        ),
        "court_orders": (
            CourtOrder.objects.to_check()
            .filter(impoundment__pound_id__in=pound_ids)
            .select_related("impoundment__pound", "recorded_by"),
            ("recorded_at", "pk"),
        ),
        "claims": (
            SurplusClaim.objects.filter(
                deposit__district_id__in=district_ids, status=SurplusClaim.Status.PENDING
            ).select_related("deposit__pound", "deposit__district", "prepared_by"),
            ("filed_on", "pk"),
        ),
    }


def approvals(
    user,
    pound_ids,
    district_ids,
    today,
    *,
    only=None,
    after=None,
    size=LIST_ROWS,
    figures=None,
    deposits=None,
    decorate=True,
):
    """The approvals waiting in these pounds and districts: a count and the first `size` rows
    of each queue, or with `only` that queue alone, a page of QUEUE_PAGE rows from the cursor
    `after`. Two queries a queue (the deposit queues count in one, or none if the caller has
    their `figures`), two to sort the held deposits unless the caller gives `deposits` (what
    deposit_queues gave), and two for the deposits' complaints unless the caller decorates
    them."""
    approve_in = set(visible_pound_ids(user, Permission.APPROVE))
    prepare_in = set(visible_pound_ids(user, Permission.PREPARE_ORDERS))
    approve_districts = set(visible_district_ids(user, Permission.APPROVE))
    deposits = deposits or deposit_queues(pound_ids, today)
    if figures is None:
        figures = deposit_figures(*deposits)
    result = Approvals()
    for key, (qs, order) in _queues(pound_ids, district_ids, deposits).items():
        result.counts[key] = figures[key] if key in figures else qs.count()
        if only and key != only:
            continue
        if key == "disposals":
            qs = qs.annotate(animal_count=Count("animals"))
        rows, cursor = keyset_page(
            qs,
            order,
            after=after if only else None,
            size=QUEUE_PAGE if only else size,
            keys_first=key in KEYS_FIRST,
        )
        setattr(result, key, rows)
        result.cursors[key] = cursor
    if decorate:
        decorate_deposits(result.deposits_to_apply + result.deposits_in_window, today)
    for d in result.deposits_to_apply + result.deposits_in_window:
        d.may_act = d.release.impoundment.pound_id in approve_in
    for row in result.disposals + result.shortfalls:
        row.may_act = row.pound_id in approve_in
    for order in result.court_orders:
        # Whoever recorded the order may not check it (docs/decisions/0056).
        order.may_act = order.impoundment.pound_id in prepare_in and order.recorded_by_id != user.pk
    for claim in result.claims:
        claim.may_act = claim.deposit.district_id in approve_districts
    return result


# --- The page ----------------------------------------------------------------------------------


@dataclass
class Dashboard:
    district: object
    pounds: list
    today: date
    deposits: list
    deposits_count: int
    deposits_total: Decimal
    surplus: list
    surplus_count: int
    surplus_total: Decimal
    fines: list
    approvals: Approvals
    overdue: list
    charts: list
    # Statement lines unmatched and gateway payments on no statement, after some days (ADR 0082).
    unreconciled: dict

    @property
    def overdue_count(self):
        """Every overdue step in the district's pounds: reports, notices, sales, feeding days."""
        return sum(r.reports + r.notices + r.auctions + len(r.feeding_days) for r in self.overdue)

    @property
    def fines_total(self):
        return PoundFines(
            None,
            sum((r.credited for r in self.fines), ZERO),
            sum((r.sent for r in self.fines), ZERO),
            sum((r.confirmed for r in self.fines), ZERO),
        )


def dashboard(user, district, pounds, today=None):
    """The office's home page for one district: a fixed number of queries, and the first
    LIST_ROWS rows of each list, whatever the number of deposits or sales."""
    today = today or clock.today(district)
    pound_ids = [p.pk for p in pounds]
    held, queues = deposit_queues(pound_ids, today)
    figures = deposit_figures(held, queues)
    deposits, _cursor = deposit_page(held)
    waiting = approvals(
        user,
        pound_ids,
        [district.pk],
        today,
        figures=figures,
        deposits=(held, queues),
        decorate=False,
    )
    # One look-up of complaints for the home page's deposits and those of the two queues.
    decorate_deposits(deposits + waiting.deposits_to_apply + waiting.deposits_in_window, today)
    surplus, surplus_count, surplus_total = surplus_deposits([district.pk], today)
    months = charts.last_months(today)
    by_month = charts.month_figures(pounds, today, months)
    return Dashboard(
        district=district,
        pounds=pounds,
        today=today,
        deposits=deposits,
        deposits_count=figures["count"],
        deposits_total=figures["total"],
        surplus=surplus,
        surplus_count=surplus_count,
        surplus_total=surplus_total,
        fines=fines_by_pound(pounds),
        approvals=waiting,
        overdue=overdue_by_pound(pounds, today),
        charts=[
            charts.impoundments_chart(pounds, today, months, by_month),
            charts.money_chart(district),
            charts.custody_chart(pounds, today, months, by_month),
            charts.outcomes_chart(pounds, today, months, by_month),
        ],
        unreconciled=reconcile.unreconciled([district.pk]),
    )
