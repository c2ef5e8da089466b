"""The image, built as README.md says (its "The image" block, run word for word: a Debian base
made with mmdebstrap from the machine's Debian archive, no container registry; ADR 0059), and
run as production runs it: two web containers and a worker container on the test PostgreSQL and
an S3 store (moto's server), on the host's network. Ready (the static files' manifest built into
the image), then tests/test_two_servers.py's walk across the two containers, its PDFs drawn by
the image's WeasyPrint, its export prepared by the image's worker and one streamed by its server.

Run alone, by .ci/run's second stage after `make test` (POUNDADMIN_IMAGE_TEST=required: podman,
mmdebstrap and runc installed, a skip a failure), or wherever POUNDADMIN_IMAGE_TEST=1 asks for it.
Skipped otherwise, saying why: `make test` leaves it to that stage, so the suite takes the same
time whether or not the machine has podman (with it, the image was built twice in CI, once inside
the parallel suite, which took minutes longer). Skipped too where podman cannot build (not root,
podman or mmdebstrap missing)."""

import contextlib
import os
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings

from accounts.roles import Role
from kernel.events import verify_chain
from ledger.checks import run_checks
from tests.accounts.factories import staff
from tests.test_two_servers import (
    BUCKET,
    auction_conditions,
    export_in_the_request,
    export_through_the_worker,
    free_port,
    intake_with_photo,
    proclamation_with_photo,
    release_with_receipt,
    remittance,
    s3,  # noqa: F401  (the fixture)
    s14_report_and_notice,
    signed_in,
    wait_for,
)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.real_clock,  # the containers keep the real clock
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(1200),  # a first build makes the base and installs every package
]
ROOT = Path(__file__).resolve().parent.parent
TAG = "poundadmin"


