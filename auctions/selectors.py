"""Read models for the s.14 screens and the API: who reads the s.14 records, the officer's lists
of reports and notices and the states of a report, the home-page panels, the public notice board,
and the auctions with their lots. Every function runs a fixed number of queries, whatever the
number of rows (the board: a fixed number per pound shown, for the indicative dues)."""

from dataclasses import dataclass, field
from datetime import date

from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from accounts.models import DistrictPolicy
from accounts.roles import Permission
from accounts.scoping import has_permission, visible_pound_ids
from accounts.training import day_of
from impounding.dues import dues
from impounding.models import Animal
from impounding.tariffs import TariffBook, TariffMissing
from kernel import clock
from kernel.views import keyset_page

from .clocks import reports_due
from .models import Auction, Bid, DisposalOrder, Lot, LotAnimal, Notice, Report, S16Case

PANEL_SIZE = 5
LIST_SIZE = 25
BOARD_SIZE = 20

AWAITING, IN_PERIOD, MAY_BE_SOLD = "awaiting", "in_period", "may_be_sold"
SECTIONS = (AWAITING, IN_PERIOD, MAY_BE_SOLD)
CLOSED = "closed"  # none of the report's animals is in the pound any more
REPORT_STATES = (*SECTIONS, CLOSED)
SECTION_ORDER = {
    AWAITING: ["-sent_at", "-pk"],
    IN_PERIOD: ["notice__last_day_to_claim", "pk"],
    MAY_BE_SOLD: ["notice__earliest_sale", "pk"],
}
# Who reads the s.14 records of a pound: whoever reads its records, or handles its unclaimed cattle.
READS_UNCLAIMED = (Permission.VIEW_RECORDS, Permission.HANDLE_UNCLAIMED)


def may_read_unclaimed(user, record=None):
    """May `user` read the s.14 records of `record`'s pound (anywhere, without one)?"""
    return any(has_permission(user, perm, record) for perm in READS_UNCLAIMED)


def unclaimed_readable(user, records):
    """The s.14 records (a scoped queryset) `user` reads by `may_read_unclaimed`'s rule."""
    return records.for_user(user, READS_UNCLAIMED[0]) | records.for_user(user, READS_UNCLAIMED[1])


def _count_of(links):
    """A correlated count of `links` (report-animal links of the outer report): a subquery, so
    that it is counted for the page's rows after the LIMIT, not grouped over every row before."""
    return Subquery(
        links.order_by().values("report_id").annotate(n=Count("pk")).values("n"),
        output_field=IntegerField(),
    )


def _open_reports(pound_ids):
    """Reports of the pounds with at least one of their animals still in the pound: a report
    whose animals were all claimed (or sold, or disposed of) needs nothing more. The database
    keeps each report's count of them (`Report.in_pound`, ADR 0094), so this reads the open
    reports alone, by the partial index `report_open`."""
    scheduled = LotAnimal.objects.filter(
        animal__reports=OuterRef("pk"),
        lot__status="open",
        lot__auction__status="scheduled",
    )
    links = Report.animals.through.objects.filter(report_id=OuterRef("pk"))
    return (
        Report.objects.filter(pound_id__in=pound_ids, in_pound__gt=0)
        .annotate(
            animal_count=Coalesce(_count_of(links), 0),
            auction_scheduled=Exists(scheduled),
        )
        .select_related("pound", "impoundment", "police_station", "notice")
    )


def in_section(reports, section, today):
    """The reports of one of the officer's lists (SECTIONS) on `today`."""
    if section == AWAITING:
        return reports.filter(notice__isnull=True)
    if section == IN_PERIOD:
        return reports.filter(notice__last_day_to_claim__gte=today)
    return reports.filter(notice__earliest_sale__lte=today)


def _section_queryset(open_reports, section, today):
    return in_section(open_reports, section, today).order_by(*SECTION_ORDER[section])


def with_state(reports):
    """`reports` with what their state needs: `in_custody` (an animal still in the pound) and
    the notice."""
    in_custody = ExpressionWrapper(Q(in_pound__gt=0), output_field=BooleanField())
    return reports.annotate(in_custody=in_custody).select_related("notice")


def in_state(reports, state, today):
    """The reports (`with_state`) in `state`, one of REPORT_STATES, on `today`."""
    # On the kept count itself, not the annotation: the open states use the index `report_open`.
    if state == CLOSED:
        return reports.filter(in_pound=0)
    return in_section(reports.filter(in_pound__gt=0), state, today)


