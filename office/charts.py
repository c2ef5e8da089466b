"""The charts of the office's home page, each with the table that says the same in words. Each
chart aggregates in the database, by month in Asia/Kolkata (docs/domain.md decision 1): one query
a chart.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db.models import Count, DateField, DurationField, ExpressionWrapper, F, Sum
from django.db.models.functions import Coalesce, TruncMonth
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from impounding.models import Animal, AnimalState, Impoundment
from kernel.charts import Series, bar_chart
from kernel.dates import add_months
from ledger.models import AccountKind, AccountMonth, net_of_months

from .models import ChartMonth
from .returns import day_start

ZERO = Decimal("0.00")
MONTHS = 12


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


def month_label(month, short=False):
    # The chart's axis has room for the month's short name only; its table has the full one.
    return date_format(month, "M" if short else "F Y")


def _draw(chart, months=None, categories=None):
    # Narrow, so that its text stays readable on a 360 px screen.
    chart.svg = bar_chart(
        title=chart.title,
        description=chart.description,
        categories=categories or [month_label(m, short=True) for m in months],
        series=chart.series,
        width=480,
        height=260,
    )
    return chart


def _month_of(field_name):
    return TruncMonth(field_name, output_field=DateField(), tzinfo=timezone.get_default_timezone())


def impoundments_chart(pounds, today, months, figures=None):
    """Register entries made each month, per pound, from month_figures."""
    figures = figures or month_figures(pounds, today, months)
    counts = defaultdict(int, figures.impounded)
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
        rows=[(month_label(m), [counts[(m, p.pk)] for p in pounds]) for m in months],
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
    credit balances, shown as positive amounts), read off its month totals. One query."""
    balances = defaultdict(lambda: ZERO)
    for r in (
        AccountMonth.objects.filter(account__district=district)
        .values("account__kind")
        .annotate(total=net_of_months())
        .order_by()
    ):
        balances[r["account__kind"]] += r["total"]
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


@dataclass
class MonthFigures:
    """The charts' figures over the months: {(month, pound id): entries} and
    {(month, state): (animals, time in custody)} of the animals whose custody ended."""

    impounded: dict
    ended: dict


def _stay():
    return ExpressionWrapper(
        F("custody_ended_at") - Coalesce("born_at", "impoundment__arrived_at"),
        output_field=DurationField(),
    )


def _live(pound_ids, start, end):
    """The figures of [start, end) from the register, per month and pound: two queries."""
    impounded = {
        (r["month"], r["pound_id"]): r["n"]
        for r in Impoundment.objects.filter(
            pound_id__in=pound_ids, arrived_at__gte=start, arrived_at__lt=end
        )
        .annotate(month=_month_of("arrived_at"))
        .values("month", "pound_id")
        .annotate(n=Count("pk"))
        .order_by()
    }
    ended = defaultdict(dict)
    for r in (
        Animal.objects.filter(
            pound_id__in=pound_ids,
            custody_ended_at__gte=start,
            custody_ended_at__lt=end,
        )
        .annotate(month=_month_of("custody_ended_at"))
        .values("month", "pound_id", "state")
        .annotate(n=Count("pk"), stay=Sum(_stay()))
        .order_by()
    ):
        stay = r["stay"] or timedelta()
        ended[(r["month"], r["pound_id"])][r["state"]] = [
            r["n"],
            int(stay.total_seconds()),
        ]
    return impounded, ended


def _closed(pound_ids, closed):
    """ChartMonth rows of the closed months, writing those not yet kept from the register: a
    query to read, and on the first look at a month, two to count and one to write."""
    kept = {(c.month, c.pound_id): c for c in ChartMonth.objects.filter(
        pound_id__in=pound_ids, month__in=closed
    )}  # fmt: skip
    missing = [(m, p) for m in closed for p in pound_ids if (m, p) not in kept]
    if missing:
        months = sorted({m for m, _p in missing})
        impounded, ended = _live(
            sorted({p for _m, p in missing}),
            day_start(months[0]),
            day_start(add_months(months[-1], 1)),
        )
        fresh = [
            ChartMonth(
                pound_id=p, month=m, impounded=impounded.get((m, p), 0), ended=ended.get((m, p), {})
            )
            for m, p in missing
        ]
        ChartMonth.objects.bulk_create(fresh, ignore_conflicts=True)
        kept.update({(c.month, c.pound_id): c for c in fresh})
    return kept


def month_figures(pounds, today, months):
    """The charts' figures over `months`: the closed months from ChartMonth (kept the first
    time each is charted), the current month live from the register, bounded by one month."""
    pound_ids = [p.pk for p in pounds]
    this_month = today.replace(day=1)
    closed = [m for m in months if m < this_month]
    rows = dict(_closed(pound_ids, closed)) if closed else {}
    impounded, ended = _live(pound_ids, day_start(this_month), day_start(today + timedelta(days=1)))
    figures = MonthFigures({}, defaultdict(lambda: (0, timedelta())))
    for (month, pound_id), row in rows.items():
        figures.impounded[(month, pound_id)] = row.impounded
        _add_ended(figures.ended, month, row.ended)
    figures.impounded.update(impounded)
    for (month, _pound_id), by_state in ended.items():
        _add_ended(figures.ended, month, by_state)
    return figures


def _add_ended(total, month, by_state):
    for state, (n, seconds) in by_state.items():
        had_n, had_stay = total[(month, state)]
        total[(month, state)] = (had_n + n, had_stay + timedelta(seconds=seconds))


def custody_chart(pounds, today, months, figures=None):
    """The average time in the pound of the animals whose custody ended each month, from
    arrival (or birth in the pound) to the end of custody, in days, from month_figures."""
    ended = (figures or month_figures(pounds, today, months)).ended
    counts, stays = defaultdict(int), defaultdict(timedelta)
    for (month, _state), (n, stay) in ended.items():
        counts[month] += n
        stays[month] += stay or timedelta()
    averages = {}
    for month, n in counts.items():
        if n:
            days = Decimal(stays[month].total_seconds()) / Decimal(86400) / n
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
        rows=[(month_label(m), [counts.get(m, 0), averages.get(m)]) for m in months],
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


def outcomes_chart(pounds, today, months, figures=None):
    """How the animals whose custody ended each month left the pound, from month_figures."""
    ended = (figures or month_figures(pounds, today, months)).ended
    counts = defaultdict(int, {key: n for key, (n, _stay) in ended.items()})
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
        rows=[(month_label(m), [counts[(m, state)] for state, _l in OUTCOMES]) for m in months],
        series=series,
    )
    return _draw(chart, months)
