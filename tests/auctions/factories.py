from datetime import date, timedelta
from decimal import Decimal

from django.utils import timezone

from accounts.roles import Role
from auctions import services
from impounding.models import Impoundment
from tests.accounts.factories import staff
from tests.impounding.factories import cow, make_entry


def conditions(district, by=None, **kw):
    by = by or staff(Role.DM_CLERK, f"cond-{district.code}", district=district)
    fields = (
        dict(
            order_reference="DM/Auction/1/2024",
            order_date=date(2024, 3, 1),
            valid_from=date(2024, 4, 1),
            place="Cattle market, Mohanlalganj",
            hours="10:00 to 16:00",
            reserve_policy="Reserve at the DM's discretion",
            earnest_money=Decimal("500.00"),
            buyer_declarations="I am not an officer of police or a pound-keeper.",
            chargeable_expenses="Drum, announcement and lot tickets",
            max_expenses_per_lot=Decimal("200.00"),
            s16_min_gap_days=1,
        )
        | kw
    )
    return services.set_auction_conditions(district=district, by=by, **fields)


def unclaimed_entry(*, pound, keeper, days_ago=20, animals=None):
    """An entry old enough for its report, and (when days_ago >= 16) a sale after notice."""
    arrived = timezone.now() - timedelta(days=days_ago)
    return make_entry(pound=pound, by=keeper, animals=animals or [cow()], arrived_at=arrived)


def report_and_notice(entry, keeper, officer, *, sent_days_ago, posted_days_ago):
    report = services.send_report(
        entry=entry, by=keeper, at=timezone.now() - timedelta(days=sent_days_ago)
    )
    notice = services.post_notice(
        report=report,
        by=officer,
        posted_on=timezone.localdate() - timedelta(days=posted_days_ago),
        posted_at="Notice board, PS office",
    )
    return report, notice


__all__ = ["Impoundment"]
