"""A replayed Idempotency-Key does not count against the token's requests a minute (ASVS 5.0
L2 finding): a client recovering from a crash retries its writes and gets their first answers
without locking itself out; the replays are counted apart, so that they cannot run without end."""

import json

import pytest
from django.utils import timezone

from api.idempotency import HEADER
from tests.api.conftest import bearer
from tests.api.test_intake_api import entry_body

ENTRIES = "/api/v1/entries/"
KEY = f"HTTP_{HEADER.upper().replace('-', '_')}"


@pytest.fixture
def one_minute(settings, time_machine):
    settings.API_RATE_PER_MINUTE = 3
    time_machine.move_to(timezone.now().replace(second=5), tick=False)


@pytest.fixture
def token(pound_keeper):
    return bearer(pound_keeper)


def write(client, token, body, key="key-00000001"):
    return client.post(
        ENTRIES, json.dumps(body), content_type="application/json", **{KEY: key}, **token
    )


def test_replays_leave_the_minute_to_new_requests(client, pound, token, one_minute):
    body = entry_body()
    assert write(client, token, body).status_code == 201

    replays = [write(client, token, body) for _ in range(3)]

    assert [r["Idempotent-Replayed"] for r in replays] == ["true"] * 3
    assert replays[-1]["RateLimit"].startswith('"token";r=2;')
    assert client.get(ENTRIES, **token).status_code == 200
    assert client.get(ENTRIES, **token).status_code == 200
    assert client.get(ENTRIES, **token).status_code == 429


def test_a_replay_past_the_limit_still_gets_its_first_answer(client, pound, token, one_minute):
    body = entry_body()
    first = write(client, token, body)
    client.get(ENTRIES, **token)
    client.get(ENTRIES, **token)
    assert client.get(ENTRIES, **token).status_code == 429

    again = write(client, token, body)

    assert again.status_code == 201 and again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert client.get(ENTRIES, **token).status_code == 429  # new requests still wait


def test_replays_have_a_limit_of_their_own(client, pound, token, one_minute):
    body = entry_body()
    write(client, token, body)
    for _ in range(3):
        assert write(client, token, body).status_code == 201

    assert write(client, token, body).status_code == 429


def test_the_same_key_with_another_body_counts(client, pound, token, one_minute):
    write(client, token, entry_body())
    other = entry_body(seizure_place="Another field")
    assert write(client, token, other).status_code == 422
    assert client.get(ENTRIES, **token).status_code == 200

    assert client.get(ENTRIES, **token).status_code == 429
