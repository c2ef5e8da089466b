"""Production settings: secure by default, and a missing variable stops start-up with a sentence."""

import os
import subprocess
import sys
from pathlib import Path

from django.http import HttpResponse

ROOT = Path(__file__).resolve().parent.parent


def _manage(*args, **env):
    base = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DEBUG",
            "SECRET_KEY",
            "ALLOWED_HOSTS",
            "PUBLIC_BASE_URL",
            "SECURE_SSL_REDIRECT",
            "SECURE_COOKIES",
            "STATICFILES_STORAGE",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
            "ADMIN_ENABLED",
        }
    }
    base["POUNDADMIN_READ_DOT_ENV"] = "false"
    base.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        timeout=120,
    )


PROD = {
    "SECRET_KEY": "p" * 30 + "Qz9!kL2#mN4$vB6^xC8&" + "r" * 20,
    "ALLOWED_HOSTS": "pounds.example.gov.in",
    "PUBLIC_BASE_URL": "https://pounds.example.gov.in",
}


def test_deploy_check_has_no_warnings_under_production_settings():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **PROD)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_missing_secret_key_stops_with_a_sentence_naming_it():
    result = _manage(
        "check", ALLOWED_HOSTS="pounds.example.gov.in", PUBLIC_BASE_URL=PROD["PUBLIC_BASE_URL"]
    )
    assert result.returncode != 0
    assert "The SECRET_KEY environment variable is not set." in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_allowed_hosts_stops_with_a_sentence_naming_it():
    result = _manage(
        "check", SECRET_KEY=PROD["SECRET_KEY"], PUBLIC_BASE_URL=PROD["PUBLIC_BASE_URL"]
    )
    assert result.returncode != 0
    assert "The ALLOWED_HOSTS environment variable is not set." in result.stderr


def test_missing_public_base_url_stops_production_with_a_sentence_naming_it():
    result = _manage("check", SECRET_KEY=PROD["SECRET_KEY"], ALLOWED_HOSTS=PROD["ALLOWED_HOSTS"])
    assert result.returncode != 0
    assert "The PUBLIC_BASE_URL environment variable is not set." in result.stderr


def test_in_development_qr_codes_follow_the_host_and_port_of_the_request(settings, rf):
    from kernel.documents import public_url
    from kernel.middleware import RequestContextMiddleware

    settings.PUBLIC_BASE_URL = ""
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    seen = []

    def view(request):
        seen.append(public_url("/verify/abc/"))
        return HttpResponse("ok")

    response = RequestContextMiddleware(view)(rf.get("/", HTTP_HOST="127.0.0.1:8001"))

    assert seen == ["http://127.0.0.1:8001/verify/abc/"]
    assert len(response["X-Request-ID"]) == 32
    settings.PUBLIC_BASE_URL = "https://pounds.example.gov.in"
    RequestContextMiddleware(view)(rf.get("/", HTTP_HOST="127.0.0.1:8001"))
    assert seen[-1] == "https://pounds.example.gov.in/verify/abc/"


def test_debug_is_off_unless_set():
    result = _manage(
        "shell", "-c", "from django.conf import settings; print(settings.DEBUG)", **PROD
    )
    assert result.stdout.strip().splitlines()[-1] == "False"


ADMIN_URL = """
from django.conf import settings
from django.urls import Resolver404, resolve
try:
    resolve("/admin/")
except Resolver404:
    print(settings.ADMIN_ENABLED, "no-admin-url")
else:
    print(settings.ADMIN_ENABLED, "admin-url")
"""


def test_admin_is_off_unless_a_setting_turns_it_on():
    off = _manage("shell", "-c", ADMIN_URL, **PROD)
    on = _manage("shell", "-c", ADMIN_URL, ADMIN_ENABLED="true", **PROD)

    assert off.stdout.strip().splitlines()[-1] == "False no-admin-url", off.stderr
    assert on.stdout.strip().splitlines()[-1] == "True admin-url", on.stderr


def test_localisation_settings():
    from django.conf import settings

    assert settings.TIME_ZONE == "Asia/Kolkata"
    assert settings.USE_TZ is True
    assert [code for code, _ in settings.LANGUAGES] == ["en", "hi", "mr", "ta"]


def test_security_headers_on_a_page(client):
    response = client.get("/login/")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"


def test_env_example_documents_every_production_variable():
    text = (ROOT / ".env.example").read_text()
    for name in (
        "DEBUG",
        "SECRET_KEY",
        "ALLOWED_HOSTS",
        "DATABASE_URL",
        "PUBLIC_BASE_URL",
        "EMAIL_HOST",
        "SECURE_COOKIES",
        "SECURE_SSL_REDIRECT",
        "ADMIN_ENABLED",
    ):
        assert f"{name}=" in text, name
