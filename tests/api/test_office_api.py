"""The office through the API (ADR 0040): remittances, the surplus register and claims, the
monthly and district returns as JSON, and the tariffs in force on a day. Scoped as the screens,
paged by keyset, 400 on bad input, and a query count that does not grow with the rows."""

from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from accounts.models import IssuedDocument
from office import returns
from office import services as office
from office.models import Remittance, SurplusDeposit
from tests import readpdf
from tests.accounts.factories import PoundFactory
from tests.api.conftest import bearer
from tests.auctions.factories import conditions
from tests.impounding.factories import goat, make_entry, pay, set_tariffs
from tests.office.test_views_money import sell

REMITTANCES = "/api/v1/remittances/"
SURPLUS = "/api/v1/surplus/"
CLAIMS = "/api/v1/claims/"
MONTHLY = "/api/v1/returns/monthly/"
DISTRICT = "/api/v1/returns/district/"
TARIFFS = "/api/v1/tariffs/"
IST = ZoneInfo("Asia/Kolkata")


def _problem(response, status):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    return response.json()


def _remittance(pound, by, n, amount="100.00", **kw):
    return Remittance.objects.create(
        pound=pound,
        number=f"REM/{pound.code}/{n}",
        amount=Decimal(amount),
        challan_number=f"TR-{n}",
        treasury="District Treasury",
        remitted_on=timezone.localdate() - timedelta(days=n % 3),
        sent_by=by,
        **kw,
    )


def _all_pages(client, url, headers):
    seen = []
    while url:
        body = client.get(url, **headers).json()
        seen += [row["id"] for row in body["results"]]
        url = body["next"]
    return seen


# --- Remittances ---------------------------------------------------------------------------


def test_remittance_fields_as_the_screen_shows(client, dm_clerk, pound_keeper, pound):
    sent = _remittance(pound, pound_keeper, 1, amount="1234.50")
    done = _remittance(pound, pound_keeper, 2)
    office_confirm(done, dm_clerk)

    body = client.get(REMITTANCES, **bearer(dm_clerk)).json()
    rows = {r["id"]: r for r in body["results"]}

    assert rows[sent.pk]["amount"] == "1234.50"
    assert rows[sent.pk]["challan_number"] == "TR-1"
    assert rows[sent.pk]["treasury"] == "District Treasury"
    assert rows[sent.pk]["status"] == "sent" and rows[sent.pk]["confirmed_by"] is None
    assert rows[sent.pk]["sent_by"] == pound_keeper.display_name
    assert rows[done.pk]["status"] == "confirmed"
    assert rows[done.pk]["confirmed_by"] == dm_clerk.display_name
    assert "+05:30" in rows[done.pk]["confirmed_at"]
    one = client.get(f"{REMITTANCES}{sent.pk}/", **bearer(dm_clerk)).json()
    assert one == rows[sent.pk]


def office_confirm(remittance, by):
    Remittance.objects.filter(pk=remittance.pk).update(
        status=Remittance.Status.CONFIRMED, confirmed_by=by, confirmed_at=timezone.now()
    )


@pytest.mark.parametrize("role", ["pound_keeper", "dm_clerk", "magistrate", "auditor"])
def test_remittances_scope_per_role(client, role_users, role, pound, other_pound):
    own = _remittance(pound, role_users["pound_keeper"], 1)
    theirs = _remittance(other_pound, role_users["outsider"], 2)
    headers = bearer(role_users[role])

    listed = [r["id"] for r in client.get(REMITTANCES, **headers).json()["results"]]

    assert listed == [own.pk]
    assert client.get(f"{REMITTANCES}{own.pk}/", **headers).status_code == 200
    _problem(client.get(f"{REMITTANCES}{theirs.pk}/", **headers), 404)
    _problem(client.get(f"{REMITTANCES}?pound={other_pound.pk}", **headers), 404)


@pytest.mark.parametrize("role", ["police_officer", "administrator"])
def test_remittances_need_the_ledger(client, role_users, role, pound):
    own = _remittance(pound, role_users["pound_keeper"], 1)
    headers = bearer(role_users[role])
    _problem(client.get(REMITTANCES, **headers), 404)
    _problem(client.get(f"{REMITTANCES}{own.pk}/", **headers), 404)


