"""Requests a minute per token (api.ratelimit), counted in PostgreSQL; and a method a path does
not answer is a 405 problem with its Allow header."""

import pytest
from django.utils import timezone

from accounts.models import RateCount
from tests.api.conftest import bearer

ENTRIES = "/api/v1/entries/"


@pytest.fixture
def limit_of_three(settings):
    settings.API_RATE_PER_MINUTE = 3


def _problem(response, status):
    assert response.status_code == status
    assert response["Content-Type"] == "application/problem+json"
    return response.json()


def test_past_the_limit_is_429_with_retry_after_and_ratelimit_fields(
    client, pound_keeper, limit_of_three
):
    headers = bearer(pound_keeper)
    left = []
    for _ in range(3):
        answer = client.get(ENTRIES, **headers)
        assert answer.status_code == 200
        assert answer["RateLimit-Policy"] == '"token";q=3;w=60'
        left.append(answer["RateLimit"].split(";")[1])
    assert left == ["r=2", "r=1", "r=0"]  # every answer says what is left of the minute

    response = client.get(ENTRIES, **headers)

    body = _problem(response, 429)
    assert body["title"] == "Too many requests."
    assert "3 requests a minute" in body["detail"]
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= 60
    assert response["RateLimit-Policy"] == '"token";q=3;w=60'
    assert response["RateLimit"] == f'"token";r=0;t={retry_after}'


def test_the_count_is_per_token(client, pound_keeper, dm_clerk, limit_of_three):
    held, other = bearer(pound_keeper), bearer(dm_clerk)
    for _ in range(4):
        client.get(ENTRIES, **held)
    assert client.get(ENTRIES, **held).status_code == 429
    assert client.get(ENTRIES, **other).status_code == 200
    # And the same person's second token has a count of its own.
    assert client.get(ENTRIES, **bearer(pound_keeper, name="second")).status_code == 200


def test_the_count_lives_in_the_database_and_a_new_minute_starts_again(
    client, pound_keeper, limit_of_three, time_machine
):
    time_machine.move_to(timezone.now().replace(second=5), tick=False)
    headers = bearer(pound_keeper)
    for _ in range(3):
        client.get(ENTRIES, **headers)
    assert client.get(ENTRIES, **headers).status_code == 429
    assert RateCount.objects.get(key__startswith="api-rate:").count == 4
    time_machine.shift(60)
    assert client.get(ENTRIES, **headers).status_code == 200


def test_a_token_may_carry_its_own_limit(client, pound_keeper, limit_of_three):
    headers = bearer(pound_keeper)
    pound_keeper.api_tokens.update(rate_per_minute=5)
    for _ in range(5):
        assert client.get(ENTRIES, **headers).status_code == 200
    assert client.get(ENTRIES, **headers).status_code == 429


def test_an_unknown_token_is_not_counted(client, limit_of_three):
    for _ in range(5):
        _problem(client.get(ENTRIES, HTTP_AUTHORIZATION="Bearer pa_nothing"), 401)
    assert not RateCount.objects.filter(key__startswith="api-rate:").exists()


def test_limit_message_is_translated(client, pound_keeper, limit_of_three):
    headers = bearer(pound_keeper)
    for _ in range(3):
        client.get(ENTRIES, **headers)
    body = _problem(client.get(ENTRIES, HTTP_ACCEPT_LANGUAGE="hi", **headers), 429)
    assert body["title"] != "Too many requests."


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("put", ENTRIES, "GET, POST"),
        ("delete", f"{ENTRIES}1/", "GET"),
        ("put", "/api/v1/board/", "GET"),
    ],
)
def test_wrong_method_is_405_problem_with_allow(client, pound_keeper, method, path, allow):
    response = getattr(client, method)(path, **bearer(pound_keeper))
    body = _problem(response, 405)
    assert body["title"] == "Method not allowed."
    assert response["Allow"] == allow
