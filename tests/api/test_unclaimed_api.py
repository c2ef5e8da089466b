"""The API's unclaimed cattle and sales (/api/v1/reports/, notices/, proclamations/, auctions/,
sales/): scoped like the s.14 and auction screens, paged by keyset, filtered, with ETags and a
fixed number of queries a page."""

from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.utils import timezone

from accounts.models import IssuedDocument
from accounts.roles import Role
from auctions import services
from tests.accounts.factories import PoundFactory, staff
from tests.api.conftest import bearer
from tests.auctions.factories import (
    conditions,
    proclaim,
    ready_for_sale,
    register,
    report_and_notice,
    schedule,
    unclaimed_entry,
)
from tests.impounding.factories import set_tariffs
from tests.plans import assert_walks, plan_of_request

API = "/api/v1"
LISTS = ["reports", "notices", "proclamations", "auctions", "sales"]


def _problem(response, status):
    assert response.status_code == status
    assert response["Content-Type"] == "application/problem+json"
    return response.json()


def sold(*, pound, keeper, officer, price="40000.00"):
    """Reported, under notice, proclaimed by drum, auctioned and sold: one of each record, but
    two drums (the market-place's first, as s.14 asks both before a sale)."""
    entry, notice = ready_for_sale(pound=pound, keeper=keeper, officer=officer, drums=False)
    (market,) = proclaim(notice, officer, channels=["drum_market"])
    drum = services.record_proclamation(
        notice=notice,
        by=officer,
        channel="drum_village",
        made_on=notice.posted_on,
        made_by="Ram Lal, chaukidar",
        place="Village chaupal",
    )
    auction = schedule(pound, officer, [entry.animals.all()])
    bidder = register(auction, officer)
    sale = services.sell_lot(lot=auction.lots.get(), buyer=bidder, price=Decimal(price), by=officer)
    return SimpleNamespace(
        reports=notice.report,
        notices=notice,
        proclamations=drum,
        # The list, latest first: the village's drum, then the market-place's.
        proclamations_ids=[drum.pk, market.pk],
        auctions=auction,
        sales=sale,
    )


@pytest.fixture
def home(district, pound, pound_keeper, police_officer, dm_clerk, tariffs):
    conditions(district, by=dm_clerk)
    return sold(pound=pound, keeper=pound_keeper, officer=police_officer)


@pytest.fixture
def theirs(other_district, other_pound, outsider):
    set_tariffs(other_district)
    conditions(other_district)
    officer = staff(Role.POLICE_OFFICER, "other_officer", pound=other_pound)
    return sold(pound=other_pound, keeper=outsider, officer=officer)


@pytest.fixture
def neighbour(district):
    """A report from another pound of the home district, served by another police station."""
    second = PoundFactory(district=district)
    keeper = staff(Role.POUND_KEEPER, "keeper2", pound=second)
    officer = staff(Role.POLICE_OFFICER, "officer2", police_station=second.nearest_police_station)
    entry = unclaimed_entry(pound=second, keeper=keeper)
    report, _notice = report_and_notice(entry, keeper, officer, sent_days_ago=11, posted_days_ago=9)
    return report


def _ids(client, user, name, query=""):
    response = client.get(f"{API}/{name}/{query}", **bearer(user))
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


@pytest.mark.parametrize("name", LISTS)
def test_keeper_sees_his_pound_and_another_district_is_404(
    client, pound_keeper, outsider, home, theirs, name
):
    mine, other = getattr(home, name), getattr(theirs, name)

    assert _ids(client, pound_keeper, name) == getattr(home, f"{name}_ids", [mine.pk])
    assert _ids(client, outsider, name) == getattr(theirs, f"{name}_ids", [other.pk])
    assert client.get(f"{API}/{name}/{mine.pk}/", **bearer(pound_keeper)).status_code == 200
    _problem(client.get(f"{API}/{name}/{other.pk}/", **bearer(pound_keeper)), 404)


def test_officer_sees_his_stations_pounds_and_the_office_the_district(
    client, police_officer, dm_clerk, home, neighbour
):
    assert _ids(client, police_officer, "reports") == [home.reports.pk]
    _problem(client.get(f"{API}/reports/{neighbour.pk}/", **bearer(police_officer)), 404)
    _problem(client.get(f"{API}/notices/{neighbour.notice.pk}/", **bearer(police_officer)), 404)
    assert set(_ids(client, dm_clerk, "reports")) == {home.reports.pk, neighbour.pk}
    assert set(_ids(client, dm_clerk, "notices")) == {home.notices.pk, neighbour.notice.pk}


@pytest.mark.parametrize("name", LISTS)
def test_role_without_the_records_gets_404(client, administrator, home, name):
    _problem(client.get(f"{API}/{name}/", **bearer(administrator)), 404)
    pk = getattr(home, name).pk
    _problem(client.get(f"{API}/{name}/{pk}/", **bearer(administrator)), 404)