def test_remittance_pages_give_each_row_once(client, dm_clerk, pound_keeper, pound, monkeypatch):
    monkeypatch.setattr("api.office.PAGE_SIZE", 2)
    made = [_remittance(pound, pound_keeper, n).pk for n in range(7)]
    seen = _all_pages(client, REMITTANCES, bearer(dm_clerk))
    assert sorted(seen) == sorted(made) and len(seen) == len(set(seen))


def test_remittances_filter_by_status_and_pound(client, dm_clerk, pound_keeper, pound, district):
    second = PoundFactory(district=district)
    sent = _remittance(pound, pound_keeper, 1)
    done = _remittance(second, pound_keeper, 2)
    office_confirm(done, dm_clerk)
    headers = bearer(dm_clerk)

    def ids(query):
        return [r["id"] for r in client.get(f"{REMITTANCES}?{query}", **headers).json()["results"]]

    assert ids("status=sent") == [sent.pk]
    assert ids("status=confirmed") == [done.pk]
    assert ids(f"pound={second.pk}") == [done.pk]


@pytest.mark.parametrize(
    "query", ["after=nonsense", "after=2026-01-01", "after=1|2", "status=lost", "pound=abc"]
)
def test_remittances_bad_input_is_400(client, dm_clerk, query):
    body = _problem(client.get(f"{REMITTANCES}?{query}", **bearer(dm_clerk)), 400)
    assert body["errors"][0]["field"] in {"after", "status", "pound"}


@pytest.mark.parametrize("rows", [2, 9])
def test_remittance_queries_do_not_grow(
    client, dm_clerk, pound_keeper, pound, rows, django_assert_max_num_queries
):
    for n in range(rows):
        office_confirm(_remittance(pound, pound_keeper, n), dm_clerk)
    headers = bearer(dm_clerk)
    # The token, its last use, the grants, the pounds, the page (with its people).
    with django_assert_max_num_queries(8):
        assert len(client.get(REMITTANCES, **headers).json()["results"]) == rows


def test_remittances_etag(client, dm_clerk, pound_keeper, pound):
    _remittance(pound, pound_keeper, 1)
    headers = bearer(dm_clerk)
    first = client.get(REMITTANCES, **headers)
    assert client.get(REMITTANCES, HTTP_IF_NONE_MATCH=first["ETag"], **headers).status_code == 304


# --- The surplus register and claims ---------------------------------------------------------


@pytest.fixture
def selling(pound, pound_keeper, police_officer, district, tariffs):
    conditions(district)

    def add(heads):
        entry = sell(pound, pound_keeper, police_officer, heads=heads)
        return list(
            SurplusDeposit.objects.filter(sale__lot__animals__impoundment=entry).order_by("pk")
        )

    return add


def _claim(deposit, by, **kw):
    return office.file_surplus_claim(
        deposit=deposit,
        by=by,
        claimant_name="Shyam Lal",
        claimant_address="Samesi",
        capacity="owner",
        proof="Ear-tag record",
        filed_on=timezone.localdate(),
        **kw,
    )


def test_surplus_deposit_and_its_claim(client, selling, dm_clerk, pound_keeper, outsider):
    awaiting, held = selling(2)
    held = office.receive_surplus(deposit=held, by=dm_clerk, received_on=timezone.localdate())
    claim = _claim(held, dm_clerk)

    body = client.get(SURPLUS, **bearer(dm_clerk)).json()
    rows = {d["id"]: d for d in body["results"]}

    assert set(rows) == {awaiting.pk, held.pk}
    assert rows[awaiting.pk]["status"] == "awaiting" and rows[awaiting.pk]["expires_on"] is None
    assert rows[held.pk]["status"] == "held"
    assert rows[held.pk]["amount"] == format(held.amount, ".2f")
    assert rows[held.pk]["expires_on"] == held.expires_on.isoformat()
    assert [c["id"] for c in rows[held.pk]["claims"]] == [claim.pk]
    assert rows[held.pk]["claims"][0]["status"] == "pending"
    assert rows[held.pk]["claims"][0]["capacity"] == "Owner"
    # The keeper sees his pound's register, as on the screen; the other district's keeper not.
    keeper = client.get(f"{SURPLUS}{held.pk}/", **bearer(pound_keeper)).json()
    assert keeper == rows[held.pk]
    _problem(client.get(f"{SURPLUS}{held.pk}/", **bearer(outsider)), 404)
    assert client.get(SURPLUS, **bearer(outsider)).json()["results"] == []
    assert client.get(f"{CLAIMS}{claim.pk}/", **bearer(dm_clerk)).json()["status"] == "pending"
    _problem(client.get(f"{CLAIMS}{claim.pk}/", **bearer(outsider)), 404)
    assert client.get(CLAIMS, **bearer(outsider)).json()["results"] == []


