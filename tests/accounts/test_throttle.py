"""Throttling beside django-axes: one address spraying user names is stopped, and /verify/ has
a rate limit."""

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import caches
from django.urls import reverse

from accounts.models import RateCount
from accounts.throttle import hit
from tests.accounts.test_views import _login

ROOT = Path(__file__).resolve().parents[2]


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


# Several app servers: the counts live in the database they share, not in a process.

SECOND_SERVER = """
import django
django.setup()
from accounts.throttle import hit
from django.core.cache import cache
from datetime import timedelta
print(hit("verify-rate:203.0.113.9:1", ttl=timedelta(minutes=2)), cache.get("shared-probe"))
"""


def _second_server(script=SECOND_SERVER):
    """Another process on the same database, as another app server is."""
    db = django_settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("another process shares the test database only on PostgreSQL")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "poundadmin.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
    }
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout.split()


@pytest.mark.real_clock
@pytest.mark.django_db(transaction=True)
def test_a_second_process_adds_to_the_same_count_and_reads_the_same_cache():
    for _ in range(3):
        hit("verify-rate:203.0.113.9:1", ttl=timedelta(minutes=2))
    cache = caches["default"]
    # No expiry: the probe shows that the entry is shared, whatever either process's clock says.
    # The backend swallows a failed write, so this process reads its own entry back first.
    cache.set("shared-probe", "seen", None)
    assert cache.get("shared-probe") == "seen"
    try:
        count, probe = _second_server()
    finally:
        cache.delete("shared-probe")  # a flush empties the models' tables only

    assert (count, probe) == ("4", "seen")
    assert RateCount.objects.get(key="verify-rate:203.0.113.9:1").count == 4


def test_two_cache_clients_see_the_same_entries():
    first = caches.create_connection("default")
    second = caches.create_connection("default")
    first.set("verify-probe", 7, 60)
    assert second.get("verify-probe") == 7
    assert "DatabaseCache" in type(second).__name__  # not a memory of this process


def test_windows_past_their_time_are_dropped_as_new_ones_open():
    hit("old-window", ttl=timedelta(minutes=-1))
    hit("new-window", ttl=timedelta(minutes=2))
    assert list(RateCount.objects.values_list("key", flat=True)) == ["new-window"]


LOCKOUT_ON_SECOND_SERVER = """
import django
django.setup()
from django.test import RequestFactory
from accounts.throttle import address_locked_out
print(address_locked_out(RequestFactory().post("/login/", REMOTE_ADDR="127.0.0.1")))
"""


@pytest.mark.real_clock
@pytest.mark.django_db(transaction=True)
def test_a_spray_on_one_server_locks_the_address_out_of_the_other(client, settings):
    for i in range(settings.AXES_ADDRESS_FAILURE_LIMIT):
        _login(client, f"clerk{i:02d}", "Winter2026!")

    assert _second_server(LOCKOUT_ON_SECOND_SERVER) == ["True"]
