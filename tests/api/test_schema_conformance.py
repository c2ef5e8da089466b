"""The schema tells the truth about the records themselves (docs/api-changes.md): the fuzz of
test_schemathesis.py makes up its ids, so an operation on one record answers it a 404 nearly
every time and its 200 is hardly ever checked. Here each operation on one record is called, with
each role's token, on the records its list shows that role (the seeded data of both districts),
and every answer is checked as the fuzz checks it: the status code, the content type, the
headers and the body the schema declares, and no server error. A violation fails the test.

The fuzz's writes hardly ever succeed either (a made-up body breaks a rule of the Act first), so
each write operation (POST, PUT, PATCH) is also called here with a valid body built from the
seeded records, with the token of each role that may call it: it must answer 2xx, and its answer
is checked the same way. WRITES names how each is called; NOT_CALLED would name any the schema
lists that cannot be, with the reason, and the test fails on an operation in neither."""

import uuid

import pytest
import requests
import schemathesis
from django.utils import timezone

from accounts.roles import ROLE_PERMISSIONS, Permission, Role
from api import entries, writes
from auctions.models import Notice
from impounding.models import AnimalState, Impoundment
from tests.api import test_schemathesis as fuzz
from tests.api.test_intake_api import entry_body, release_body
from tests.api.test_schemathesis import CHECKS, ROLES, _operations, _token_for
from tests.auctions.factories import unclaimed_entry
from tests.impounding.factories import cow, make_entry
from tests.office.factories import fines_collected, remit

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(230)]

two_districts = fuzz.two_districts  # the fixture: both districts' records
# Records of each list tried per operation and role: the first few, as they come.
PER_LIST = 10


def _list_path(path):
    """The list an operation on one record takes its ids from: /x/{pk}/... -> /x/."""
    head, sep, _rest = path.partition("{pk}/")
    return head if sep else None


def _items(body):
    if isinstance(body, dict):
        body = body.get("items", body.get("results", []))
    return body if isinstance(body, list) else []


def _ids(session, base_url, path, headers):
    answer = session.get(base_url + path, headers=headers, timeout=30)
    if answer.status_code != 200:
        return []
    return [item["id"] for item in _items(answer.json())[:PER_LIST] if "id" in item]


# The administrator reads no list of records (only the State-wide returns): nothing to try.
READERS = [role for role in ROLES if role != "administrator"]


@pytest.mark.parametrize("token", READERS)
def test_each_record_answers_as_the_schema_declares(
    token, request, live_server, two_districts, settings
):
    settings.API_RATE_PER_MINUTE = 1_000_000
    headers = _token_for(request.getfixturevalue(token))
    tried, failures = _try_records(live_server.url, headers)
    assert tried, f"{token}: no record of any list was tried"
    assert not failures, f"{token}: {len(failures)} failed\n\n" + "\n\n".join(failures)


def test_the_check_catches_an_answer_the_schema_does_not_declare(
    live_server, two_districts, pound_keeper, monkeypatch, settings
):
    """An entry's dues without their `rule`: the check above fails."""
    settings.API_RATE_PER_MINUTE = 1_000_000
    dues = entries._dues

    def without_rule(animals):
        totals, lines, problem = dues(animals)
        return (
            ({k: v for k, v in totals.items() if k != "rule"} if totals else totals),
            lines,
            problem,
        )

    monkeypatch.setattr("api.entries._dues", without_rule)
    _tried, failures = _try_records(live_server.url, _token_for(pound_keeper))

    assert failures and all("/entries/{pk}/" in f for f in failures)
    assert "Response violates schema" in failures[0]


def _try_records(base_url, headers):
    """(records tried, failures): each operation on one record, on the records its list shows."""
    schema = schemathesis.openapi.from_url(f"{base_url}/api/v1/openapi.json")
    one_record = [
        op for op in _operations(schema) if op.method.upper() == "GET" and _list_path(op.path)
    ]
    tried, failures = 0, []
    with requests.Session() as session:
        for operation in one_record:
            for pk in _ids(session, base_url, _list_path(operation.path), headers):
                case = operation.Case(path_parameters={"pk": pk})
                tried += 1
                try:
                    case.call_and_validate(
                        base_url=base_url,
                        session=session,
                        headers=headers,
                        checks=CHECKS,
                        timeout=30,
                    )
                except (Exception, BaseExceptionGroup) as exc:  # report every operation's
                    failures.append(f"{operation.label} pk={pk}:\n{exc}")
    return tried, failures


# --- The writes, with valid bodies built from the seeded records ---------------------------------


def _keeper_and_pound(request):
    """The home district's keeper and pound, whose records the seed made."""
    return request.getfixturevalue("pound_keeper"), request.getfixturevalue("pound")


def _new_entry(request):
    return {}, entry_body()


def _release(request):
    """The pound's first entry with every animal still in it and no s.14 report."""
    _keeper, pound = _keeper_and_pound(request)
    entry = (
        Impoundment.objects.filter(pound=pound, reports__isnull=True)
        .exclude(animals__state__in=[s for s in AnimalState.values if s != AnimalState.IMPOUNDED])
        .order_by("pk")
        .first()
    )
    return {"pk": entry.pk}, release_body(entry)


def _report(request):
    """An entry of the pound unclaimed for ten days, its report not sent."""
    keeper, pound = _keeper_and_pound(request)
    return {}, {"entry": unclaimed_entry(pound=pound, keeper=keeper, days_ago=10).pk}


def _proclamation(request):
    _keeper, pound = _keeper_and_pound(request)
    notice = Notice.objects.filter(pound=pound).order_by("pk").first()
    body = {
        "channel": "drum_village",
        "made_on": timezone.localdate().isoformat(),
        "place": "Chaupal",
        "made_by": "Ram Lal, chowkidar",
    }
    return {"pk": notice.pk}, body


