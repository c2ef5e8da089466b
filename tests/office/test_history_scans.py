"""No page reads the whole history (docs/capacity.md). Each page's queries are explained with
ANALYZE at two sizes of a `seed_scale` data set, with whole-table reads priced out so that the
planner takes the index it would take on a State's tables; the rows each page reads from the big
tables must not grow with the history behind them. A query that sums or scans every entry, posting
or event comes back as a count of rows three times larger, and fails here."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Count, Q
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Pound, StaffAssignment, User
from accounts.services import create_api_token
from impounding.models import Animal, Impoundment, Release
from office.forms.returns import last_month
from tests.plans import explain, nodes

pytestmark = pytest.mark.postgres

# The tables that grow with every entry of the register.
BIG = {
    "impounding_impoundment",
    "impounding_animal",
    "impounding_receipt",
    "impounding_release",
    "impounding_releaseline",
    "ledger_transaction",
    "ledger_posting",
    "kernel_event",
    "accounts_issueddocument",
    "auctions_report",
    "auctions_report_animals",
    "impounding_deposit",
    "impounding_complaint",
}
# A page's address may name what the first, smaller set holds ({old_entry}, {old_month_*}):
# the same record and month are asked for again when the history behind them has grown.
PAGES = [
    ("keeper", "/pound/"),
    ("auditor", "/pound/"),
    ("keeper", "/pound/register/"),
    ("auditor", "/pound/register/"),
    ("auditor", "/pound/register/?date_from={old_month_from}&date_to={old_month_to}"),
    ("magistrate", "/office/"),
    ("magistrate", "/office/approvals/"),
    ("magistrate", "/office/surplus/"),
    ("magistrate", "/office/remittances/"),
    ("magistrate", "/office/returns/"),
    # The returns page for a district and for a pound, the district's kept return (a closed
    # month) and a pound's kept cash book of a day of the first set (the newer entries add days of
    # their own, not rows to that one): {placeholders} filled from the seeded rows. The cash book's
    # day is a first of the month with a release already in the first set, so that its queries
    # for the day's lines run at both sizes (a day with none in the first set may gain one from
    # the newer entries, whose dates follow the day the test runs, and add that query).
    ("magistrate", "/office/returns/?of=district-{district}&month={month}&day={today}"),
    ("magistrate", "/office/returns/?of=pound-{pound}&month={month}&day={old_cash_day}"),
    ("magistrate", "/office/returns/district/{district}/{year}/{month_number}.pdf"),
    ("magistrate", "/office/returns/cashbook/{pound}/{old_cash_day}.pdf"),
    ("magistrate", "/office/trail/{old_entry}/"),
    ("magistrate", "/auctions/reports/"),
    ("magistrate", "/auctions/"),
    ("magistrate", "/auctions/?list=held"),
    ("magistrate", "/auctions/disposals/"),
    ("magistrate", "/auctions/disposals/?list=decided"),
    ("magistrate", "/auctions/disposals/new/"),
    ("officer", "/auctions/reports/"),
    ("auditor", "/auctions/reports/"),
    ("officer", "/"),
    # The forms for new tariffs, and the documents drawn on request: kept under the fingerprint
    # of what they say, so the second download reads what the fingerprint needs and no more.
    ("magistrate", "/pound/tariffs/fines/new/"),
    ("magistrate", "/pound/tariffs/feeding/new/"),
    ("magistrate", "/pound/entries/{old_entry}/copy.pdf"),
    ("magistrate", "/pound/entries/{old_entry}/statement.pdf"),
    ("magistrate", "/pound/pounds/{pound}/schedule.pdf"),
    ("magistrate", "/accounts/appointments/{appointment}/card.pdf"),
    ("keeper", "/notices/"),
    # Today's work over a district (docs/decisions/0086): the deposits and their lists, the
    # surplus and the approvals over every district.
    ("magistrate", "/pound/deposits/"),
    ("magistrate", "/pound/deposits/?list=held"),
    ("auditor", "/office/surplus/"),
    ("auditor", "/office/approvals/"),
    # The API, with a token: the lists of the auditor's scope, all pounds.
    ("auditor", "/api/v1/receipts/"),
    ("auditor", "/api/v1/receipts/?date_from={old_month_from}&date_to={old_month_to}"),
    ("auditor", "/api/v1/entries/?date_from={old_month_from}&date_to={old_month_to}"),
    ("auditor", "/api/v1/auctions/"),
    ("auditor", "/api/v1/deposits/"),
    ("auditor", "/api/v1/surplus/"),
    ("auditor", "/api/v1/board/"),
]
# What the newer entries may add: a few more animals in the pound and deposits held now, which
# the pages count (they are today's work, not history).
SLACK = 1.25
ROOM = 150
# And what a page may read of a big table at all: today's work is a sliver of the history. On a
# few hundred rows the planner may walk a whole small table where a State's would look rows up,
# so growth alone can hide a full-history read; its share of the table cannot.
SHARE = 0.10
# How often a board over many pounds may read each animal in them (above).
CUSTODY_READS = 4


# On a test's few hundred rows the planner reads a whole small table rather than look rows up:
# a sequential scan, or an index walked end to end beside a merge or hash join. On a State's
# tables it looks them up. Pricing those out shows the plan of the big tables.
PRICED_OUT = ("seqscan", "mergejoin", "hashjoin")


def _seed(entries, append):
    call_command(
        "seed_scale",
        entries=entries,
        pounds=3,
        districts=2,
        seed=21,
        years=3,
        append=append,
        stdout=io.StringIO(),
    )


def _rows_read(sql):
    """Rows each big table gave up to the query, kept or filtered out, over all loops."""
    read = {}
    for node in nodes(explain(sql, off=PRICED_OUT, analyze=True)):
        table = node.get("Relation Name")
        if table in BIG:
            rows = node["Actual Rows"] + node.get("Rows Removed by Filter", 0)
            read[table] = read.get(table, 0) + rows * node["Actual Loops"]
    return read


def _places():
    """What the placeholders of PAGES stand for: the magistrate's district, its busiest pound,
    last month and today."""
    appointment = StaffAssignment.objects.get(user__username="magistrate")
    district = appointment.district
    pound = (
        Pound.objects.filter(district=district)
        .annotate(entries=Count("impoundments"))
        .order_by("-entries", "pk")
        .first()
    )
    month, today = last_month(), timezone.localdate()
    return {
        "district": district.pk,
        "appointment": appointment.pk,
        "pound": pound.pk,
        "month": f"{month:%Y-%m}",
        "year": month.year,
        "month_number": month.month,
        "today": today.isoformat(),
    }


def _page_reads(clients, tokens, names, counts):
    """For each page: rows read from each big table, summed over its queries; `counts` gets
    each page's number of queries."""
    reads = {}
    for username, url in PAGES:
        client, address = clients[username], url.format(**names)
        headers = {}
        if address.startswith("/api/"):
            headers = {"HTTP_AUTHORIZATION": f"Bearer {tokens[username]}"}
        client.get(address, **headers)  # warm: per-process caches, closed months kept
        with CaptureQueriesContext(connection) as captured:
            response = client.get(address, **headers)
        assert response.status_code == 200, (url, response.status_code)
        counts[(username, url)] = len(captured)
        total = {}
        for query in captured.captured_queries:
            sql = query["sql"]  # as sent, its parameters bound by the driver
            if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
                continue
            for table, rows in _rows_read(sql).items():
                total[table] = total.get(table, 0) + rows
        reads[(username, url)] = total
    return reads


