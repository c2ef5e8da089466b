"""Throttling beside django-axes: one address spraying user names is stopped, and /verify/ has
a rate limit (issue 11)."""

import pytest
from django.core.cache import cache
from django.urls import reverse

from tests.accounts.test_views import _login


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def test_spraying_user_names_from_one_address_is_throttled(client, settings, pound_keeper):
    for i in range(40):
        response = _login(client, f"clerk{i:02d}", "Winter2026!")
        if response.status_code == 429:
            break

    assert response.status_code == 429
    assert i == settings.AXES_ADDRESS_FAILURE_LIMIT  # each name was tried once
    assert "Try again after" in response.content.decode()
    # The address waits, even with a right password for a real user.
    assert _login(client, "pound_keeper", "correct-horse-battery").status_code == 429


def test_another_address_is_not_held_by_the_spray(client, settings, pound_keeper):
    for i in range(settings.AXES_ADDRESS_FAILURE_LIMIT):
        _login(client, f"clerk{i:02d}", "Winter2026!")

    response = client.post(
        reverse("login"),
        {"username": "pound_keeper", "password": "correct-horse-battery"},
        REMOTE_ADDR="10.1.2.3",
    )

    assert response.status_code == 302


def test_verify_is_rate_limited_per_address(client, settings):
    settings.VERIFY_RATE_PER_MINUTE = 5
    url = reverse("verify", args=["x" * 32])

    codes = [client.get(url).status_code for _ in range(7)]

    assert codes == [404] * 5 + [429] * 2
    assert client.get(url, REMOTE_ADDR="10.9.9.9").status_code == 404
