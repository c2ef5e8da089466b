"""The image and the units as shipped: the Containerfile collects the static files under the
production settings (once under DEBUG, which writes no manifest, and every page of the image was
a 500 while /healthz/ready said 200); `.containerignore` keeps the host's files out of `COPY . .`;
the image's healthcheck sends a Host the app allows; the web unit never reloads with a HUP,
which under preload_app re-forks the old code (docs/operations.md, "Upgrading the servers")."""

import base64
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.http.request import validate_host

from kernel import anchors, healthcheck

ROOT = Path(settings.BASE_DIR)
CONTAINERFILE = (ROOT / "Containerfile").read_text()
MANIFEST_STORAGE = "whitenoise.storage.CompressedManifestStaticFilesStorage"


def _instruction(keyword, needle):
    """The Containerfile's `keyword` instruction holding `needle` (continued lines joined)."""
    joined = re.sub(r"\\\n\s*", " ", CONTAINERFILE)
    found = [
        line.split(None, 1)[1]
        for line in joined.splitlines()
        if line.startswith(keyword + " ") and needle in line
    ]
    assert len(found) == 1, f"one {keyword} with {needle!r}"
    return found[0]


def _collectstatic_command():
    """The Containerfile's collectstatic: its variables, and its argv on this interpreter."""
    words = shlex.split(_instruction("RUN", "collectstatic"))
    variables = {}
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        variables[name] = value
    assert words[0] == ".venv/bin/python", words
    return variables, [sys.executable, *words[1:]]


@pytest.mark.timeout(300)
def test_the_images_collectstatic_writes_the_manifest_the_pages_need(tmp_path, client, settings):
    variables, argv = _collectstatic_command()
    # A build's environment holds nothing but the image's own variables and the RUN line's.
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), **variables}
    env["STATIC_ROOT"] = str(tmp_path / "static")

    built = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)

    assert built.returncode == 0, built.stderr
    assert (tmp_path / "static" / "staticfiles.json").is_file(), "no manifest: pages will 500"
    settings.STATIC_ROOT = tmp_path / "static"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST_STORAGE}}
    page = client.get("/login/")
    assert page.status_code == 200
    assert re.search(rb'/static/[^"]+\.[0-9a-f]{12}\.css', page.content), "hashed names"
    assert client.get("/healthz/ready").json()["checks"]["static"] == "ok"


def test_the_build_runs_under_the_production_storage():
    variables, _argv = _collectstatic_command()
    assert variables.get("DEBUG", "false").lower() in ("false", "0", "no")
    assert "STATICFILES_STORAGE" not in variables


def test_containerignore_keeps_the_hosts_files_out_of_the_image():
    ignored = {
        line.strip().rstrip("/")
        for line in (ROOT / ".containerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    wanted = {".venv", "db.sqlite3", "media", "staticfiles", ".git", ".env", ".env.*"}
    wanted |= {"test-artifacts", ".pytest_cache", ".mypy_cache", "**/__pycache__"}
    assert wanted <= ignored, wanted - ignored
    assert "COPY . ." in CONTAINERFILE


@pytest.mark.parametrize(
    "allowed",
    ["pounds.example.gov.in", "pounds.example.gov.in,10.0.0.5", ".example.gov.in", "*", ""],
)
def test_the_images_healthcheck_sends_a_host_the_app_allows(allowed):
    assert "kernel.healthcheck" in _instruction("HEALTHCHECK", "CMD")
    request = healthcheck.request({"ALLOWED_HOSTS": allowed, "GUNICORN_BIND": "0.0.0.0:8000"})

    hosts = allowed.split(",") if allowed else ["localhost"]
    assert validate_host(request.get_header("Host"), hosts)
    assert request.full_url == "http://127.0.0.1:8000/healthz/ready"


def test_the_healthcheck_fails_when_nothing_answers():
    assert healthcheck.main({"ALLOWED_HOSTS": "x.example", "GUNICORN_BIND": "127.0.0.1:9"}) == 1


def test_the_web_unit_never_reloads_a_preloaded_app_with_a_hup():
    unit = (ROOT / "deploy" / "poundadmin-web.service").read_text()
    preloads = re.search(r"^preload_app = True$", (ROOT / "gunicorn.conf.py").read_text(), re.M)
    reloads = [line for line in unit.splitlines() if line.startswith("ExecReload=")]
    assert not (preloads and any("HUP" in line for line in reloads)), reloads
    assert "systemctl restart" in (ROOT / "docs" / "operations.md").read_text()


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.timeout(300)
def test_the_healthcheck_passes_against_gunicorn_serving_only_the_public_name(tmp_path):
    """A real gunicorn whose ALLOWED_HOSTS holds only the public name, with the HTTPS redirect
    on: a request to 127.0.0.1 under its own name is refused, the healthcheck is answered."""
    from django.db import connection

    db = connection.settings_dict
    port = _free_port()
    key = Ed25519PrivateKey.generate().public_key()
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}",
        "PGPASSWORD": db["PASSWORD"] or "",
        "ALLOWED_HOSTS": "pounds.example.gov.in",
        "SECURE_SSL_REDIRECT": "true",
        "MEDIA_ROOT": str(tmp_path),
        "CHECKPOINT_PUBLIC_KEY": base64.b64encode(anchors.raw_public(key)).decode(),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": "1",
        "LOG_LEVEL": "ERROR",
    }
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
        deadline = time.monotonic() + 120
        while healthcheck.main(env) != 0 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert healthcheck.main(env) == 0, (tmp_path / "server.log").read_text()[-3000:]
        plain = urllib.request.Request(f"http://127.0.0.1:{port}/healthz/ready")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(plain, timeout=10)
        assert refused.value.code == 400
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
