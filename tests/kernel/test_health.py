"""/healthz answers anyone, with no data: liveness; readiness over the database, the storage and
what the server needs to serve (the static manifest, the checkpoint key), within its bound
whatever hangs (docs/decisions/0052); and the worker's queue, for the monitoring, apart from
readiness."""

import base64
import json
import uuid
from datetime import timedelta

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.db import DEFAULT_DB_ALIAS, connections
from django.tasks import task
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from kernel import anchors, dbsettings, worker
from tests.silent import SilentServer

DB_QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
READY = {
    "database": "ok",
    "storage": "ok",
    "static": "ok",
    "signing_key": "ok",
    "webhook_key": "ok",
}


@pytest.fixture(autouse=True)
def verifying_key(settings):
    """A server that verifies checkpoints, as production has (the tests' settings have none)."""
    key = anchors.raw_public(Ed25519PrivateKey.generate().public_key())
    settings.CHECKPOINT_PUBLIC_KEY = base64.b64encode(key).decode()


@task()
def noop():
    return None


def test_liveness_answers_anonymous_with_ok(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert json.loads(response.content) == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


def _s3(endpoint):
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": "nowhere",
            "endpoint_url": endpoint,
            "access_key": "x",
            "secret_key": "x",
            "region_name": "us-east-1",
        },
    }


def _alter_database(sql):
    """Run `sql` on a connection of its own, committed at once: the readiness probe's new
    connection must see it, and the test's transaction is never committed."""
    own = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with own.cursor() as cursor:
            for statement in sql:
                cursor.execute(statement)
    finally:
        own.close()


@pytest.fixture
def production_settings():
    """The test database with deploy/postgresql/poundadmin.conf's settings, then without."""
    if connections[DEFAULT_DB_ALIAS].vendor == "postgresql":
        name = connections[DEFAULT_DB_ALIAS].settings_dict["NAME"]
        _alter_database(dbsettings.apply_sql(name))
        yield
        _alter_database(dbsettings.reset_sql(name))
    else:
        yield


def _queued(minutes_ago=0):
    result = noop.using(backend="default").enqueue()
    DBTaskResult.objects.filter(pk=result.id).update(
        enqueued_at=timezone.now() - timedelta(minutes=minutes_ago)
    )
    return result.id


def test_readiness_checks_the_database_and_the_storage(client, settings, production_settings):
    settings.TASKS = DB_QUEUE

    body = json.loads(client.get("/healthz/ready").content)

    assert body["status"] == "ok"
    assert body["checks"] == READY
    # No data: nothing but the checks and the time they took.
    assert set(body) == {"status", "checks", "took_ms"}


@pytest.mark.postgres
def test_readiness_warns_but_stays_ok_when_the_database_lacks_production_settings(client):
    """ADR 0064: the figures rely on deploy/postgresql/poundadmin.conf; a database without it
    says so, and still serves (readiness must not flap on a setting)."""
    name = connections[DEFAULT_DB_ALIAS].settings_dict["NAME"]
    _alter_database(
        [*dbsettings.reset_sql(name), f'ALTER DATABASE "{name}" SET random_page_cost = 4']
    )
    try:
        response = client.get("/healthz/ready")
    finally:
        _alter_database(dbsettings.reset_sql(name))

    body = json.loads(response.content)
    assert response.status_code == 200 and body["checks"] == READY
    assert "random_page_cost" in body["warnings"]["database_settings"]
    assert "poundadmin.conf" in body["warnings"]["database_settings"]


@pytest.mark.postgres
def test_the_apps_own_sessions_run_without_jit_whatever_the_database_says():
    """ADR 0086: a page's statements are short; JIT's compile (100-200 ms once a plan's cost
    passes jit_above_cost) is never paid by a request, even on a database left at jit = on."""
    name = connections[DEFAULT_DB_ALIAS].settings_dict["NAME"]
    _alter_database([f'ALTER DATABASE "{name}" SET jit = on'])
    own = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with own.cursor() as cursor:
            cursor.execute("SHOW jit")
            assert cursor.fetchone() == ("off",)
    finally:
        own.close()
        _alter_database(dbsettings.reset_sql(name))


@pytest.mark.postgres
def test_the_deploy_settings_are_what_postgresql_shows_once_applied(production_settings):
    """Each value of poundadmin.conf is written as SHOW prints it, or the check never passes."""
    own = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with own.cursor() as cursor:
            assert dbsettings.differences(cursor) == {}
    finally:
        own.close()
    assert {"random_page_cost", "jit", "work_mem", "default_statistics_target"} <= set(
        dbsettings.wanted()
    )