def report_state(report, today):
    """The state (REPORT_STATES) on `today` of a report read `with_state`."""
    notice = getattr(report, "notice", None)
    if not report.in_custody:
        return CLOSED
    if notice is None:
        return AWAITING
    return IN_PERIOD if today <= notice.last_day_to_claim else MAY_BE_SOLD


def _cursor(section, report):
    if section == AWAITING:
        return f"{report.sent_at.isoformat()}|{report.pk}"
    if section == IN_PERIOD:
        return f"{report.notice.last_day_to_claim.isoformat()}|{report.pk}"
    return f"{report.notice.earliest_sale.isoformat()}|{report.pk}"


def _after(qs, section, after):
    """Keyset: the rows after `after` ("<sort key>|<id>") in the section's order."""
    if not after:
        return qs
    try:
        key, pk = after.rsplit("|", 1)
        pk = int(pk)
        key = parse_datetime(key) if section == AWAITING else parse_date(key)
    except (ValueError, TypeError):
        return qs
    if key is None:
        return qs
    if section == AWAITING:
        return qs.filter(Q(sent_at__lt=key) | Q(sent_at=key, pk__lt=pk))
    field_name = "notice__last_day_to_claim" if section == IN_PERIOD else "notice__earliest_sale"
    return qs.filter(Q(**{f"{field_name}__gt": key}) | Q(**{field_name: key, "pk__gt": pk}))


@dataclass
class Section:
    key: str
    count: int
    rows: list
    next_cursor: str | None = None


def _decorate(reports, today):
    for r in reports:
        r.days_since_sent = (today - timezone.localtime(r.sent_at).date()).days
    return reports


def officer_sections(user, *, today=None, only=None, after=None, size=None):
    """The officer's three lists (reports awaiting a notice, notices in their claim period,
    notices whose period has run out), each one page long. Two queries a list, and one for the
    reports still open.

    With `only`, just that list, from the keyset cursor `after`."""
    pound_ids = visible_pound_ids(user, Permission.VIEW_RECORDS)
    today = today or day_of(pound_ids)  # a training district's officer: its clock (ADR 0080)
    size = size or LIST_SIZE
    open_reports = _open_reports(pound_ids)
    sections = []
    for key in (only,) if only else SECTIONS:
        qs = _section_queryset(open_reports, key, today)
        count = qs.count()
        page = list(_after(qs, key, after if only else None)[: size + 1])
        more = len(page) > size
        page = _decorate(page[:size], today)
        sections.append(Section(key, count, page, _cursor(key, page[-1]) if more else None))
    return sections


def officer_dashboard(user, today=None):
    """The officer's home-page panel: reports awaiting a notice and notices in their claim
    period in the pounds he handles (count and the first few of each)."""
    pound_ids = visible_pound_ids(user, Permission.HANDLE_UNCLAIMED)
    today = today or day_of(pound_ids)  # a training district's officer: its clock (ADR 0080)
    open_reports = _open_reports(pound_ids)
    panel = {}
    for key in (AWAITING, IN_PERIOD):
        qs = _section_queryset(open_reports, key, today)
        panel[key] = {"count": qs.count(), "rows": _decorate(list(qs[:PANEL_SIZE]), today)}
    return panel


def keeper_dashboard(user, today=None):
    """The pound-keeper's home-page panel: how many register entries are due for a report."""
    rows = reports_due(visible_pound_ids(user, Permission.SEND_REPORT), today)
    return {"reports_due": len(rows), "animals": sum(len(r["animals"]) for r in rows)}


# --- The public notice board ----------------------------------------------------------------


@dataclass
class BoardPage:
    rows: list = field(default_factory=list)
    next_cursor: str | None = None
    pounds: list = field(default_factory=list)  # the rows grouped by pound (`_by_pound`)