def test_report_says_where_it_went_and_its_state(client, pound_keeper, police_officer, home):
    entry = unclaimed_entry(pound=home.reports.pound, keeper=pound_keeper)
    awaiting = services.send_report(entry=entry, by=pound_keeper)
    headers = bearer(police_officer)

    body = client.get(f"{API}/reports/{home.reports.pk}/", **headers).json()

    assert body["state"] == "closed"  # the cow was sold: nothing remains under s.14
    assert body["police_station"]["id"] == home.reports.police_station_id
    assert body["notice"] == home.notices.pk
    assert body["animals"][0]["state"] == "sold"
    assert "+05:30" in body["sent_at"]
    assert _ids(client, police_officer, "reports", "?state=awaiting") == [awaiting.pk]
    assert _ids(client, police_officer, "reports", "?state=closed") == [home.reports.pk]
    assert _ids(client, police_officer, "reports", "?state=in_period") == []


def test_report_states_follow_the_notice_dates(client, pound, pound_keeper, police_officer):
    fresh = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=10)
    running, _n = report_and_notice(
        fresh, pound_keeper, police_officer, sent_days_ago=1, posted_days_ago=1
    )
    _entry, ripe = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    headers = bearer(police_officer)
    states = {
        r["id"]: r["state"] for r in client.get(f"{API}/reports/", **headers).json()["results"]
    }
    assert states == {running.pk: "in_period", ripe.report_id: "may_be_sold"}


def test_notice_gives_its_dates_proclamations_and_pdf_link_once_stored(
    client, pound_keeper, outsider, home
):
    headers, notice = bearer(pound_keeper), home.notices
    body = client.get(f"{API}/notices/{notice.pk}/", **headers).json()
    assert body["last_day_to_claim"] == notice.last_day_to_claim.isoformat()
    assert body["earliest_sale"] == notice.earliest_sale.isoformat()
    assert body["pdf"] is None  # never drawn yet: nothing stored to link to
    drum = next(p for p in body["proclamations"] if p["channel"] == "drum_village")
    assert (drum["channel"], drum["is_drum"], drum["made_by"], drum["place"]) == (
        "drum_village",
        True,
        "Ram Lal, chaukidar",
        "Village chaupal",
    )
    _problem(client.get(f"{API}/notices/{notice.pk}/pdf/", **headers), 404)

    IssuedDocument.objects.kept_pdf(notice.document, lambda: b"%PDF-1.4 notice")
    link = client.get(f"{API}/notices/{notice.pk}/", **headers).json()["pdf"]

    assert link == f"{API}/notices/{notice.pk}/pdf/"
    pdf = client.get(link, **headers)
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert b"".join(pdf.streaming_content) == b"%PDF-1.4 notice"
    _problem(client.get(link, **bearer(outsider)), 404)
    _problem(client.get(link), 401)


def test_auction_has_its_lots_sale_in_exact_rupees_and_buyer_as_on_the_screen(
    client, pound_keeper, home
):
    response = client.get(f"{API}/auctions/{home.auctions.pk}/", **bearer(pound_keeper))
    body = response.json()

    assert (body["lots_total"], body["lots_sold"], body["lots_open"]) == (1, 1, 0)
    assert body["conditions"]["earnest_money"] == "500.00"
    lot = body["lots"][0]
    assert lot["status"] == "sold" and lot["reserve_price"] == "0.00"
    assert lot["animals"][0]["state"] == "sold"
    assert lot["sale"]["price"] == "40000.00"
    assert lot["sale"]["buyer"] == {"number": 1, "name": "Mohd. Salim Qureshi"}
    # The bidder's phone, address and identity are on the bidders' table, not beside the lot.
    for private in ("9123456780", "UPV1234567", "Bakshi ka Talab"):
        assert private not in response.content.decode()


def test_sale_certificate_link_is_the_apis_and_scoped(client, pound_keeper, outsider, home):
    headers, sale = bearer(pound_keeper), home.sales
    IssuedDocument.objects.kept_pdf(sale.certificate, lambda: b"%PDF-1.4 certificate")
    body = client.get(f"{API}/sales/{sale.pk}/", **headers).json()

    assert body["price"] == "40000.00" and body["auction"] == home.auctions.pk
    assert body["certificate_pdf"] == f"{API}/sales/{sale.pk}/certificate/"
    pdf = client.get(body["certificate_pdf"], **headers)
    assert pdf.status_code == 200 and b"".join(pdf.streaming_content) == b"%PDF-1.4 certificate"
    _problem(client.get(body["certificate_pdf"], **bearer(outsider)), 404)


