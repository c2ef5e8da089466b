"""The per-pound board of overdue work on the office's home page: reports of unclaimed cattle
not sent (s.14), notices not posted, notices run out with the cattle unsold, and days of the last
week with no feeding record (ss.9, 27). A fixed number of queries, whatever the number of pounds.
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.db.models import Count, F, OuterRef, Subquery

from auctions.clocks import reports_due_counts, run_out_unsold
from auctions.models import Report
from impounding.models import Animal
from impounding.selectors import missing_feeding_by_pound

FEEDING_DAYS = 7


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
    """{pound id: [dates]}: impounding.selectors.missing_feeding_days for several pounds at once
    (impounding.selectors.missing_feeding_by_pound)."""
    return missing_feeding_by_pound(pound_ids, first, last)


def overdue_by_pound(pounds, today):
    """Per pound: reports of unclaimed cattle not sent (s.14), reports whose notice is not
    posted, notices run out with the cattle neither sold nor in a lot, and the days of the last
    week with cattle in the pound and no feeding record (ss.9, 27). Six queries."""
    rows = {p.pk: PoundOverdue(p) for p in pounds}
    ids = list(rows)
    for pound_id, count in reports_due_counts(ids, today).items():
        rows[pound_id].reports = count
    # A report whose cattle have all left the pound needs no notice any more.
    # Read from the animals in the pound (an index range a pound), each looking up the report
    # naming it that has no notice yet, rather than from every report the pounds have sent.
    unnoticed = Report.animals.through.objects.filter(
        animal_id=OuterRef("pk"), report__notice__isnull=True
    ).values("report_id")[:1]
    notices = (
        Animal.objects.in_custody()
        .filter(pound_id__in=ids)
        .annotate(report=Subquery(unnoticed))
        .filter(report__isnull=False)
        .values("pound_id")
        .annotate(n=Count("report", distinct=True))
        .order_by()
    )
    for r in notices:
        rows[r["pound_id"]].notices = r["n"]
    # Notices run out, read from the cattle still in the pound (auctions.clocks).
    auctions = (
        run_out_unsold(today)
        .filter(animal__pound_id__in=ids, report__notice__pound_id__in=ids)
        .values(pound_id=F("report__notice__pound_id"))
        .annotate(n=Count("report__notice", distinct=True))
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