def board_animals(*, district=None, pound=None, species=None, tag=None, village=None):
    """Animals under a s.14 notice: in the pound, their report has a notice. Claimed, sold or
    disposed of animals are no longer in the pound, so they leave the board by themselves."""
    # The day of each animal's latest notice is kept on the animal (its migration, auctions
    # 0023): the board is read from a partial index of the animals in the pound under a notice,
    # not by joining every report ever made to its notice. The rest of the notice is read for
    # the page's animals alone (`_notices_of`).
    qs = (
        Animal.objects.in_custody()
        .filter(notice_posted_on__isnull=False)
        .annotate(posted_on=F("notice_posted_on"))
    )
    if district is not None:
        qs = qs.filter(impoundment__pound__district=district)
    if pound is not None:
        qs = qs.filter(pound=pound)
    if species:
        qs = qs.filter(species=species)
    if tag:
        # The whole number only: the board keeps the tag back for the owner to prove, so a part
        # of one must not find (and so reveal) it.
        qs = qs.filter(ear_tag__iexact=tag.strip())
    if village is not None:
        qs = qs.filter(impoundment__seizure_village=village)
    return qs


def _board_after(qs, after):
    if not after:
        return qs
    try:
        day, pk = after.rsplit("|", 1)
        day, pk = date.fromisoformat(day), int(pk)
    except (ValueError, TypeError):
        return qs
    return qs.filter(Q(posted_on__lt=day) | Q(posted_on=day, pk__gt=pk))


def _notices_of(animals):
    """Puts on each animal the latest notice that names it (as `board_animals` orders them):
    one query for the page."""
    rows = (
        Notice.objects.filter(report__animals__in=animals)
        .order_by("-posted_on", "-pk")
        .values_list(
            "report__animals", "posted_on", "last_day_to_claim", "earliest_sale", "posted_at"
        )
    )
    latest = {}
    for animal_id, *notice in rows:
        latest.setdefault(animal_id, notice)
    for animal in animals:
        _, animal.last_day_to_claim, animal.earliest_sale, animal.posted_at = latest[animal.pk]


def board_page(*, after=None, size=None, now=None, **filters):
    """One page of the board, newest notice first, each animal with its indicative dues as of
    now. Queries: the page, the custody events, and the tariffs of the pounds on the page (a
    fixed number, whatever the pounds)."""
    given, now = now, now or timezone.now()
    size = size or BOARD_SIZE
    qs = (
        _board_after(board_animals(**filters), after)
        .select_related("impoundment__pound__district", "impoundment__seizure_village")
        .prefetch_related("custody_events")
        .order_by("-posted_on", "pk")
    )
    animals = list(qs[: size + 1])
    more = len(animals) > size
    animals = animals[:size]
    if animals:
        _notices_of(animals)
    # One pound (and district) object per pound, so its tariffs and policy are read once.
    pounds, by_pound = {}, {}
    for animal in animals:
        entry = animal.impoundment
        entry.pound = pounds.setdefault(entry.pound_id, entry.pound)
        by_pound.setdefault(entry.pound_id, []).append(animal)
    estimate, days = {}, {}
    # The tariffs and policies of every pound on the page in a fixed number of queries, not a
    # set a pound.
    books = TariffBook.for_pounds(list(pounds.values()))
    DistrictPolicy.prime(p.district for p in pounds.values())
    for pound_id, group in by_pound.items():
        # Each pound's own clock (ADR 0080): no query for a real one, one for a training one.
        as_of = given or clock.now(pounds[pound_id])
        days[pound_id] = timezone.localtime(as_of).date()  # the row's "today"
        try:
            statement = dues(group, as_of=as_of, book=books[pound_id])
        except TariffMissing:
            continue
        estimate.update({line.animal.pk: line.total for line in statement.lines})
    sales = _sales_of(animals)
    rows = [
        {
            "animal": a,
            "dues": estimate.get(a.pk),
            "sale": sales.get(a.pk),
            "today": days[a.impoundment.pound_id],
        }
        for a in animals
    ]
    cursor = None
    if more:
        last = animals[-1]
        cursor = f"{last.posted_on.isoformat()}|{last.pk}"
    return BoardPage(rows, cursor, _by_pound(rows, pounds, now))


def _sales_of(animals):
    """{animal id: the scheduled auction it is to be offered at}: one query for the page."""
    links = LotAnimal.objects.filter(
        animal__in=animals,
        lot__status=Lot.Status.OPEN,
        lot__auction__status=Auction.Status.SCHEDULED,
    ).select_related("lot__auction")
    return {link.animal_id: link.lot.auction for link in links}