def test_surplus_lists_as_the_screen(client, selling, dm_clerk):
    awaiting, held = selling(2)
    office.receive_surplus(deposit=held, by=dm_clerk, received_on=timezone.localdate())
    headers = bearer(dm_clerk)

    def ids(query):
        return [d["id"] for d in client.get(f"{SURPLUS}?{query}", **headers).json()["results"]]

    assert ids("list=awaiting") == [awaiting.pk]
    assert ids("list=held") == [held.pk]
    assert ids("list=closed") == []


def test_surplus_pages_give_each_row_once(client, selling, dm_clerk, monkeypatch):
    monkeypatch.setattr("api.office.SURPLUS_PAGE", 2)
    made = [d.pk for d in selling(5)]
    for d in SurplusDeposit.objects.filter(pk__in=made[:3]):
        office.receive_surplus(deposit=d, by=dm_clerk, received_on=timezone.localdate())
    headers = bearer(dm_clerk)
    seen = _all_pages(client, SURPLUS, headers)
    assert sorted(seen) == sorted(made) and len(seen) == len(set(seen))
    held = _all_pages(client, f"{SURPLUS}?list=held", headers)
    assert sorted(held) == sorted(made[:3])


@pytest.mark.parametrize(
    "query",
    [
        "list=everything",
        "expires_by=2026-02-30",
        "pound=abc",
        "after=1|2",
        "list=held&after=2026-01-01|5",  # the held list pages by expiry, sale date and id
    ],
)
def test_surplus_bad_input_is_400(client, dm_clerk, query):
    body = _problem(client.get(f"{SURPLUS}?{query}", **bearer(dm_clerk)), 400)
    assert body["errors"] and body["errors"][0]["field"] in {"list", "expires_by", "pound", "after"}


@pytest.mark.parametrize("query", ["status=maybe", "deposit=x", "after=2026-01-01"])
def test_claims_bad_input_is_400(client, dm_clerk, query):
    _problem(client.get(f"{CLAIMS}?{query}", **bearer(dm_clerk)), 400)


def test_surplus_needs_the_ledger(client, police_officer, administrator):
    _problem(client.get(SURPLUS, **bearer(police_officer)), 404)
    _problem(client.get(CLAIMS, **bearer(administrator)), 404)


@pytest.mark.parametrize("heads", [1, 4])
def test_surplus_queries_do_not_grow(
    client, selling, dm_clerk, heads, django_assert_max_num_queries
):
    for d in selling(heads):
        _claim(
            office.receive_surplus(deposit=d, by=dm_clerk, received_on=timezone.localdate()),
            dm_clerk,
        )
    headers = bearer(dm_clerk)
    # The token, its last use, the grants, the pounds and districts, the form's pounds, the
    # page (with its sale, lot, auction and memo), its claims.
    with django_assert_max_num_queries(10):
        assert len(client.get(SURPLUS, **headers).json()["results"]) == heads
    with django_assert_max_num_queries(8):
        assert len(client.get(CLAIMS, **headers).json()["results"]) == heads


# --- The returns as JSON -------------------------------------------------------------------


def _last_month():
    last = timezone.localdate().replace(day=1) - timedelta(days=1)
    return last, datetime(last.year, last.month, 10, 11, tzinfo=IST)


@pytest.fixture
def last_month_entries(pound, pound_keeper, tariffs):
    last, at = _last_month()

    def add(count):
        for _ in range(count):
            with time_machine.travel(at + timedelta(hours=3)):  # paid that day: its money
                entry = make_entry(pound=pound, by=pound_keeper, arrived_at=at, animals=[goat()])
                pay(entry, pound_keeper)

    return last, add


