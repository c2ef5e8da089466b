"""A real streaming replica (ADR 0054), on clusters of the test's own.

The test makes a primary with `initdb` (`wal_level = replica`, a pg_hba line for replication) on
a free loopback port in a temporary directory, a hot standby of it with `pg_basebackup -R` on
another, migrates the primary with `manage.py migrate`, and runs tests/kernel/replica_scenario.py
in a process of its own under the project's settings, DATABASE_URL naming the primary and
DATABASE_REPLICA_URL the standby. The scenario pauses the standby's replay: the to-do page
(marked `reads_from_replica`) shows the stale list read on the standby, then, after the user's
own write, the fresh list read on the primary for REPLICA_STICKY_SECONDS, then the stale one
again, until replay resumes. Both clusters are stopped and removed after, pass or fail.

The server binaries are the ones beside `initdb` (PG_BIN overrides), so initdb, pg_ctl and
pg_basebackup are of one major version. PostgreSQL refuses to run as root: as root the test runs
them as the `postgres` user, and skips, saying why, when there is none.
"""

import contextlib
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

# Every step's timeout counts against BUDGET, below the test's own timeout, so that a step that
# hangs fails the test while the fixture can still stop the servers (pytest-timeout's "thread"
# method would end the process and leave them running).
BUDGET = 170
pytestmark = [
    pytest.mark.slow,
    pytest.mark.postgres,
    pytest.mark.real_clock,
    pytest.mark.timeout(BUDGET + 130),  # the first test of a worker also makes its test database
]

ROOT = Path(settings.BASE_DIR)
TOOLS = ("initdb", "pg_ctl", "pg_basebackup", "postgres")
PRIMARY_CONF = """
listen_addresses = '127.0.0.1'
unix_socket_directories = '{sockets}'
port = {port}
wal_level = replica
max_wal_senders = 4
max_connections = 40
shared_buffers = 32MB
fsync = off
full_page_writes = off
synchronous_commit = off
"""
HBA = """
local all all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
"""


def _bin_dir():
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    initdb = shutil.which("initdb") or "/usr/local/bin/initdb"
    if os.path.exists(initdb):
        return Path(os.path.realpath(initdb)).parent
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    return found[-1].parent if found else None


def _major(binary):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    return re.search(r"\) (\d+)", out).group(1)