def _by_pound(rows, pounds, now):
    """The page's rows grouped by pound, in the page's order, each pound with its auctions to come
    (one query for the page), so that where the animals are kept is said once a pound."""
    coming = {}
    for auction in Auction.objects.filter(
        pound_id__in=pounds, status=Auction.Status.SCHEDULED, scheduled_for__gte=now
    ).order_by("scheduled_for"):
        coming.setdefault(auction.pound_id, []).append(auction)
    groups = {}
    for row in rows:
        pound_id = row["animal"].impoundment.pound_id
        group = groups.setdefault(
            pound_id, {"pound": pounds[pound_id], "auctions": coming.get(pound_id, []), "rows": []}
        )
        group["rows"].append(row)
    return list(groups.values())


# How an animal's time in the pound ended, read from the sales floor, which names the animals.


def sold_lot(animal):
    """The lot in which the animal was sold, or None."""
    return Lot.objects.filter(lotanimal__animal=animal, lotanimal__sold=True).first()


def disposal_order(animal):
    """The approved order of the District Magistrate that disposed of the animal, or None."""
    return DisposalOrder.objects.filter(
        animals=animal, status=DisposalOrder.Status.APPROVED
    ).first()


def returned_by(animal):
    """The s.16 case that gave the animal back to its owner, or None."""
    return S16Case.objects.filter(returned_animals=animal).first()


# --- Auctions and their lots --------------------------------------------------------------------


def _lots_counted(**where):
    lots = Lot.objects.filter(auction_id=OuterRef("pk"), **where).order_by()
    return Coalesce(
        Subquery(lots.values("auction_id").annotate(n=Count("pk")).values("n")),
        0,
        output_field=IntegerField(),
    )


def with_lot_counts(auctions):
    """`auctions` each with its lots counted, as the list shows them: all, sold and still open.
    Correlated counts, so that a page's are counted after its LIMIT: a GROUP BY in the page's
    query counted the lots of every auction in scope first."""
    return auctions.annotate(
        lots_total=_lots_counted(),
        lots_sold=_lots_counted(status=Lot.Status.SOLD),
        lots_open=_lots_counted(status=Lot.Status.OPEN),
    )


# The auctions screen's two lists, each paged by keyset (kernel.views.keyset_page): those to come,
# the soonest first, and those held (or cancelled), the latest first. A scheduled auction whose
# lots have all been decided has been held, though the officer has yet to close it: it is listed
# with the held ones, as `Auction.status_label` reads it, not as still to come.
_ALL_LOTS_DECIDED = Q(
    Exists(Lot.objects.filter(auction=OuterRef("pk"))),
    ~Exists(Lot.objects.filter(auction=OuterRef("pk"), status=Lot.Status.OPEN)),
)
_TO_COME = Q(status=Auction.Status.SCHEDULED) & ~_ALL_LOTS_DECIDED
AUCTION_LISTS = {
    "scheduled": (_TO_COME, ("scheduled_for", "pk")),
    "held": (~_TO_COME, ("-scheduled_for", "-pk")),
}
# The disposal orders' two lists: awaiting the Magistrate, and decided; the latest prepared first.
DISPOSAL_LISTS = {
    "pending": (Q(status=DisposalOrder.Status.PROPOSED), ("-prepared_at", "-pk")),
    "decided": (~Q(status=DisposalOrder.Status.PROPOSED), ("-prepared_at", "-pk")),
}


@dataclass
class ListPage:
    key: str
    rows: list
    next_cursor: str | None = None


def list_pages(qs, lists, *, only=None, after=None, size=None):
    """One keyset page of each of `lists` ({key: (filter, order)}) over `qs`, or with `only`
    that list alone from the cursor `after`. One query a list, however long the history."""
    size = size or LIST_SIZE
    pages = []
    for key, (where, order) in lists.items():
        if only and key != only:
            continue
        rows, cursor = keyset_page(
            qs.filter(where), order, after=after if only else None, size=size
        )
        pages.append(ListPage(key, rows, cursor))
    return pages


def animals_by_number(through="animals"):
    """The animals of each record prefetched through `through`, by their number in the entry."""
    return Prefetch(
        through, queryset=Animal.objects.select_related("impoundment").order_by("number")
    )


def auction_lots(auction):
    """The lots of an auction in the order of sale, each with its sale and buyer, its animals,
    and its bids, the highest first. Four queries."""
    bids = Bid.objects.select_related("bidder").order_by("-amount")
    return list(
        auction.lots.select_related("sale__buyer", "sale__certificate")
        .prefetch_related(animals_by_number(), Prefetch("bids", queryset=bids))
        .order_by("sequence")
    )
