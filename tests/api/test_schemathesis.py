"""Schemathesis against the live server (ADR 0040): every operation the schema lists at run
time, with a token of each role (and none), over data in two districts.

Checks on every response: no 5xx, the status code, content type, headers and body the schema
declares, and no cross-district leak: a response to a token of the home district never names the
other district's records (its register numbers, documents, pound and district names, and the
ids of its pound, district and police station, which are made distinctive). Public operations
(the notice board, verification) show every district by design and are not leak-checked, and
neither is the administrator, whose State-wide grants (reports) reach both districts.

A write operation is picked up like a read: when the schema asks for an `Idempotency-Key` header,
each positive case sends a new UUID there. The number of cases per operation is set so that the
module stays within its time budget however many operations the schema grows to
(CASE_BUDGET over operations and tokens). The counts land in the terminal summary and in
test-artifacts/schemathesis/<token>.txt.

The ids the fuzz makes up name no record, so an operation on one record answers it a 404 nearly
every time: tests/api/test_schema_conformance.py checks the same way each such operation on the
records the lists show.
"""

import itertools
import json
import time
import uuid
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import IssuedDocument
from accounts.roles import Role
from accounts.scoping import visible_district_ids
from accounts.services import create_api_token
from impounding.models import Impoundment
from tests.accounts.factories import (
    DistrictFactory,
    PoliceStationFactory,
    PoundFactory,
    PoundVillageFactory,
    staff,
)
from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
from tests.impounding.factories import cow, goat, make_entry, pay, set_tariffs
from tests.office.factories import received_surplus, remit

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(230)]

ROLES = ["pound_keeper", "police_officer", "dm_clerk", "magistrate", "auditor", "administrator"]
TOKENS = [*ROLES, "anonymous"]
# Cases across all operations, tokens and both generation modes: a case costs about 45 ms of CPU
# (the generation, the request, the live server's answer), so the module's two workers spend
# about a minute each on them. An operation that needs a token is fuzzed in full with each role's
# token and only touched without one (every answer is a 401); a public one the other way round.
CASE_BUDGET = 3000
MIN_EXAMPLES, MAX_EXAMPLES = 5, 50
# A test stops sending cases after this many seconds (on a machine far slower than CI's), so
# the seven stay within four minutes on two workers; its summary says how many it did not send.
SECONDS_PER_TOKEN = 60
# The other district's ids: far above anything the sequences give in a test database.
OTHER_IDS = {"district": 970_001, "police_station": 970_002, "pound": 970_003}
IDEMPOTENCY_KEY = "idempotency-key"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "schemathesis"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def _seed(pound, keeper, officer, clerk):
    """Records of every floor in one pound: an entry in the pound, a release on payment (a
    receipt), a s.14 report and notice (the board), a sale whose surplus the office holds,
    and a remittance of the fines."""
    set_tariffs(pound.district, by=clerk)
    conditions(pound.district, by=clerk)
    make_entry(pound=pound, by=keeper, animals=[cow(), goat()])
    pay(make_entry(pound=pound, by=keeper), keeper)
    report_and_notice(
        unclaimed_entry(pound=pound, keeper=keeper, days_ago=12),
        keeper,
        officer,
        sent_days_ago=3,
        posted_days_ago=2,
    )
    received_surplus(pound, keeper, officer, clerk)
    remit(pound, keeper, "20000.00")


@pytest.fixture
def two_districts(state, district, pound, pound_keeper, police_officer, dm_clerk):
    """The home district's data, and the other district's, with markers to look for."""
    other = DistrictFactory(
        pk=OTHER_IDS["district"],
        state=state,
        code="leakb",
        name="Leakistan District",
        name_hi="लीकिस्तान ज़िला",
    )
    station = PoliceStationFactory(
        pk=OTHER_IDS["police_station"], district=other, name="Leakganj Thana"
    )
    other_pound = PoundFactory(
        pk=OTHER_IDS["pound"],
        district=other,
        nearest_police_station=station,
        code="leakb",
        name="Leakpur Pound",
        name_hi="लीकपुर कांजी हाउस",
    )
    PoundVillageFactory(pound=other_pound)
    keeper = staff(Role.POUND_KEEPER, "leak_keeper", pound=other_pound)
    officer = staff(Role.POLICE_OFFICER, "leak_officer", police_station=station)
    clerk = staff(Role.DM_CLERK, "leak_clerk", district=other)
    _seed(pound, pound_keeper, police_officer, dm_clerk)
    _seed(other_pound, keeper, officer, clerk)
    entries = Impoundment.objects.filter(pound__district=other)
    numbers = IssuedDocument.objects.filter(district=other).exclude(number="")
    markers = {
        "leakb",
        "leakistan",
        "leakpur",
        "leakganj",
        other.name_hi,
        other_pound.name_hi,
        *(n.lower() for n in entries.values_list("register_number", flat=True)),
        *(n.lower() for n in numbers.values_list("number", flat=True)),
    }
    return other, markers


def _leaks(value, markers, ids, where="$"):
    """Where in a JSON value the other district shows: a marker in a string, or its id."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaks(key, markers, ids, f"{where} key")
            yield from _leaks(item, markers, ids, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaks(item, markers, ids, f"{where}[{i}]")
    elif isinstance(value, bool):
        return
    elif isinstance(value, int) and value in ids:
        yield f"{where} = {value}"
    elif isinstance(value, str):
        lowered = value.lower()
        for marker in markers:
            if marker in lowered:
                yield f"{where} contains {marker!r}"


def leak_check(markers):
    ids = set(OTHER_IDS.values())

    def no_cross_district_leak(ctx, response, case):
        """A home-district token's answer names nothing of the other district."""
        if not _needs_token(case.operation):
            return None
        text = response.content.decode("utf-8", "replace")
        try:
            body = json.loads(text) if text else None
        except ValueError:
            body = text
        found = list(_leaks(body, markers, ids))
        found += [f"header {k}" for k, v in response.headers.items() if _has_marker(v, markers)]
        if found:
            raise AssertionError("The other district's records leaked: " + "; ".join(found[:5]))
        return None

    return no_cross_district_leak