def _confirmation(request):
    """A remittance of fines the keeper sent, for this user to confirm (one each)."""
    keeper, pound = _keeper_and_pound(request)
    fines_collected(pound, keeper)
    sent = remit(pound, keeper, "100.00", challan_number=f"CH-{uuid.uuid4().hex[:8]}")
    return {"pk": sent.pk}, {"challan_number": sent.challan_number, "checked": True}


def _feeding(request):
    """A round for one animal brought in for it, so that each call has one not yet fed."""
    keeper, pound = _keeper_and_pound(request)
    make_entry(pound=pound, by=keeper, animals=[cow()])
    body = {"date": timezone.localdate().isoformat(), "fodder": "Straw", "animals_fed": 1}
    return {"pk": pound.pk}, body


def _custody_event(request):
    keeper, pound = _keeper_and_pound(request)
    animal = make_entry(pound=pound, by=keeper, animals=[cow()]).animals.get()
    body = {"kind": "death", "occurred_at": timezone.now().isoformat(), "remarks": "Snake bite"}
    return {"pk": animal.pk}, body


# (method, path): (the permission its screen asks, how to build the call).
WRITES = {
    ("POST", "/api/v1/pounds/{pk}/feeding/"): (Permission.RECORD_CUSTODY, _feeding),
    ("POST", "/api/v1/animals/{pk}/custody-events/"): (Permission.RECORD_CUSTODY, _custody_event),
    ("POST", "/api/v1/entries/"): (Permission.RECORD_IMPOUNDMENT, _new_entry),
    ("POST", "/api/v1/entries/{pk}/release/"): (Permission.RELEASE_ANIMAL, _release),
    ("POST", "/api/v1/reports/"): (Permission.SEND_REPORT, _report),
    ("POST", "/api/v1/notices/{pk}/proclamations/"): (Permission.HANDLE_UNCLAIMED, _proclamation),
    ("POST", "/api/v1/remittances/{pk}/confirm/"): (Permission.PREPARE_ORDERS, _confirmation),
}
# (method, path): why it is not called with a valid body. Empty: every write is.
NOT_CALLED: dict[tuple[str, str], str] = {
    ("POST", "/api/v1/entries/{pk}/photos/"): "multipart, not JSON: tests/api/test_field_api.py "
    "sends photos and checks the answers",
}


def _callers(permission):
    return [role for role in ROLES if permission in ROLE_PERMISSIONS[Role(role)]]


def _writes(schema):
    return [op for op in _operations(schema) if op.method.upper() in ("POST", "PUT", "PATCH")]


def _call_writes(base_url, request, *, only=None):
    """(calls made, failures): each write, with each role that may call it, on a valid body."""
    schema = schemathesis.openapi.from_url(f"{base_url}/api/v1/openapi.json")
    calls, failures = [], []
    with requests.Session() as session:
        for operation in _writes(schema):
            key = (operation.method.upper(), operation.path)
            if key in NOT_CALLED or (only and key != only):
                continue
            permission, build = WRITES[key]
            for role in _callers(permission):
                user = request.getfixturevalue(role)
                path_parameters, body = build(request)
                case = operation.Case(
                    path_parameters=path_parameters or None,
                    body=body,
                    headers={"Idempotency-Key": str(uuid.uuid4())},
                    media_type="application/json",
                )
                calls.append(f"{operation.label} as {role}")
                try:
                    answer = case.call_and_validate(
                        base_url=base_url,
                        session=session,
                        headers=_token_for(user),
                        checks=CHECKS,
                        timeout=30,
                    )
                    assert 200 <= answer.status_code < 300, (answer.status_code, answer.text)
                except (Exception, BaseExceptionGroup) as exc:  # report every operation's
                    failures.append(f"{operation.label} as {role}:\n{exc}")
    return calls, failures


def test_every_write_is_called_or_says_why_not(live_server):
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/v1/openapi.json")
    listed = {(op.method.upper(), op.path) for op in _writes(schema)}
    assert listed, "the schema lists no write"
    assert not listed - set(WRITES) - set(NOT_CALLED), "a write neither called nor excused"
    assert not (set(WRITES) | set(NOT_CALLED)) - listed, "a write the schema no longer lists"
    assert not set(WRITES) & set(NOT_CALLED)
    for permission, _build in WRITES.values():
        assert _callers(permission), f"no role of the fixtures holds {permission}"


def test_each_write_answers_2xx_as_the_schema_declares(
    request, live_server, two_districts, settings
):
    settings.API_RATE_PER_MINUTE = 1_000_000
    calls, failures = _call_writes(live_server.url, request)
    expected = sum(len(_callers(permission)) for permission, _build in WRITES.values())
    assert len(calls) == expected, calls
    assert not failures, f"{len(failures)} of {len(calls)} failed\n\n" + "\n\n".join(failures)


def test_the_check_catches_a_write_answer_the_schema_does_not_declare(
    request, live_server, two_districts, monkeypatch, settings
):
    """A proclamation's answer without its `message`: the check above fails."""
    settings.API_RATE_PER_MINUTE = 1_000_000
    answer = writes._proclamation
    monkeypatch.setattr(
        "api.writes._proclamation", lambda p: {k: v for k, v in answer(p).items() if k != "message"}
    )
    only = ("POST", "/api/v1/notices/{pk}/proclamations/")
    calls, failures = _call_writes(live_server.url, request, only=only)

    assert calls and len(failures) == len(calls)
    assert "Response violates schema" in failures[0]