def _old_records(magistrate):
    """The oldest entry of the magistrate's district with fines paid (its money trail), and the
    first whole month of the register (a search between dates far back)."""
    district = StaffAssignment.objects.get(user=magistrate).district_id
    entry = (
        Impoundment.objects.filter(pound__district_id=district, releases__fines__gt=0)
        .order_by("arrived_at", "pk")
        .first()
    )
    first = timezone.localtime(Impoundment.objects.order_by("arrived_at").first().arrived_at)
    month = (first.date().replace(day=1) + timedelta(days=32)).replace(day=1)
    last = (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    return {"old_entry": entry.pk, "old_month_from": month, "old_month_to": last}


def _old_cash_day(pound, fallback):
    """A first of the month on which the pound released cattle in the first set: its cash book
    has lines at both sizes, and its month before the day is empty, so the page reads the day
    and the month totals, which the newer entries do not add to."""
    times = Release.objects.filter(impoundment__pound_id=pound).values_list(
        "released_at", flat=True
    )
    days = sorted(timezone.localtime(at).date() for at in times)
    return next((day for day in days if day.day == 1), fallback)


def test_no_page_reads_more_rows_of_the_big_tables_as_the_history_grows():
    _seed(300, append=False)
    users = {u for u, _ in PAGES}
    clients, tokens = {}, {}
    for name in users:
        user = User.objects.get(username=name)
        clients[name] = Client()
        clients[name].force_login(user)
        tokens[name] = create_api_token(user=user, name="history scans")[1]
    names = _places() | _old_records(User.objects.get(username="magistrate"))
    names["old_cash_day"] = _old_cash_day(names["pound"], names["old_month_from"])
    small_counts, large_counts = {}, {}
    small = _page_reads(clients, tokens, names, small_counts)
    held = _held_this_week()
    _seed(600, append=True)
    large = _page_reads(clients, tokens, names, large_counts)
    # The cattle in the pounds this week are today's work: a board over many pounds reads each
    # of them (to number and count them, to fetch the first rows, for the feeding week), and
    # the newer entries add more. Its reads of the animals may grow as they do, a few reads
    # each; a read of the history reads every animal and still fails.
    now_held = _held_this_week()
    slack = {"impounding_animal": max(SLACK, now_held / max(held, 1))}
    room = {"impounding_animal": CUSTODY_READS * now_held}

    sizes = _table_rows()
    grew, whole = {}, {}
    for page, before in small.items():
        for table, rows in large[page].items():
            if rows > before.get(table, 0) * slack.get(table, SLACK) + ROOM:
                grew.setdefault(page, {})[table] = (before.get(table, 0), rows)
            if rows > max(ROOM, SHARE * sizes[table], room.get(table, 0)):
                whole.setdefault(page, {})[table] = (rows, sizes[table])
    more = {
        page: (n, large_counts[page]) for page, n in small_counts.items() if large_counts[page] > n
    }
    assert not more, f"queries grew with the history (before, after): {more}"
    assert not grew, f"rows read grew with the history (before, after): {grew}"
    assert not whole, f"a page read much of a big table (read, table): {whole}"


def _held_this_week():
    """The animals in a pound at some time in the last week, the board's feeding week."""
    week = timezone.now() - timedelta(days=8)
    return Animal.objects.filter(
        Q(custody_ended_at__isnull=True) | Q(custody_ended_at__gte=week)
    ).count()


def _table_rows():
    with connection.cursor() as cursor:
        counts = {}
        for table in BIG:
            cursor.execute(f'SELECT COUNT(*) FROM "{table}"')
            counts[table] = cursor.fetchone()[0]
        return counts
