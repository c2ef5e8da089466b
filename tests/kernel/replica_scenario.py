"""Run by tests/kernel/test_streaming_replica.py in a process of its own, under the project's
settings with DATABASE_URL naming a primary the test made and DATABASE_REPLICA_URL its
streaming standby (ADR 0054). It writes on the primary, pauses the standby's replay, reads the
office's to-do page as a pound-keeper before and after a write of his own, and prints what it
saw as one line of JSON; the test asserts on it.

`python -m tests.kernel.replica_scenario` from the checkout, with the environment above.
"""

import json
import sys
import time

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connections  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.urls import reverse  # noqa: E402

from accounts.models import ToDo  # noqa: E402
from accounts.roles import Role  # noqa: E402
from kernel.replica import STICKY_COOKIE, replica_alias  # noqa: E402
from tests.accounts.factories import (  # noqa: E402
    PoundFactory,
    PoundVillageFactory,
    force_login_with_second_factor,
    staff,
)

REPLAY_TIMEOUT = 60  # seconds; the machine may be busy
MARKER, FRESH = "Marker replayed", "Written after the pause"


def _on(alias, sql):
    with connections[alias].cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()


def _wait_for(predicate, what):
    deadline = time.monotonic() + REPLAY_TIMEOUT
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise SystemExit(f"the replica never {what} in {REPLAY_TIMEOUT} s")


def _replayed(key):
    return lambda: _on("replica", f"SELECT count(*) FROM accounts_todo WHERE key = '{key}'")[0]


def _todo(pound, key, title):
    return ToDo.objects.create(
        key=key, role=Role.POUND_KEEPER, district=pound.district, pound=pound, title=title, url="/"
    )


def _read(client):
    """The to-do page: what it shows, and how many queries went to each database."""
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica"]) as replica,
    ):
        page = client.get(reverse("office:todos"))
    text = page.content.decode()
    return {
        "status": page.status_code,
        "marker": MARKER in text,
        "fresh": FRESH in text,
        "primary_queries": len(primary.captured_queries),
        "replica_queries": len(replica.captured_queries),
    }


def main():
    facts = {"replica_alias": replica_alias(), "sticky_seconds": settings.REPLICA_STICKY_SECONDS}
    pound = PoundFactory()
    PoundVillageFactory(pound=pound)
    keeper = staff(Role.POUND_KEEPER, "replica_keeper", pound=pound)
    _todo(pound, "replica-marker", MARKER)
    _wait_for(_replayed("replica-marker"), "replayed the marker row")
    facts["standby"] = _on("replica", "SELECT pg_is_in_recovery(), inet_server_port()")
    facts["primary"] = _on("default", "SELECT pg_is_in_recovery(), inet_server_port()")

    _on("replica", "SELECT pg_wal_replay_pause()")
    _wait_for(
        lambda: _on("replica", "SELECT pg_get_wal_replay_pause_state()")[0] == "paused",
        "paused its replay",
    )
    _todo(pound, "replica-fresh", FRESH)
    facts["fresh_on_replica"] = bool(_replayed("replica-fresh")())
    client = Client()
    force_login_with_second_factor(client, keeper)
    facts["before_write"] = _read(client)

    # The keeper's own write: his language, saved on his account, answered with a redirect.
    wrote = client.post(reverse("set_language"), {"language": "hi", "next": "/"})
    written_at = time.monotonic()
    facts["write"] = {"status": wrote.status_code, "sticky": STICKY_COOKIE in wrote.cookies}
    facts["after_write"] = _read(client)
    facts["after_write_seconds"] = time.monotonic() - written_at
    facts["language_on_replica"] = _on(
        "replica", f"SELECT preferred_language FROM accounts_user WHERE id = {keeper.pk}"
    )[0]

    time.sleep(max(0.0, written_at + settings.REPLICA_STICKY_SECONDS + 0.5 - time.monotonic()))
    facts["after_window"] = _read(client)

    _on("replica", "SELECT pg_wal_replay_resume()")
    _wait_for(_replayed("replica-fresh"), "replayed the row written after the pause")
    facts["after_resume"] = _read(client)
    return facts


if __name__ == "__main__":
    try:
        facts = main()
    finally:
        connections.close_all()
    sys.stdout.write(json.dumps(facts) + "\n")
