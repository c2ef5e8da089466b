"""Operations: JSON logs with the request's id, user and path; gunicorn's settings follow the
core count; the deploy folder has the units and the nginx site; Sentry is off unless set."""

import json
import multiprocessing
import runpy
import subprocess
import sys
from pathlib import Path

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