def _runner():
    """The prefix that runs a server binary as a user PostgreSQL accepts, or a reason why not."""
    if os.geteuid() != 0:
        return [], None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return None, "running as root, and there is no `postgres` user to run the server as"
    if not shutil.which("runuser"):
        return None, "running as root, and runuser is missing"
    return ["runuser", "-u", "postgres", "--"], None


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Clusters:
    """A primary and its standby in one temporary directory."""

    def __init__(self, bin_dir, prefix):
        self.bin, self.prefix = bin_dir, prefix
        # Under /tmp when the servers run as `postgres`: a TMPDIR of root's may be closed to it.
        place = "/tmp" if prefix and os.path.isdir("/tmp") else None
        self.root = Path(tempfile.mkdtemp(prefix="pa-replica-", dir=place))
        self.primary, self.replica = self.root / "primary", self.root / "replica"
        self.primary_port = _free_port()
        self.replica_port = next(p for p in iter(_free_port, None) if p != self.primary_port)
        self.started = []
        self.deadline = time.monotonic() + BUDGET

    def left(self, most):
        """Seconds for the next step: at most `most`, and never past the budget."""
        return max(1.0, min(most, self.deadline - time.monotonic()))

    def run(self, tool, *args, timeout=60):
        command = [*self.prefix, str(self.bin / tool), *map(str, args)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=self.left(timeout))
        if done.returncode:
            raise AssertionError(f"{tool} failed ({done.returncode}):\n{done.stdout}{done.stderr}")

    def start(self, data):
        self.started.append(data)
        log = self.root / f"{data.name}.log"
        self.run("pg_ctl", "-D", data, "-l", log, "-w", "-t", int(self.left(60)), "start")

    def make(self):
        if self.prefix:
            shutil.chown(self.root, "postgres", "postgres")
        self.run("initdb", "-D", self.primary, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                 "--locale=C", "--no-sync", "--no-instructions")  # fmt: skip
        with open(self.primary / "postgresql.conf", "a") as conf:
            conf.write(PRIMARY_CONF.format(sockets=self.root, port=self.primary_port))
        (self.primary / "pg_hba.conf").write_text(HBA)
        self.start(self.primary)
        self.run("pg_basebackup", "-h", "127.0.0.1", "-p", self.primary_port, "-U", "postgres",
                 "-D", self.replica, "-R", "-X", "stream", "-c", "fast", "--no-sync")  # fmt: skip
        with open(self.replica / "postgresql.conf", "a") as conf:
            conf.write(f"port = {self.replica_port}\nhot_standby = on\n")
        self.start(self.replica)

    def log(self):
        return "".join(
            f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.root.glob("*.log"))
        )

    def remove(self):
        """Stop both servers, whatever happened, then delete their files. A server that pg_ctl
        cannot stop is sent SIGQUIT (an immediate shutdown) by the pid it wrote."""
        for data in reversed(self.started):
            pid_file = data / "postmaster.pid"
            if not pid_file.exists():
                continue
            command = [*self.prefix, str(self.bin / "pg_ctl"), "-D", str(data), "-m", "immediate"]
            stopped = subprocess.run([*command, "-w", "-t", "20", "stop"], capture_output=True)
            if stopped.returncode and pid_file.exists():
                with contextlib.suppress(OSError, ValueError):
                    os.kill(int(pid_file.read_text().split()[0]), signal.SIGQUIT)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def clusters():
    bin_dir = _bin_dir()
    if bin_dir is None or not all((bin_dir / tool).exists() for tool in TOOLS):
        pytest.skip(f"no PostgreSQL server binaries ({', '.join(TOOLS)}) in {bin_dir}")
    majors = {tool: _major(bin_dir / tool) for tool in TOOLS}
    assert len(set(majors.values())) == 1, f"mixed PostgreSQL versions in {bin_dir}: {majors}"
    prefix, reason = _runner()
    if reason:
        pytest.skip(f"no streaming replica: {reason}")
    made = Clusters(bin_dir, prefix)
    try:
        made.make()
        with psycopg.connect(
            host="127.0.0.1", port=made.primary_port, user="postgres", dbname="postgres",
            autocommit=True, connect_timeout=10,
        ) as conn:  # fmt: skip
            conn.execute("CREATE DATABASE poundadmin")
        yield made
    except Exception:
        print(made.log())
        raise
    finally:
        made.remove()


def _run(clusters, args, env, what):
    done = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=clusters.left(120),
    )
    assert done.returncode == 0, f"{what} failed:\n{done.stdout[-4000:]}{done.stderr[-4000:]}"
    return done.stdout


def test_the_office_reads_a_real_standby_except_after_the_users_own_write(clusters):
    url = "postgres://postgres@127.0.0.1:{}/poundadmin"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_", "PYTEST_")) and key != "CONN_MAX_AGE"
    }
    env |= {
        "DATABASE_URL": url.format(clusters.primary_port),
        "DATABASE_REPLICA_URL": url.format(clusters.replica_port),
        "REPLICA_STICKY_SECONDS": "5",
    }
    _run(clusters, ["manage.py", "migrate", "--noinput", "-v0"], env, "migrate on the primary")
    out = _run(clusters, ["-m", "tests.kernel.replica_scenario"], env, "the scenario")
    facts = json.loads(out.splitlines()[-1])

    assert facts["replica_alias"] == "replica"
    assert facts["primary"] == [False, clusters.primary_port]
    assert facts["standby"] == [True, clusters.replica_port]  # a hot standby, in recovery
    assert facts["fresh_on_replica"] is False  # its replay paused

    before = facts["before_write"]  # the marked page, read on the standby
    assert before["status"] == 200 and before["marker"] and not before["fresh"]
    assert before["replica_queries"] > 0

    assert facts["write"] == {"status": 302, "sticky": True}
    assert facts["language_on_replica"] != "hi"  # the standby has not seen the write
    after = facts["after_write"]  # the user wrote: the same page, read on the primary
    assert facts["after_write_seconds"] < facts["sticky_seconds"]
    assert after["status"] == 200 and after["marker"] and after["fresh"]
    assert after["replica_queries"] == 0 and after["primary_queries"] > 0

    later = facts["after_window"]  # REPLICA_STICKY_SECONDS on: the standby again
    assert later["replica_queries"] > 0 and not later["fresh"]
    resumed = facts["after_resume"]  # replay resumed: the standby has caught up
    assert resumed["replica_queries"] > 0 and resumed["fresh"] and resumed["marker"]
