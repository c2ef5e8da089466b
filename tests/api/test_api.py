"""The API (/api/v1/): tokens, scope like the screens, pages, ETags, the schema, problem details."""

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken, StaffEvent
from accounts.services import revoke_api_token
from tests.api.conftest import bearer
from tests.impounding.factories import make_entry

ENTRIES = "/api/v1/entries/"


def _problem(response, status):
    assert response.status_code == status
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert {"type", "title", "status", "detail"} <= set(body)
    assert body["status"] == status
    return body


def test_no_token_is_401_problem(client):
    body = _problem(client.get(ENTRIES), 401)
    assert body["title"] == "Authentication required."


def test_session_alone_is_not_accepted(client, pound_keeper):
    client.force_login(pound_keeper)
    _problem(client.get(ENTRIES), 401)


def test_unknown_token_is_401(client):
    response = client.get(ENTRIES, HTTP_AUTHORIZATION="Bearer pa_nothing")
    assert _problem(response, 401)["title"] == "The token is not valid."
    assert "invalid_token" in response["WWW-Authenticate"]


def test_revoked_token_is_401(client, pound_keeper):
    headers = bearer(pound_keeper)
    revoke_api_token(token=ApiToken.objects.get(user=pound_keeper), by=pound_keeper)
    _problem(client.get(ENTRIES, **headers), 401)


def test_good_token_reads_and_marks_last_use_once_a_minute(client, pound_keeper):
    headers = bearer(pound_keeper)
    assert client.get(ENTRIES, **headers).status_code == 200
    first = ApiToken.objects.get().last_used_at
    assert first is not None
    client.get(ENTRIES, **headers)
    assert ApiToken.objects.get().last_used_at == first  # no write per request
    with time_machine.travel(timezone.now() + timedelta(minutes=2)):
        client.get(ENTRIES, **headers)
    assert ApiToken.objects.get().last_used_at > first


def test_problem_is_translated_by_accept_language(client):
    body = _problem(client.get(ENTRIES, HTTP_ACCEPT_LANGUAGE="hi"), 401)
    assert body["title"] != "Authentication required."


def test_keeper_sees_own_pound_and_other_district_is_404(
    client, pound_keeper, outsider, pound, other_pound
):
    own = make_entry(pound=pound, by=pound_keeper)
    theirs = make_entry(pound=other_pound, by=outsider)
    headers = bearer(pound_keeper)

    listed = client.get(ENTRIES, **headers).json()["results"]

    assert [e["id"] for e in listed] == [own.pk]
    assert listed[0]["animals"][0]["state"] == "impounded"
    assert "+05:30" in listed[0]["arrived_at"]
    assert client.get(f"{ENTRIES}{own.pk}/", **headers).status_code == 200
    _problem(client.get(f"{ENTRIES}{theirs.pk}/", **headers), 404)


def test_auditor_sees_every_pound_of_his_district(client, auditor, pound, pound_keeper):
    from accounts.roles import Role
    from tests.accounts.factories import PoundFactory, staff

    second = PoundFactory(district=pound.district)
    keeper2 = staff(Role.POUND_KEEPER, pound=second)
    ids = {make_entry(pound=pound, by=pound_keeper).pk, make_entry(pound=second, by=keeper2).pk}

    listed = client.get(ENTRIES, **bearer(auditor)).json()["results"]

    assert {e["id"] for e in listed} == ids


def test_administrator_without_records_gets_404(client, administrator):
    _problem(client.get(ENTRIES, **bearer(administrator)), 404)


def test_entry_has_events_codes_time_and_section(client, pound_keeper, pound):
    entry = make_entry(pound=pound, by=pound_keeper)
    body = client.get(f"{ENTRIES}{entry.pk}/", **bearer(pound_keeper)).json()
    assert body["events"] and {"action", "section", "at"} == set(body["events"][0])


def test_pages_give_each_row_once(client, pound_keeper, pound, settings, monkeypatch):
    monkeypatch.setattr("api.entries.REGISTER_PAGE", 2)
    made = {make_entry(pound=pound, by=pound_keeper).pk for _ in range(5)}
    headers, seen, url = bearer(pound_keeper), [], ENTRIES
    while url:
        body = client.get(url, **headers).json()
        seen += [e["id"] for e in body["results"]]
        url = body["next"]
    assert sorted(seen) == sorted(made)


def test_pages_between_dates_go_by_arrival(client, pound_keeper, pound, monkeypatch):
    monkeypatch.setattr("api.entries.REGISTER_PAGE", 2)
    base = timezone.now() - timedelta(days=2)
    made = [
        make_entry(pound=pound, by=pound_keeper, arrived_at=base - timedelta(minutes=i)).pk
        for i in range(5)
    ]
    since = (timezone.localdate() - timedelta(days=5)).isoformat()
    headers, seen, url = bearer(pound_keeper), [], f"{ENTRIES}?date_from={since}"
    while url:
        body = client.get(url, **headers).json()
        seen += [e["id"] for e in body["results"]]
        url = body["next"]
    assert seen == made
    # The number's cursor is not one of this order's.
    _problem(client.get(f"{ENTRIES}?date_from={since}&after=2026|1|1", **headers), 400)