@pytest.mark.postgres
def test_readiness_stays_ok_with_the_worker_stopped_and_the_queue_old(client, settings):
    """A stopped worker must not take every web server out of the load balancer."""
    settings.TASKS = DB_QUEUE
    settings.HEALTH_QUEUE_MAX_AGE = 600
    _queued(minutes_ago=60)

    response = client.get("/healthz/ready")

    assert response.status_code == 200
    assert not worker.live_leases().exists()


def test_readiness_fails_when_the_static_manifest_is_missing(client, settings, tmp_path):
    """The production storage with no `collectstatic` behind it: every page would be a 500."""
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

    response = client.get("/healthz/ready")

    assert response.status_code == 503
    assert json.loads(response.content)["checks"] == {**READY, "static": "fail"}


def test_readiness_fails_without_a_checkpoint_key_in_production(client, settings):
    settings.CHECKPOINT_PUBLIC_KEY = ""
    settings.CHECKPOINT_SIGNING_KEY = settings.CHECKPOINT_SIGNING_KEY_FILE = ""

    response = client.get("/healthz/ready")

    assert response.status_code == 503
    assert json.loads(response.content)["checks"] == {**READY, "signing_key": "fail"}


def test_readiness_fails_when_the_signing_key_file_cannot_be_read(client, settings, tmp_path):
    settings.CHECKPOINT_SIGNING_KEY_FILE = str(tmp_path / "missing.pem")

    response = client.get("/healthz/ready")

    assert response.status_code == 503
    assert json.loads(response.content)["checks"]["signing_key"] == "fail"


def test_readiness_is_ok_with_a_signing_key_file(client, settings, tmp_path):
    settings.CHECKPOINT_PUBLIC_KEY = ""
    pem = tmp_path / "checkpoint.pem"
    pem.write_bytes(
        Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    settings.CHECKPOINT_SIGNING_KEY_FILE = str(pem)

    assert client.get("/healthz/ready").status_code == 200


def test_readiness_fails_when_the_storage_does_not_answer(client, settings):
    settings.STORAGES = {**settings.STORAGES, "default": _s3("http://127.0.0.1:9")}

    response = client.get("/healthz/ready")

    assert response.status_code == 503
    # Refused at once, or (on a machine this busy) still trying when the probe's bound ends it.
    assert json.loads(response.content)["checks"]["storage"] in ("fail", "timeout")


def test_readiness_answers_within_its_bound_when_the_store_hangs(client, settings):
    """The store accepts and never answers; boto3's own timeouts (a minute, retried) are left
    long here, so only the probe's bound can end the wait."""
    settings.HEALTH_PROBE_SECONDS = 1
    with SilentServer() as store:
        settings.STORAGES = {**settings.STORAGES, "default": _s3(f"http://127.0.0.1:{store.port}")}

        response = client.get("/healthz/ready")

    # Cut by readiness's own bound (a "timeout"), never by boto3's (a "fail").
    body = json.loads(response.content)
    assert response.status_code == 503
    assert body["checks"]["storage"] == "timeout"


@pytest.mark.postgres
def test_queue_is_ok_when_nothing_waits_and_nothing_is_stuck(client, settings):
    settings.TASKS = DB_QUEUE

    response = client.get("/healthz/queue")

    body = json.loads(response.content)
    assert response.status_code == 200
    assert body["checks"] == {"waiting": "ok", "leases": "ok"}
    assert (body["oldest_ready_seconds"], body["running"], body["stuck"]) == (0, 0, [])


@pytest.mark.postgres
def test_queue_fails_when_the_oldest_task_has_waited_too_long(client, settings):
    settings.TASKS = DB_QUEUE
    settings.HEALTH_QUEUE_MAX_AGE = 600
    _queued(minutes_ago=15)

    response = client.get("/healthz/queue")

    body = json.loads(response.content)
    assert response.status_code == 503
    assert body["checks"]["waiting"] == "fail" and 890 <= body["oldest_ready_seconds"] <= 910


@pytest.mark.postgres
@pytest.mark.real_clock  # leases are read by the database's clock, which no test moves
def test_queue_shows_a_running_task_whose_lease_lapsed_as_stuck(client, settings):
    settings.TASKS = DB_QUEUE
    settings.WORKER_LEASE_SECONDS = 30
    stuck, held = _queued(), _queued()
    DBTaskResult.objects.filter(pk__in=[stuck, held]).update(
        status="RUNNING", started_at=timezone.now() - timedelta(minutes=5)
    )
    worker.renew(worker_id="alive", task_id=held)

    response = client.get("/healthz/queue")

    body = json.loads(response.content)
    assert response.status_code == 503
    assert body["checks"]["leases"] == "fail"
    assert [task["id"] for task in body["stuck"]] == [str(uuid.UUID(str(stuck)))]
    assert body["stuck"][0]["task"] == "noop" and body["stuck"][0]["running_seconds"] >= 299
    assert (body["running"], body["workers"]) == (2, 1)
