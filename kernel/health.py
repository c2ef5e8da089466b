"""/healthz: is the process up (liveness), and can it serve (readiness: the database, the
storage and the age of the oldest task waiting for the worker). Public, and it shows no data:
only "ok" or "fail" per check, and the queue's age in seconds."""

import time

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.files.storage import default_storage
from django.db import connection
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_tasks_db.models import DBTaskResult


def _database():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _storage():
    # A HEAD request on S3, a stat on the filesystem: proves the store answers and we may ask.
    default_storage.exists("healthz-probe")


def _queue_age():
    """Seconds the oldest task ready to run has waited (0 when none waits, or no queue)."""
    if not settings.TASKS["default"]["BACKEND"].startswith("django_tasks_db"):
        return 0
    oldest = DBTaskResult.objects.ready().order_by("enqueued_at").values("enqueued_at").first()
    if oldest is None:
        return 0
    return int((timezone.now() - oldest["enqueued_at"]).total_seconds())


def _check(call):
    try:
        call()
    except Exception:  # a failed check is reported, never raised: this page must answer
        return "fail"
    return "ok"


@login_not_required
@never_cache
@require_GET
def liveness(request):
    return JsonResponse({"status": "ok"})


@login_not_required
@never_cache
@require_GET
def readiness(request):
    started = time.monotonic()
    checks = {"database": _check(_database), "storage": _check(_storage)}
    age = None
    if checks["database"] == "ok":
        try:
            age = _queue_age()
        except Exception:  # the queue's table missing or unreadable
            checks["queue"] = "fail"
        else:
            checks["queue"] = "ok" if age <= settings.HEALTH_QUEUE_MAX_AGE else "fail"
    else:
        checks["queue"] = "fail"
    healthy = all(v == "ok" for v in checks.values())
    body = {
        "status": "ok" if healthy else "fail",
        "checks": checks,
        "queue_age_seconds": age,
        "took_ms": round((time.monotonic() - started) * 1000),
    }
    return JsonResponse(body, status=200 if healthy else 503)