@pytest.mark.parametrize(
    "query", ["after=nonsense", "date_from=2026-13-45", "pound=abc", "after=1|2"]
)
def test_bad_input_is_400_with_field_errors(client, pound_keeper, query):
    body = _problem(client.get(f"{ENTRIES}?{query}", **bearer(pound_keeper)), 400)
    assert body["errors"] and {"field", "message"} == set(body["errors"][0])


@pytest.mark.parametrize("path", ["entries/abc/", "entries/99999999999999999999/", "nowhere/"])
def test_bad_path_is_404_problem(client, pound_keeper, path):
    _problem(client.get(f"/api/v1/{path}", **bearer(pound_keeper)), 404)


def test_etag_gives_304(client, pound_keeper, pound):
    make_entry(pound=pound, by=pound_keeper)
    headers = bearer(pound_keeper)
    first = client.get(ENTRIES, **headers)
    again = client.get(ENTRIES, HTTP_IF_NONE_MATCH=first["ETag"], **headers)
    assert again.status_code == 304 and again.content == b""


@pytest.mark.parametrize("rows", [2, 8])
def test_queries_do_not_grow_with_rows(
    client, pound_keeper, pound, rows, django_assert_max_num_queries
):
    for _ in range(rows):
        make_entry(pound=pound, by=pound_keeper)
    headers = bearer(pound_keeper)
    # The token, its last use, its requests this minute and (a new minute) the old counts
    # cleared, the grants, the pounds, the page, its animals.
    with django_assert_max_num_queries(8):
        assert len(client.get(ENTRIES, **headers).json()["results"]) == rows


def test_schema_is_openapi_31_and_lists_every_endpoint(client):
    schema = client.get("/api/v1/openapi.json").json()
    assert schema["openapi"].startswith("3.1")
    # Among them (each read module tests its own paths too):
    assert set(schema["paths"]) >= {
        "/api/v1/entries/",
        "/api/v1/entries/{pk}/",
        "/api/v1/entries/{pk}/release/",
        "/api/v1/verify/{code}/",
        "/api/v1/board/",
        "/api/v1/reports/",
        "/api/v1/notices/{pk}/proclamations/",
        "/api/v1/remittances/{pk}/confirm/",
        "/api/v1/remittances/",
        "/api/v1/remittances/{pk}/",
        "/api/v1/surplus/",
        "/api/v1/surplus/{pk}/",
        "/api/v1/claims/",
        "/api/v1/claims/{pk}/",
        "/api/v1/returns/monthly/",
        "/api/v1/returns/district/",
        "/api/v1/tariffs/",
        "/api/v1/animals/{pk}/photo/",
        "/api/v1/receipts/",
        "/api/v1/receipts/{pk}/",
        "/api/v1/deposits/",
        "/api/v1/deposits/{pk}/",
    }


def test_docs_page_loads_nothing_from_outside(client):
    response = client.get(reverse("api:openapi-view"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "http://" not in html and "https://" not in html
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in html
    assert "script-src" in response["Content-Security-Policy"]


def test_verify_and_board_need_no_token(client):
    _problem(client.get("/api/v1/verify/AAAAAAAAAAAAAAAAAAAA/"), 404)
    board = client.get("/api/v1/board/")
    assert board.status_code == 200 and board.json() == {"results": [], "next": None}


def test_token_page_shows_secret_once_and_replay_makes_one(client, pound_keeper):
    client.force_login(pound_keeper)
    url = reverse("accounts:api_tokens")
    form = {"name": "dashboard", "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a11"}
    first = client.post(url, form)
    again = client.post(url, form)
    assert "pa_" in first.content.decode()
    assert again.status_code == 302
    assert ApiToken.objects.count() == 1
    assert StaffEvent.objects.filter(action="token_created").count() == 1
    assert len(ApiToken.objects.get().digest) == 64


def test_token_revoke_is_own_only_and_post(client, pound_keeper, outsider):
    bearer(pound_keeper)
    token = ApiToken.objects.get()
    client.force_login(outsider)
    assert client.post(reverse("accounts:api_token_revoke", args=[token.pk])).status_code == 404
    client.force_login(pound_keeper)
    url = reverse("accounts:api_token_revoke", args=[token.pk])
    assert client.get(url).status_code == 405
    assert client.post(url).status_code == 302
    assert ApiToken.objects.get().revoked_at is not None
