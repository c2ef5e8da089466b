"""The dashboard's charts keep each closed month (ChartMonth) the first time it is charted, and
read the current month live: the figures are those of the register, and a year of history costs
twelve small rows a pound, not a scan of the year."""

from datetime import datetime, time, timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from kernel.dates import add_months
from office import charts
from office.models import ChartMonth
from tests.impounding.factories import cow, goat, make_entry, pay


def _figures(pound):
    today = timezone.localdate()
    return charts.month_figures([pound], today, charts.last_months(today))


def test_closed_months_are_kept_once_and_agree_with_the_register(pound, pound_keeper, tariffs):
    today = timezone.localdate()
    this_month = today.replace(day=1)
    last_month = add_months(this_month, -1)
    then = timezone.make_aware(datetime.combine(last_month + timedelta(days=9), time(10)))
    old = make_entry(pound=pound, by=pound_keeper, arrived_at=then, animals=[cow(), goat()])
    pay(old, pound_keeper, at=then + timedelta(days=2))
    make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(hours=2))

    first = _figures(pound)
    assert first.impounded[(last_month, pound.pk)] == 1
    assert first.impounded[(this_month, pound.pk)] == 1
    n, stay = first.ended[(last_month, "released_paid")]
    assert n == 2 and stay == timedelta(days=4)  # two animals of two days each
    kept = ChartMonth.objects.get(pound=pound, month=last_month)
    assert kept.impounded == 1 and kept.ended == {"released_paid": [2, 2 * 2 * 86400]}
    assert ChartMonth.objects.filter(pound=pound).count() == 11  # the closed months only

    # Later looks read the kept months: three queries (kept rows, the month's two figures).
    with CaptureQueriesContext(connection) as later:
        again = _figures(pound)
    assert len(later) == 3
    assert again.impounded == first.impounded and dict(again.ended) == dict(first.ended)

    # The current month stays live.
    make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(hours=1))
    assert _figures(pound).impounded[(this_month, pound.pk)] == 2
