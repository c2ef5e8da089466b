"""Operations: JSON logs with the request's id, user and path; gunicorn's settings follow the
core count; the deploy folder has the units and the nginx site; Sentry is off unless set."""

import json
import multiprocessing
import os
import runpy
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path

import pytest
from django.conf import settings

from tests.test_settings import PROD, _manage

ROOT = Path(__file__).resolve().parent.parent


def test_production_logs_are_one_json_object_a_line_with_the_request_context():
    script = (
        "import logging\n"
        "from django.test import RequestFactory\n"
        "from django.http import HttpResponse\n"
        "from kernel.middleware import RequestContextMiddleware\n"
        "def view(request):\n"
        "    logging.getLogger('poundadmin.test').warning('inside')\n"
        "    return HttpResponse()\n"
        "request = RequestFactory().get('/pound/register/', HTTP_HOST='pounds.example.gov.in',"
        " HTTP_X_REQUEST_ID='abcdef0123456789')\n"
        "RequestContextMiddleware(view)(request)\n"
        "from django.core.signals import request_finished\n"
        "request_finished.send(sender=None)\n"
        "logging.getLogger('poundadmin.test').warning('outside')\n"
    )
    result = _manage("shell", "-c", script, **PROD)

    lines = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    inside, outside = lines[-2], lines[-1]
    assert inside["message"] == "inside" and inside["level"] == "WARNING"
    assert (inside["request_id"], inside["path"]) == ("abcdef0123456789", "/pound/register/")
    assert inside["user_id"] is None
    assert outside["request_id"] is None
    assert "sentry" not in result.stderr.lower()


def test_gunicorn_settings_follow_the_core_count():
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))

    assert conf["workers"] == multiprocessing.cpu_count() * 2 + 1
    assert conf["worker_class"] == "gthread" and conf["threads"] >= 2
    assert conf["timeout"] >= 30 and conf["accesslog"] == "-"
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--check-config",
            "-c",
            "gunicorn.conf.py",
            "poundadmin.wsgi",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**PROD, "PATH": "/usr/bin:/bin", "POUNDADMIN_READ_DOT_ENV": "false"},
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_deploy_has_units_for_web_worker_and_the_daily_timer_and_an_nginx_site():
    deploy = ROOT / "deploy"
    web = (deploy / "poundadmin-web.service").read_text()
    worker = (deploy / "poundadmin-worker.service").read_text()
    timer = (deploy / "poundadmin-daily.timer").read_text()
    nginx = (deploy / "nginx-poundadmin.conf").read_text()
    assert "gunicorn -c gunicorn.conf.py" in web
    assert "manage.py db_worker" in worker
    assert (
        "OnCalendar=" in timer
        and "run_deadlines" in (deploy / "poundadmin-daily.service").read_text()
    )
    assert "ssl_certificate" in nginx and "location /media/" in nginx and "immutable" in nginx
    assert 'CMD ["gunicorn"' in (ROOT / "Containerfile").read_text()


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url, **headers):
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers


@pytest.mark.slow
def test_gunicorn_logs_every_line_as_json_with_the_apps_request_id_and_offset_times(tmp_path):
    """gunicorn with the shipped config on a loopback port: its own lines, its access lines and
    the app's lines are all JSON, and an access line carries the id the app gave its request."""
    db = settings.DATABASES["default"]
    port = _free_port()
    env = {
        k: v for k, v in os.environ.items() if k not in {"DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    } | {
        **PROD,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "SECURE_SSL_REDIRECT": "false",
        "POUNDADMIN_READ_DOT_ENV": "false",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": "1",
        "GUNICORN_THREADS": "1",
    }
    env.pop("LOG_FORMAT", None)
    output = (tmp_path / "gunicorn.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "poundadmin.wsgi"],
        cwd=ROOT,
        env=env,
        stdout=output,
        stderr=output,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, _headers = _get(f"{base}/healthz")
                break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)
        assert status == 200
        _status, ours = _get(f"{base}/healthz")
        _status, proxied = _get(f"{base}/healthz", **{"X-Request-ID": "from-the-proxy-0001"})
        status, refused = _get(f"{base}/", Host="elsewhere.example")  # logged by the app
        assert status == 400
    finally:
        server.terminate()
        server.wait(timeout=30)
        output.close()

    text = (tmp_path / "gunicorn.log").read_text()
    lines = [json.loads(line) for line in text.splitlines()]  # every line, or it fails here
    assert all(datetime.fromisoformat(line["time"]).utcoffset() is not None for line in lines)
    loggers = {line["logger"] for line in lines}
    assert {"gunicorn.error", "gunicorn.access", "django.security.DisallowedHost"} <= loggers
    access = {line["request_id"]: line for line in lines if line["logger"] == "gunicorn.access"}
    generated = ours["X-Request-ID"]
    assert len(generated) == 32 and access[generated]["path"] == "/healthz"
    assert access[generated]["status"] == "200" and access[generated]["method"] == "GET"
    assert proxied["X-Request-ID"] == "from-the-proxy-0001" in access
    app_line = next(line for line in lines if line["logger"] == "django.security.DisallowedHost")
    assert app_line["request_id"] == refused["X-Request-ID"]
    assert access[refused["X-Request-ID"]]["status"] == "400"
