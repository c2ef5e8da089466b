"""Read models for the District Magistrate's office: the home page's figures (deposits, surplus,
fines), the list of approvals waiting for the office, and the page that gathers them with the
overdue board (office.overdue) and the charts (office.charts).

Each function runs a fixed number of queries, whatever the number of entries, deposits or sales:
lists are fetched with their relations in one go.
"""

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.db.models import Count, F, Prefetch, Sum
from django.utils import timezone
from django.utils.translation import gettext_lazy

from accounts.roles import Permission
from accounts.scoping import visible_district_ids, visible_pound_ids
from auctions.models import DisposalOrder, Shortfall
from impounding.models import Complaint, CourtOrder, Deposit
from impounding.services import deposit_awaiting_application

from . import charts
from .models import Remittance, SurplusClaim, SurplusDeposit
from .overdue import overdue_by_pound
from .statements import fines_credited

ZERO = Decimal("0.00")

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


def dashboard(user, district, pounds, today=None):
    """The office's home page for one district: a fixed number of queries (about twenty)."""
    today = today or timezone.localdate()
    pound_ids = [p.pk for p in pounds]
    deposits = held_deposits(pound_ids, today)
    months = charts.last_months(today)
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
            charts.impoundments_chart(pounds, today, months),
            charts.money_chart(district),
            charts.custody_chart(pounds, today, months),
            charts.outcomes_chart(pounds, today, months),
        ],
    )
