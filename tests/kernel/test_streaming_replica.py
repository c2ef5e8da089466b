"""A real streaming replica (ADR 0054): a second PostgreSQL cluster made with `pg_basebackup -R`
from the server the suite runs on, started on a free port in a temporary directory.

Its replay is paused, a to-do is written on the primary, and the to-do page (marked
`reads_from_replica`) shows the stale list, read on the standby; after a write request the same
page reads the primary and shows it. The server's own configuration is never changed: without
a replication entry in its pg_hba.conf, or as a user who cannot run the server's binaries as
`postgres`, the test is skipped and says why.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import ToDo
from accounts.roles import Role
from kernel.replica import STICKY_COOKIE

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
REPLAY_TIMEOUT = 120  # seconds; the machine may be busy
# Settings a hot standby must hold at least as high as its primary, or it refuses to start.
MATCHED = (
    "max_connections",
    "max_worker_processes",
    "max_wal_senders",
    "max_prepared_transactions",
    "max_locks_per_transaction",
)
# pg_hba rules that let a trust replication connection in from 127.0.0.1.
HBA_ALLOWS_REPLICATION = """
    SELECT count(*) FROM pg_hba_file_rules
    WHERE type LIKE 'host%' AND auth_method = 'trust' AND 'replication' = ANY(database)
      AND (address IN ('all', 'samehost', 'samenet')
           OR (address ~ '^[0-9.]+$'
               AND (address::inet & netmask::inet) = ('127.0.0.1'::inet & netmask::inet)))
"""


def _as_postgres(*args):
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *map(str, args)]
    return list(map(str, args))


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _primary(settings_dict, dbname=None):
    return psycopg.connect(
        host=settings_dict["HOST"] or "127.0.0.1",
        port=settings_dict["PORT"] or 5432,
        user=settings_dict["USER"] or "postgres",
        dbname=dbname or settings_dict["NAME"],
        autocommit=True,
        connect_timeout=5,
    )


def _why_not(settings_dict):
    """The reason no replica can be made here, or None."""
    if not (PG_BIN / "pg_basebackup").exists():
        return f"no PostgreSQL binaries in {PG_BIN}"
    if os.geteuid() != 0:
        return "needs root, to run the server's binaries as the postgres user"
    with _primary(settings_dict) as conn:
        if conn.execute("SHOW wal_level").fetchone()[0] == "minimal":
            return "the server's wal_level is minimal: it cannot feed a replica"
        if int(conn.execute("SHOW max_wal_senders").fetchone()[0]) < 1:
            return "the server has max_wal_senders = 0"
        if not conn.execute(HBA_ALLOWS_REPLICATION).fetchone()[0]:
            return "the server's pg_hba.conf lets no replication connection in from 127.0.0.1"
    return None


def _write_configuration(data, port, settings_dict):
    with _primary(settings_dict) as conn:
        matched = {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in MATCHED}
    lines = [
        f"port = {port}",
        "listen_addresses = '127.0.0.1'",
        f"unix_socket_directories = '{data}'",
        "hot_standby = on",
        "fsync = off",
        "shared_buffers = 32MB",
        *(f"{name} = {value}" for name, value in matched.items()),
    ]
    files = {
        "postgresql.conf": "\n".join(lines) + "\n",
        "pg_hba.conf": "local all all trust\nhost all all 127.0.0.1/32 trust\n",
        "pg_ident.conf": "",
    }
    for name, text in files.items():
        (data / name).write_text(text)
        shutil.chown(data / name, "postgres", "postgres")


def _wait_for(predicate, what):
    deadline = time.monotonic() + REPLAY_TIMEOUT
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except psycopg.OperationalError:
            pass  # the standby is still starting
        time.sleep(0.5)
    pytest.fail(f"the replica never {what} in {REPLAY_TIMEOUT} s")


@pytest.fixture
def streaming_replica(django_db_setup):
    """The port of a hot standby of the suite's database server, stopped and removed after."""
    settings_dict = connections["default"].settings_dict
    reason = _why_not(settings_dict)
    if reason:
        pytest.skip(f"no streaming replica: {reason}")
    root = Path(tempfile.mkdtemp(prefix="pa-replica-"))
    shutil.chown(root, "postgres", "postgres")
    data, port = root / "data", _free_port()
    started = False
    try:
        subprocess.run(
            _as_postgres(
                PG_BIN / "pg_basebackup",
                *("-h", settings_dict["HOST"] or "127.0.0.1", "-p", settings_dict["PORT"] or 5432),
                *("-U", settings_dict["USER"] or "postgres", "-D", data),
                *("-R", "-X", "stream", "-c", "fast", "--no-sync"),
            ),
            check=True,
            capture_output=True,
            timeout=600,
        )
        _write_configuration(data, port, settings_dict)
        subprocess.run(
            _as_postgres(
                PG_BIN / "pg_ctl", "-D", data, "-l", root / "log", "-w", "-t", 120, "start"
            ),
            check=True,
            capture_output=True,
            timeout=180,
        )
        started = True
        yield port
    finally:
        if started:
            subprocess.run(
                _as_postgres(PG_BIN / "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"),
                capture_output=True,
                timeout=120,
            )
        shutil.rmtree(root, ignore_errors=True)


def _todo(pound, key, title):
    return ToDo.objects.create(
        key=key, role=Role.POUND_KEEPER, district=pound.district, pound=pound, title=title, url="/"
    )


@pytest.mark.django_db(transaction=True, databases={"default", "replica"})
def test_a_marked_page_reads_the_replica_until_the_user_writes(
    streaming_replica, settings, client, pound_keeper, pound
):
    settings.REPLICA_DATABASE = "replica"
    alias = connections["replica"]
    mirror = alias.settings_dict  # the test mirror's, shared with `default`: replaced, not changed
    alias.close()
    alias.settings_dict = {**mirror, "HOST": "127.0.0.1", "PORT": str(streaming_replica)}
    standby = {**alias.settings_dict, "USER": mirror["USER"]}
    try:
        _todo(pound, "replica-marker", "Marker replayed")
        with _primary(standby) as conn:
            _wait_for(
                lambda: conn.execute(
                    "SELECT 1 FROM accounts_todo WHERE key = 'replica-marker'"
                ).fetchone(),
                "replayed the marker row",
            )
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]
            conn.execute("SELECT pg_wal_replay_pause()")
            _wait_for(
                lambda: (
                    conn.execute("SELECT pg_get_wal_replay_pause_state()").fetchone()[0] == "paused"
                ),
                "paused its replay",
            )
        _todo(pound, "replica-fresh", "Written after the pause")
        client.force_login(pound_keeper)

        with CaptureQueriesContext(alias) as on_replica:
            stale = client.get(reverse("office:todos"))
        assert stale.status_code == 200
        assert "Marker replayed" in stale.text
        assert "Written after the pause" not in stale.text  # the standby has not replayed it
        assert on_replica.captured_queries
        with alias.cursor() as cursor:
            cursor.execute("SELECT pg_is_in_recovery(), inet_server_port()")
            assert cursor.fetchone() == (True, streaming_replica)

        wrote = client.post(reverse("logout"))  # a write request, answered with a redirect
        assert wrote.status_code == 302 and STICKY_COOKIE in wrote.cookies
        client.force_login(pound_keeper)
        with CaptureQueriesContext(alias) as on_replica:
            fresh = client.get(reverse("office:todos"))
        assert "Written after the pause" in fresh.text
        assert not on_replica.captured_queries
    finally:
        alias.close()
        alias.settings_dict = mirror