def test_filters_narrow_the_lists(client, pound_keeper, home):
    today = timezone.localdate()
    later = (today + timedelta(days=1)).isoformat()
    pound = home.reports.pound_id
    assert _ids(client, pound_keeper, "sales", f"?pound={pound}") == [home.sales.pk]
    assert _ids(client, pound_keeper, "sales", f"?date_from={later}") == []
    assert _ids(client, pound_keeper, "auctions", "?state=closed") == []
    assert _ids(client, pound_keeper, "auctions", "?state=scheduled") == [home.auctions.pk]
    posted = home.notices.posted_on.isoformat()
    assert _ids(client, pound_keeper, "notices", f"?date_from={posted}&date_to={posted}") == [
        home.notices.pk
    ]
    day_after = (home.notices.posted_on + timedelta(days=1)).isoformat()
    assert _ids(client, pound_keeper, "proclamations", f"?date_from={day_after}") == []


@pytest.mark.parametrize("name", ["reports", "notices"])
def test_pages_give_each_row_once(client, pound, pound_keeper, police_officer, monkeypatch, name):
    monkeypatch.setattr("api.unclaimed.PAGE_SIZE", 2)
    made = set()
    for _ in range(5):  # every notice posted on the same day: the ids break the ties
        entry = unclaimed_entry(pound=pound, keeper=pound_keeper)
        report, notice = report_and_notice(
            entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9
        )
        made.add(report.pk if name == "reports" else notice.pk)
    headers, seen, url = bearer(police_officer), [], f"{API}/{name}/"
    while url:
        body = client.get(url, **headers).json()
        assert len(body["results"]) <= 2
        seen += [row["id"] for row in body["results"]]
        url = body["next"]
    assert sorted(seen) == sorted(made)


@pytest.mark.parametrize("name", LISTS)
@pytest.mark.parametrize(
    "query",
    [
        "after=nonsense",
        "after=1|2",
        "after=2026-01-01|x",
        "date_from=2026-13-45",
        "pound=abc",
        "pound=99999999",
        "date_from=2026-02-10&date_to=2026-02-01",
    ],
)
def test_bad_input_is_400_with_field_errors(client, pound_keeper, name, query):
    body = _problem(client.get(f"{API}/{name}/?{query}", **bearer(pound_keeper)), 400)
    assert body["errors"] and {"field", "message"} == set(body["errors"][0])


@pytest.mark.parametrize("name", ["reports", "auctions"])
def test_unknown_state_is_400(client, pound_keeper, name):
    body = _problem(client.get(f"{API}/{name}/?state=lost", **bearer(pound_keeper)), 400)
    assert body["errors"][0]["field"] == "state"


def test_another_districts_pound_is_400_not_a_leak(client, pound_keeper, other_pound):
    url = f"{API}/reports/?pound={other_pound.pk}"
    body = _problem(client.get(url, **bearer(pound_keeper)), 400)
    assert body["errors"][0]["field"] == "pound"


@pytest.mark.parametrize("name", LISTS)
def test_etag_gives_304(client, pound_keeper, home, name):
    headers = bearer(pound_keeper)
    for url in (f"{API}/{name}/", f"{API}/{name}/{getattr(home, name).pk}/"):
        first = client.get(url, **headers)
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **headers)
        assert again.status_code == 304 and again.content == b""


# With the token's last use already written: the token, the grants, the pounds, the page, and
# the page's animals (reports, sales) or proclamations (notices).
QUERIES = {"reports": 7, "notices": 7, "proclamations": 6, "auctions": 6, "sales": 7}


@pytest.mark.parametrize("rows", [1, 4])
def test_queries_do_not_grow_with_rows(
    client,
    district,
    pound,
    pound_keeper,
    police_officer,
    dm_clerk,
    tariffs,
    rows,
    django_assert_max_num_queries,
):
    conditions(district, by=dm_clerk)
    for n in range(rows):
        sold(pound=pound, keeper=pound_keeper, officer=police_officer, price=f"{30000 + n}.00")
    headers = bearer(police_officer)
    client.get(f"{API}/reports/", **headers)  # the token's last use is written once a minute
    for name, bound in QUERIES.items():
        listed = rows * 2 if name == "proclamations" else rows  # both drums of each notice
        with django_assert_max_num_queries(bound):
            assert len(client.get(f"{API}/{name}/", **headers).json()["results"]) == listed


def test_the_proclamations_list_walks_its_index_not_the_history(client, pound_keeper, home):
    """The newest proclamations of the reader's pounds come off the index `proclamation_newest`:
    no sort of every proclamation ever made joined to its notice (44,354 at 1M entries, 24 ms,
    docs/capacity.md). Sorting is priced out, so a plan that still sorts has no index to walk."""
    url, table = f"{API}/proclamations/", "auctions_proclamation"
    plan = plan_of_request(client, url, table, **bearer(pound_keeper))
    assert_walks(plan, "auctions_proclamation", "proclamation_newest")


def test_schema_lists_the_endpoints(client):
    paths = set(client.get(f"{API}/openapi.json").json()["paths"])
    for name in LISTS:
        assert {f"{API}/{name}/", f"{API}/{name}/{{pk}}/"} <= paths
    assert f"{API}/notices/{{pk}}/pdf/" in paths