def _has_marker(value, markers):
    text = " ".join(value) if isinstance(value, list) else str(value)
    return any(m in text.lower() for m in markers)


def _needs_token(operation):
    security = operation.definition.raw.get("security", operation.schema.raw_schema.get("security"))
    return bool(security)


def _wants_idempotency_key(operation):
    return any(
        p.get("in") == "header" and p.get("name", "").lower() == IDEMPOTENCY_KEY
        for p in operation.definition.raw.get("parameters", [])
    )


def _examples(operations):
    """Cases per operation and mode for a token that fuzzes it in full."""
    secured = sum(1 for operation in operations if _needs_token(operation))
    units = 2 * (secured * len(ROLES) + (len(operations) - secured))
    return max(MIN_EXAMPLES, min(MAX_EXAMPLES, CASE_BUDGET // max(1, units)))


def _with_new_key(case):
    """A positive case of a write: a new Idempotency-Key, so that no case replays another."""
    if case.headers is None:
        case.headers = {}
    case.headers["Idempotency-Key"] = str(uuid.uuid4())


def _fuzz(operation, mode, examples, *, run, stop_at):
    """Send up to `examples` cases of one operation in one mode; return (sent, not sent)."""
    counts = {"sent": 0, "late": 0}
    key = _wants_idempotency_key(operation) and mode is GenerationMode.POSITIVE

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    def one(case):
        if time.monotonic() > stop_at:
            counts["late"] += 1
            return
        if key:
            _with_new_key(case)
        counts["sent"] += 1
        run(case)

    try:
        one()
    except Unsatisfiable:  # no invalid value exists, e.g. for a free string in the path
        assert mode is GenerationMode.NEGATIVE
    return counts["sent"], counts["late"]


def _operations(schema):
    operations = []
    for result in schema.get_all_operations():
        if hasattr(result, "err"):
            raise result.err()
        operations.append(result.ok())
    return operations


def _fuzz_all(base_url, operations, *, headers, checks, examples, modes=tuple(GenerationMode)):
    """Every operation in every mode, `examples(operation)` cases each; every failure is kept."""
    started = time.monotonic()
    sent, late, failures = 0, 0, []
    with requests.Session() as session:

        def run(case):
            case.call_and_validate(
                base_url=base_url, session=session, headers=headers, checks=checks, timeout=30
            )

        for operation, mode in itertools.product(operations, modes):
            try:
                counts = _fuzz(
                    operation,
                    mode,
                    examples(operation),
                    run=run,
                    stop_at=started + SECONDS_PER_TOKEN,
                )
            except (Exception, BaseExceptionGroup) as exc:  # try every operation, report all
                failures.append(f"{operation.label} ({mode.value}):\n{exc}")
            else:
                sent, late = sent + counts[0], late + counts[1]
    return sent, late, failures, time.monotonic() - started


def _token_for(user):
    return {"Authorization": f"Bearer {create_api_token(user=user, name='fuzz')[1]}"}


@pytest.mark.parametrize("token", TOKENS)
def test_every_operation_with_each_role(
    token, request, live_server, two_districts, record_property, settings
):
    # The per-token limit is tested on its own (test_rate_limits); here it would answer most
    # cases with a 429 before they reach the operation.
    settings.API_RATE_PER_MINUTE = 1_000_000
    other, markers = two_districts
    headers, checks = {}, list(CHECKS)
    if token != "anonymous":
        user = request.getfixturevalue(token)
        headers = _token_for(user)
        # The administrator's grants reach every district (its reports are State-wide): only
        # the district roles have another district to keep out.
        assert (other.pk in visible_district_ids(user)) == (token == "administrator")
        if token != "administrator":
            checks.append(leak_check(markers))
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/v1/openapi.json")
    operations = _operations(schema)
    full = _examples(operations)

    def examples(operation):
        return full if _needs_token(operation) == (token != "anonymous") else MIN_EXAMPLES

    cases, late, failures, seconds = _fuzz_all(
        live_server.url, operations, headers=headers, checks=checks, examples=examples
    )

    summary = f"{token}: {len(operations)} operations, {cases} cases, {len(failures)} failed"
    if late:
        summary += f", {late} cases not sent (past {SECONDS_PER_TOKEN} s)"
    record_property("schemathesis_operations", len(operations))
    record_property("schemathesis_cases", cases)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{token}.txt").write_text(f"{summary}, {seconds:.1f} s\n")
    assert not failures, summary + "\n\n" + "\n\n".join(failures)


def test_the_leak_check_catches_an_unscoped_register(
    live_server, two_districts, pound_keeper, monkeypatch
):
    """The check above fails when the register forgets its scope."""
    other, markers = two_districts
    monkeypatch.setattr("api.entries._scoped", lambda user: Impoundment.objects.all())
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/v1/openapi.json")
    entries = [op for op in _operations(schema) if op.path == "/api/v1/entries/"]

    _sent, _late, failures, _seconds = _fuzz_all(
        live_server.url,
        entries,
        headers=_token_for(pound_keeper),
        checks=[leak_check(markers)],
        examples=lambda operation: MIN_EXAMPLES,
        modes=(GenerationMode.POSITIVE,),
    )

    assert len(failures) == 1
    assert "The other district's records leaked" in failures[0]
    assert "leakb/" in failures[0]
