"""Timeouts everywhere (docs/decisions/0052): PostgreSQL connections give up, web statements
are cut short while the commands' long work is not, the object store's calls give up and are
retried little, and readiness answers in time with the database and the store both hung."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.silent import SilentServer

ROOT = Path(__file__).resolve().parents[2]
SHOW = (
    "import json; from django.conf import settings as s; "
    "c = s.STORAGES['default']['OPTIONS']['client_config']; "
    "print(json.dumps({'db': s.DATABASES['default']['OPTIONS'], 'connect': c.connect_timeout, "
    "'read': c.read_timeout, 'retries': c.retries, 's3': c.s3, 'sig': c.signature_version}))"
)


def _env(**extra):
    env = {
        **os.environ,
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/nowhere",
        "S3_BUCKET": "uploads",
        "S3_ENDPOINT_URL": "http://127.0.0.1:1",
        "S3_ACCESS_KEY_ID": "testing",
        "S3_SECRET_ACCESS_KEY": "testing",
        "S3_REGION": "us-east-1",
        **extra,
    }
    env.pop("POUNDADMIN_LONG_WORK", None)
    return env


def _settings(command, **extra):
    result = subprocess.run(
        command, cwd=ROOT, env=_env(**extra), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_web_process_gets_short_statements_and_timeouts_on_both_stores():
    web = _settings([sys.executable, "-c", f"import django; django.setup(); {SHOW}"])

    assert web["db"]["connect_timeout"] == 5
    assert "-c statement_timeout=30s" in web["db"]["options"]
    assert "-c client_connection_check_interval=10s" in web["db"]["options"]
    assert "-c jit=off" in web["db"]["options"]  # ADR 0086
    assert (web["connect"], web["read"]) == (3, 10)
    assert web["retries"] == {"max_attempts": 2, "mode": "standard"}
    # The addressing style and signature still reach boto3 beside the timeouts.
    assert (web["s3"], web["sig"]) == ({"addressing_style": "path"}, "s3v4")


@pytest.mark.slow
def test_commands_do_long_work_without_the_webs_statement_timeout():
    """manage.py runs the worker, the migrations and the daily run: their statements get
    DB_WORK_STATEMENT_TIMEOUT. (And the client check is left out for PostgreSQL 13.)"""
    command = _settings(
        [sys.executable, "manage.py", "shell", "-c", SHOW],
        DB_WORK_STATEMENT_TIMEOUT="900",
        DB_CLIENT_CHECK_SECONDS="0",
    )

    assert command["db"]["options"] == "-c statement_timeout=900s -c jit=off"


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(url):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=5).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.3)
    raise AssertionError(f"{url} never answered")


@pytest.mark.slow
def test_readiness_answers_in_time_with_the_database_and_the_store_hung(tmp_path):
    """A real gunicorn whose database port and object store both accept and never answer; their
    own timeouts are set to a minute here, so only readiness's bound can end its wait. The time
    it took is printed, never compared (docs/decisions/0046)."""
    port = _free_port()
    with SilentServer() as database, SilentServer() as store:
        env = _env(
            DATABASE_URL=f"postgres://nobody@127.0.0.1:{database.port}/nowhere",
            S3_ENDPOINT_URL=f"http://127.0.0.1:{store.port}",
            DB_CONNECT_TIMEOUT="60",
            S3_CONNECT_TIMEOUT="60",
            S3_READ_TIMEOUT="60",
            HEALTH_PROBE_SECONDS="1",
            GUNICORN_BIND=f"127.0.0.1:{port}",
            GUNICORN_WORKERS="1",
            GUNICORN_THREADS="2",
            LOG_LEVEL="ERROR",
        )
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        log = (tmp_path / "server.log").open("w")
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "poundadmin.wsgi"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
        try:
            _wait_for(f"http://127.0.0.1:{port}/healthz")
            started = time.monotonic()

            response = requests.get(f"http://127.0.0.1:{port}/healthz/ready", timeout=60)

            took = time.monotonic() - started
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()
    print(f"readiness with both hung: {took:.2f} s, {response.json()['took_ms']} ms inside")
    # Cut by readiness's own bound (a "timeout"), not by the stores' minute (a "fail").
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert (checks["database"], checks["storage"]) == ("timeout", "timeout")