def test_monthly_return_is_the_return_functions_figures(client, pound, auditor, last_month_entries):
    last, add = last_month_entries
    add(2)
    month = f"{last:%Y-%m}"

    body = client.get(f"{MONTHLY}?pound={pound.pk}&month={month}", **bearer(auditor)).json()

    figures = returns.pound_return(pound, last.year, last.month)
    assert body["totals"] == figures["totals"] and body["totals"]["impounded"] == 2
    assert body["money"] == {k: format(v, ".2f") for k, v in figures["money"].items()}
    assert Decimal(body["money"]["fines"]) > 0, body["money"]
    assert body["complete"] is True and body["issued"] is None
    goats = next(r for r in body["animals"] if r["species"] == "goat")
    assert goats["impounded"] == 2 and goats["claimed"] == 2
    # The PDF says the same, and once it is drawn the return is registered and named.
    client.force_login(auditor)
    pdf = client.get(
        reverse("office:monthly_return", args=[pound.pk, last.year, last.month, "pdf"])
    ).content
    lines = [line.split() for line in readpdf.text(pdf, layout=True).splitlines()]
    goat_line = next(line for line in lines if line and line[0] == "Goat")
    assert goat_line[1:3] == ["0", "2"]
    again = client.get(f"{MONTHLY}?pound={pound.pk}&month={month}", **bearer(auditor)).json()
    assert again["issued"] == body["number"]
    assert IssuedDocument.objects.filter(number=body["number"]).exists()


def test_district_return_is_the_return_functions_figures(
    client, pound, district, dm_clerk, last_month_entries
):
    last, add = last_month_entries
    add(3)
    url = f"{DISTRICT}?district={district.pk}&month={last:%Y-%m}"

    body = client.get(url, **bearer(dm_clerk)).json()

    pounds = type(pound).objects.filter(district=district).order_by("name")
    figures = returns.district_return(district, last.year, last.month, pounds)
    assert body["totals"] == figures["totals"] and body["totals"]["impounded"] == 3
    assert body["money"] == {k: format(v, ".2f") for k, v in figures["money"].items()}
    assert [p["pound"] for p in body["pounds"]] == [pound.pk]
    assert body["pounds"][0]["totals"] == figures["pounds"][0]["totals"]


def test_returns_scope(client, pound, other_pound, other_district, district, role_users):
    month = f"{_last_month()[0]:%Y-%m}"
    keeper, outsider = bearer(role_users["pound_keeper"]), bearer(role_users["outsider"])
    assert client.get(f"{MONTHLY}?pound={pound.pk}&month={month}", **keeper).status_code == 200
    _problem(client.get(f"{MONTHLY}?pound={pound.pk}&month={month}", **outsider), 404)
    _problem(client.get(f"{MONTHLY}?pound={other_pound.pk}", **keeper), 404)
    # The consolidation is the office's and the auditors', not a pound-keeper's.
    _problem(client.get(f"{DISTRICT}?district={district.pk}", **keeper), 404)
    clerk = bearer(role_users["dm_clerk"])
    assert client.get(f"{DISTRICT}?district={district.pk}", **clerk).status_code == 200
    _problem(client.get(f"{DISTRICT}?district={other_district.pk}", **clerk), 404)
    _problem(client.get(f"{MONTHLY}?pound={pound.pk}", **bearer(role_users["police_officer"])), 404)


@pytest.mark.parametrize(
    "query", ["month=2025-13", "month=march", "month=2999-01", "month=1800-01", "pound=", "pound=x"]
)
def test_monthly_return_bad_input_is_400(client, pound, auditor, query):
    if "pound=" not in query:
        query = f"pound={pound.pk}&{query}"
    body = _problem(client.get(f"{MONTHLY}?{query}", **bearer(auditor)), 400)
    assert body["errors"][0]["field"] in {"month", "pound"}


def test_district_return_bad_input_is_400(client, district, auditor):
    _problem(client.get(f"{DISTRICT}?district={district.pk}&month=2025-00", **bearer(auditor)), 400)
    _problem(client.get(DISTRICT, **bearer(auditor)), 400)


@pytest.mark.parametrize("count", [1, 6])
def test_returns_queries_do_not_grow(
    client, pound, district, auditor, last_month_entries, count, django_assert_max_num_queries
):
    last, add = last_month_entries
    add(count)
    headers = bearer(auditor)
    month = f"{last:%Y-%m}"
    with django_assert_max_num_queries(14):
        assert client.get(f"{MONTHLY}?pound={pound.pk}&month={month}", **headers).status_code == 200
    with django_assert_max_num_queries(16):
        response = client.get(f"{DISTRICT}?district={district.pk}&month={month}", **headers)
        assert response.json()["totals"]["impounded"] == count


