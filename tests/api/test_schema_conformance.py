"""The schema tells the truth about the records themselves (docs/api-changes.md): the fuzz of
test_schemathesis.py makes up its ids, so an operation on one record answers it a 404 nearly
every time and its 200 is hardly ever checked. Here each operation on one record is called, with
each role's token, on the records its list shows that role (the seeded data of both districts),
and every answer is checked as the fuzz checks it: the status code, the content type, the
headers and the body the schema declares, and no server error. A violation fails the test."""

import pytest
import requests
import schemathesis

from api import entries
from tests.api import test_schemathesis as fuzz
from tests.api.test_schemathesis import CHECKS, ROLES, _operations, _token_for

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
