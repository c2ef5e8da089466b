"""/healthz answers anyone, with no data: liveness, and readiness over the database, the storage
and the age of the worker's queue."""

import json
from datetime import timedelta

import pytest
from django.tasks import task
from django.utils import timezone
from django_tasks_db.models import DBTaskResult


@task()
def noop():
    return None


def test_liveness_answers_anonymous_with_ok(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert json.loads(response.content) == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_readiness_checks_the_database_the_storage_and_the_queue(client, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}

    body = json.loads(client.get("/healthz/ready").content)

    assert body["status"] == "ok"
    assert body["checks"] == {"database": "ok", "storage": "ok", "queue": "ok"}
    assert body["queue_age_seconds"] == 0
    # No data: nothing but the checks, the queue's age and the time the checks took.
    assert set(body) == {"status", "checks", "queue_age_seconds", "took_ms"}


@pytest.mark.postgres
def test_readiness_fails_when_the_oldest_task_has_waited_too_long(client, settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    settings.HEALTH_QUEUE_MAX_AGE = 600
    result = noop.using(backend="default").enqueue()
    DBTaskResult.objects.filter(pk=result.id).update(
        enqueued_at=timezone.now() - timedelta(minutes=15)
    )

    response = client.get("/healthz/ready")

    body = json.loads(response.content)
    assert response.status_code == 503
    assert body["checks"]["queue"] == "fail" and 890 <= body["queue_age_seconds"] <= 910


def test_readiness_fails_when_the_storage_does_not_answer(client, settings):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": "nowhere",
                "endpoint_url": "http://127.0.0.1:9",
                "access_key": "x",
                "secret_key": "x",
                "region_name": "us-east-1",
            },
        },
    }

    response = client.get("/healthz/ready")

    assert response.status_code == 503
    assert json.loads(response.content)["checks"]["storage"] == "fail"