def readme_build_block():
    """The shell block of README.md's "The image"."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n### The image\n", 1)[1].split("\n#", 1)[0]
    blocks = re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)
    assert len(blocks) == 1, "README's The image: one block, the build"
    return blocks[0]


def why_podman_cannot_build():
    if os.geteuid() != 0:
        return "the image is built as root (podman, mmdebstrap)"
    for tool in ("podman", "mmdebstrap"):
        if not shutil.which(tool):
            return f"{tool} is not installed (apt-get install podman mmdebstrap runc)"
    return None


@pytest.fixture(scope="module")
def image():
    asked = os.environ.get("POUNDADMIN_IMAGE_TEST", "")
    if asked not in ("1", "required"):
        pytest.skip(
            "the image is built and run by .ci/run after `make test` "
            "(POUNDADMIN_IMAGE_TEST=1 runs it here)"
        )
    reason = why_podman_cannot_build()
    if reason and asked == "required":
        pytest.fail(f"POUNDADMIN_IMAGE_TEST=required, but {reason}")
    if reason:
        pytest.skip(reason)
    built = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", readme_build_block()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1100,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return TAG


def podman(*args, check=True):
    """podman as scripts/build-image runs it (scripts/podman-options), `run` with its limits."""
    options = '"${PODMAN_OPTIONS[@]}"' if args[0] == "run" else ""
    script = f'. scripts/podman-options && exec "${{PODMAN[@]}}" "$1" {options} "${{@:2}}"'
    done = subprocess.run(
        ["bash", "-c", script, "podman", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 or not check, done.stderr
    return done


def checkpoint_key(tmp_path):
    """A signing key for the checkpoints, in a file the containers are given, as in production."""
    key = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path = tmp_path / "checkpoint.pem"
    path.write_bytes(key)
    path.chmod(0o644)  # for the image's user
    return ["--volume", f"{path}:/etc/poundadmin/checkpoint.pem:ro"]


def container_env(endpoint):
    db = settings.DATABASES["default"]
    env = {
        "DEBUG": "false",
        "SECRET_KEY": settings.SECRET_KEY,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "PUBLIC_BASE_URL": "https://pounds.example.gov.in",
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_COOKIES": "false",
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
        "S3_BUCKET": BUCKET,
        "S3_ENDPOINT_URL": endpoint,
        "S3_REGION": "us-east-1",
        "S3_ACCESS_KEY_ID": "testing",
        "S3_SECRET_ACCESS_KEY": "testing",
        "LOG_LEVEL": "ERROR",
        "GUNICORN_WORKERS": "1",
        "GUNICORN_THREADS": "2",
        "POUNDADMIN_READ_DOT_ENV": "false",
        "CHECKPOINT_SIGNING_KEY_FILE": "/etc/poundadmin/checkpoint.pem",
    }
    return [arg for name, value in env.items() for arg in ("--env", f"{name}={value}")]


@contextlib.contextmanager
def containers(image, endpoint, tmp_path):
    """Two web containers (the image's own command, gunicorn) and a worker container, each on
    the host's network; their output kept in tmp_path when they stop."""
    env = [*container_env(endpoint), *checkpoint_key(tmp_path)]
    common = ["run", "--detach", "--network", "host", "--no-healthcheck", *env]
    prefix = f"poundadmin-test-{uuid.uuid4().hex[:8]}"
    names = [f"{prefix}-a", f"{prefix}-b", f"{prefix}-worker"]
    worker = ["python", "manage.py", "db_worker", "--interval", "0.2", "--no-startup-delay"]
    bases = []
    try:  # named first, so that a container that failed to start is removed too
        for name in names[:2]:
            port = free_port()
            podman(*common, "--name", name, "--env", f"GUNICORN_BIND=127.0.0.1:{port}", image)
            bases.append(f"http://127.0.0.1:{port}")
        podman(*common, "--name", names[2], image, *worker)
        for base in bases:
            wait_for(f"{base}/healthz", seconds=90)
        yield bases
    finally:
        for name in names:
            podman("stop", "--time", "20", name, check=False)
            logs = podman("logs", name, check=False)
            (tmp_path / f"{name}.log").write_text(logs.stdout + logs.stderr)
            podman("rm", "--force", name, check=False)


def assert_ready(base, seconds=60):
    """`/healthz/ready` asked as the README's load balancer asks it: again until it answers 200.
    A container that has only just started, on a busy machine, may give up a check once at
    first (each has its 1.5 s budget); one that never becomes ready fails with its last answer."""
    deadline = time.monotonic() + seconds
    while True:
        ready = requests.get(f"{base}/healthz/ready", timeout=10)
        if ready.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert ready.status_code == 200, ready.text


def test_the_image_built_as_the_readme_says_serves_the_walk_with_its_worker(
    image,
    s3,  # noqa: F811
    tmp_path,
    district,
    pound,
    pound_keeper,
    police_officer,
    dm_clerk,
    magistrate,
    other_pound,
    tariffs,
):
    endpoint, store = s3
    elsewhere = staff(Role.POUND_KEEPER, "keeper_elsewhere", pound=other_pound)
    with containers(image, endpoint, tmp_path) as (a, b):
        for base in (a, b):
            assert_ready(base)
        keeper, office = signed_in(pound_keeper), signed_in(magistrate)
        officer, clerk = signed_in(police_officer), signed_in(dm_clerk)
        outsider = signed_in(elsewhere)
        home = keeper.get(a + "/", timeout=30)
        assert home.status_code == 200
        stylesheet = re.search(r'href="(/static/[^"]+\.css)"', home.text)
        assert stylesheet, "no stylesheet on the home page"
        assert requests.get(b + stylesheet[1], timeout=30).status_code == 200  # collected, hashed

        entry_pk = intake_with_photo(a, b, keeper, outsider, pound)
        release_with_receipt(a, b, keeper, office, outsider, entry_pk)
        auction_conditions(a, b, clerk, district)
        notice = s14_report_and_notice(a, b, keeper, officer, outsider, entry_pk)
        proclamation_with_photo(a, b, officer, keeper, outsider, notice)
        remittance(a, b, keeper, clerk, pound)
        export_through_the_worker(a, b, office, keeper)
        export_in_the_request(b, office)

    keys = [o["Key"] for o in store.list_objects_v2(Bucket=BUCKET)["Contents"]]
    assert {k.split("/", 1)[0] for k in keys} >= {"animals", "documents", "prepared"}
    assert run_checks() == []
    assert verify_chain() == []