# --- Tariffs on a day ------------------------------------------------------------------------


def test_tariffs_before_and_after_a_new_order(client, district, pound, pound_keeper, dm_clerk):
    old_scale, old_order = set_tariffs(district, valid_from=date(2020, 1, 1), large="500.00")
    new_scale, new_order = set_tariffs(
        district, valid_from=date(2024, 4, 1), large="650.00", by=dm_clerk
    )
    headers = bearer(pound_keeper)

    before = client.get(f"{TARIFFS}?on=2024-03-31", **headers).json()
    after = client.get(f"{TARIFFS}?on=2024-04-01&district={district.pk}", **headers).json()

    assert [s["id"] for s in before["fine_scales"]] == [old_scale.pk]
    assert [o["id"] for o in before["feeding_orders"]] == [old_order.pk]
    assert before["fine_scales"][0]["valid_to"] == "2024-03-31"
    assert before["feeding_orders"][0]["order_reference"] == old_order.order_reference
    assert before["pounds"] == [
        {
            "pound": pound.pk,
            "pound_code": pound.code,
            "fine_scale": old_scale.pk,
            "feeding_order": old_order.pk,
        }
    ]
    assert [s["id"] for s in after["fine_scales"]] == [new_scale.pk]
    assert after["pounds"][0]["feeding_order"] == new_order.pk
    amounts = {r["amount"] for r in after["feeding_orders"][0]["rates"]}
    assert "650.00" in amounts and "500.00" not in amounts
    assert {r["amount"] for r in before["feeding_orders"][0]["rates"]} >= {"500.00"}
    assert client.get(f"{TARIFFS}?on=2019-12-31", **headers).json()["pounds"][0] == {
        "pound": pound.pk,
        "pound_code": pound.code,
        "fine_scale": None,
        "feeding_order": None,
    }


def test_a_pounds_own_order_beats_the_districts(client, district, pound, dm_clerk):
    set_tariffs(district, valid_from=date(2020, 1, 1))
    second = PoundFactory(district=district)
    _scale, own = set_tariffs(
        district,
        valid_from=date(2023, 1, 1),
        large="700.00",
        by=dm_clerk,
        district_wide=False,
        pounds=[second],
    )
    body = client.get(f"{TARIFFS}?on=2024-01-01", **bearer(dm_clerk)).json()
    applies = {p["pound"]: p["feeding_order"] for p in body["pounds"]}
    assert applies[second.pk] == own.pk and applies[pound.pk] != own.pk


def test_tariffs_scope_and_bad_input(client, district, other_district, pound_keeper, auditor):
    set_tariffs(district)
    keeper = bearer(pound_keeper)
    _problem(client.get(f"{TARIFFS}?district={other_district.pk}", **keeper), 404)
    for query in ["on=2024-02-30", "on=yesterday", "on=20240101", "district=x"]:
        body = _problem(client.get(f"{TARIFFS}?{query}", **keeper), 400)
        assert body["errors"][0]["field"] in {"on", "district"}
    assert client.get(TARIFFS, **keeper).status_code == 200


@pytest.mark.parametrize("pounds", [1, 5])
def test_tariff_queries_do_not_grow(
    client, district, dm_clerk, pounds, django_assert_max_num_queries
):
    set_tariffs(district)
    for _ in range(pounds):
        PoundFactory(district=district)
    headers = bearer(dm_clerk)
    # The token, its last use, the grants, pounds and districts, the district, each kind of
    # order with its pounds and rows, the pounds of the district.
    with django_assert_max_num_queries(16):
        body = client.get(f"{TARIFFS}?district={district.pk}", **headers).json()
    assert len(body["pounds"]) == pounds


def test_schema_lists_the_office_endpoints(client):
    paths = set(client.get("/api/v1/openapi.json").json()["paths"])
    assert {
        "/api/v1/remittances/",
        "/api/v1/remittances/{pk}/",
        "/api/v1/surplus/",
        "/api/v1/surplus/{pk}/",
        "/api/v1/claims/",
        "/api/v1/claims/{pk}/",
        "/api/v1/returns/monthly/",
        "/api/v1/returns/district/",
        "/api/v1/tariffs/",
    } <= paths
