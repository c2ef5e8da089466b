from datetime import date, timedelta
from decimal import Decimal

from django.utils import timezone

from accounts.roles import Role
from auctions import services
from auctions.models import Auction, S16Case
from impounding.models import Impoundment
from ledger.models import Account
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


def report_and_notice(
    entry, keeper, officer, *, sent_days_ago, posted_days_ago, drums=True, **notice_fields
):
    """The report sent and the notice posted; with `drums`, proclaimed by beat of drum in the
    village and at the market-place on the day it was posted, as s.14 requires before a sale.
    An entry whose register gives no place fit to publish has it stated on the notice."""
    report = services.send_report(
        entry=entry, by=keeper, at=timezone.now() - timedelta(days=sent_days_ago)
    )
    entry.refresh_from_db(fields=["notice_description", "seizure_village"])
    if not (entry.notice_description or entry.seizure_village_id):
        notice_fields.setdefault("seizure_place", "Canal road near the bridge")
    notice = services.post_notice(
        report=report,
        by=officer,
        posted_on=timezone.localdate() - timedelta(days=posted_days_ago),
        posted_at="Notice board, PS office",
        **notice_fields,
    )
    if drums:
        proclaim(notice, officer)
    return report, notice


DRUM_PLACES = {"drum_village": "Chaupal of the village", "drum_market": "Mohanlalganj haat"}


def proclaim(
    notice, by, *, channels=tuple(DRUM_PLACES), made_on=None, made_by="Ramesh, village chowkidar"
):
    """The notice proclaimed by beat of drum (s.14): in the village and at the market-place by
    default, on the day it was posted (or `made_on`)."""
    return [
        services.record_proclamation(
            notice=notice,
            by=by,
            channel=channel,
            made_on=made_on or notice.posted_on,
            made_by=made_by,
            place=DRUM_PLACES[channel],
        )
        for channel in channels
    ]


__all__ = ["Impoundment"]


# --- Helpers for the service tests of the sale workflow ---------------------------------------


def ready_for_sale(
    *, pound, keeper, officer, animals=None, days_ago=20, posted_days_ago=9, drums=True
):
    """An entry reported and under a notice whose eighth day has come, proclaimed by beat of
    drum (unless not `drums`): it may be sold today."""
    entry = unclaimed_entry(pound=pound, keeper=keeper, days_ago=days_ago, animals=animals)
    report, notice = report_and_notice(
        entry,
        keeper,
        officer,
        sent_days_ago=days_ago - 9,
        posted_days_ago=posted_days_ago,
        drums=drums,
    )
    return entry, notice


def schedule(pound, by, lots, *, kind="s14", when=None, officer=None, **kw):
    """An auction later today (or `when`) conducted by `by` (or `officer`); `lots` is a list of
    lists of animals or ids, in the order of sale."""
    return services.schedule_auction(
        pound=pound,
        kind=Auction.Kind(kind),
        by=by,
        scheduled_for=when or timezone.now(),
        lots=[[getattr(a, "pk", a) for a in group] for group in lots],
        officer=officer or by,
        **kw,
    )


def register(auction, by, **kw):
    """A bidder who is nobody on the staff records, unless the fields say otherwise. The next
    bidder of the same auction has a phone and a document of his own (one person registers
    once, s.19)."""
    n = auction.bidders.count()
    fields = (
        dict(
            name="Mohd. Salim Qureshi",
            address="Bakshi ka Talab",
            id_kind="voter",
            id_number=f"UPV{1234567 + n}",
            phone=str(9123456780 + n),
            declaration_signed=True,
        )
        | kw
    )
    return services.register_bidder(auction=auction, by=by, **fields)


def refused(entry, keeper, animals=None, *, days_ago=2, **kw):
    """A s.16 case recorded `days_ago` days ago, so that a sale may be held today."""
    animals = animals or list(entry.animals.filter(dam__isnull=True))
    fields = dict(owner_name="Shyam Lal", owner_address="Samesi") | kw
    case = services.open_s16_case(
        entry=entry, animal_ids=[a.pk for a in animals], by=keeper, **fields
    )
    S16Case.objects.filter(pk=case.pk).update(recorded_at=timezone.now() - timedelta(days=days_ago))
    case.refresh_from_db()
    return case


def balances(district, pound):
    """{account kind: balance} of the district's and the pound's ledger accounts that are not
    at zero."""
    rows = Account.objects.filter(district=district).with_balances()
    return {a.kind: a.balance for a in rows if a.pound_id in (None, pound.pk) and a.balance}
