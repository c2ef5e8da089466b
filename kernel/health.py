"""/healthz: is the process up (liveness), can it serve (readiness: the database, the storage, the
static files' manifest, the checkpoint key and the webhooks' key), and is the worker keeping up
(the queue, for monitoring). Readiness also warns, without failing, when the database lacks
production's PostgreSQL settings (kernel/dbsettings.py). Public, and they show no data: "ok" or
"fail" per check, ages in seconds, and the ids of stuck tasks.

Readiness is what a load balancer trusts, so it looks at nothing this server does not need to
answer a request: not the worker, whose absence would otherwise take every server out of
service (docs/decisions/0052). Each of its checks runs in a thread of its own and is given up
after HEALTH_PROBE_SECONDS, so the page answers in time whatever hangs behind it. A server
started without what it needs to serve (the manifest `collectstatic` writes under the production
storage, without which every page is a 500; a checkpoint key that is set but cannot be read, or
none at all in production) is not ready either (docs/operations.md).
"""

import os
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as ProbeTimeout
from queue import SimpleQueue

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.staticfiles.storage import ManifestFilesMixin
from django.core.files.storage import default_storage, storages
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_tasks_db.models import DBTaskResult

from . import anchors, dbsettings, worker


class _Prober:
    """One daemon thread of this process that runs one check when asked: its connection to the
    store is made once and kept, and a probe stuck on a hung store never holds up the database's,
    nor the process's exit. A probe given up before it started is skipped."""

    def __init__(self, call):
        self.call, self.asks = call, SimpleQueue()
        threading.Thread(target=self._serve, name=f"healthz-{call.__name__}", daemon=True).start()

    def _serve(self):
        while True:
            future = self.asks.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(self.call())
            except Exception as exc:  # handed to the asker, who reports it
                future.set_exception(exc)

    def ask(self):
        future = Future()
        self.asks.put(future)
        return future


_probers = {"pid": None}
_probers_lock = threading.Lock()


def _prober(call):
    """The prober of `call` in this process (gunicorn forks after loading the app)."""
    with _probers_lock:
        if _probers["pid"] != os.getpid():
            _probers.clear()
            _probers["pid"] = os.getpid()
        if call not in _probers:
            _probers[call] = _Prober(call)
        return _probers[call]


def _database():
    # A connection of its own, opened and closed here: the request's is never held up.
    probe = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with probe.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        probe.close()


def _storage():
    # A HEAD request on S3, a stat on the filesystem: proves the store answers and we may ask.
    default_storage.exists("healthz-probe")


def _static():
    # The manifest storage raises on every {% static %} without its manifest: every page a 500.
    static = storages["staticfiles"]
    if isinstance(static, ManifestFilesMixin) and not static.read_manifest():
        raise FileNotFoundError(static.manifest_name)


def _signing_key():
    # A key set but unreadable (a wrong path, not Ed25519) raises here. A server with no key
    # at all must at least verify (CHECKPOINT_PUBLIC_KEY); in development neither is needed.
    if anchors.signing_key() is None and not settings.DEBUG and not anchors.public_key():
        raise LookupError("CHECKPOINT_SIGNING_KEY_FILE")


# webhooks.models.WebhookSubscription's table (its Meta.db_table), read by name: the kernel
# imports no app above it.
WEBHOOK_TABLE = "api_webhooksubscription"


def _webhook_key():
    # A live webhook's secret is sealed with WEBHOOK_SECRET_KEYS (ADR 0060): without the key no
    # delivery can be signed. Asked of the database only when no key is set.
    if settings.WEBHOOK_SECRET_KEYS or settings.DEBUG:
        return
    probe = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with probe.cursor() as cursor:
            cursor.execute(f"SELECT 1 FROM {WEBHOOK_TABLE} WHERE stopped_at IS NULL LIMIT 1")
            if cursor.fetchone() is not None:
                raise LookupError("WEBHOOK_SECRET_KEYS")
    finally:
        probe.close()


READINESS = {
    "database": _database,
    "storage": _storage,
    "static": _static,
    "signing_key": _signing_key,
    "webhook_key": _webhook_key,
}


def _database_settings():
    """The production settings this database lacks (ADR 0064), [] when it has them all."""
    if connections[DEFAULT_DB_ALIAS].vendor != "postgresql":
        return []
    probe = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with probe.cursor() as cursor:
            return sorted(dbsettings.differences(cursor))
    finally:
        probe.close()


def _warnings(budget):
    """What readiness reports without failing on it: a database without production's settings
    serves, slower (docs/capacity.md), and a load balancer must not take servers out for it."""
    future = _prober(_database_settings).ask()
    try:
        lacking = future.result(timeout=max(budget, 0))
    except ProbeTimeout:
        future.cancel()
        return {"database_settings": "timeout"}
    except Exception:
        return {"database_settings": "unknown"}
    if not lacking:
        return {}
    return {
        "database_settings": "differ from deploy/postgresql/poundadmin.conf: " + ", ".join(lacking)
    }


def _run_checks(checks, budget):
    """{name: "ok" | "fail" | "timeout"}, every check given up once `budget` seconds pass."""
    deadline = time.monotonic() + budget
    futures = {name: _prober(call).ask() for name, call in checks.items()}
    results = {}
    for name, future in futures.items():
        try:
            future.result(timeout=max(deadline - time.monotonic(), 0))
        except ProbeTimeout:
            future.cancel()  # still waiting behind a hung probe: skipped when its turn comes
            results[name] = "timeout"
        except Exception:  # a failed check is reported, never raised: this page must answer
            results[name] = "fail"
        else:
            results[name] = "ok"
    return results


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
    checks = _run_checks(READINESS, settings.HEALTH_PROBE_SECONDS)
    healthy = all(v == "ok" for v in checks.values())
    left = settings.HEALTH_PROBE_SECONDS - (time.monotonic() - started)
    warnings = _warnings(left) if checks["database"] == "ok" else {}
    body = {
        "status": "ok" if healthy else "fail",
        "checks": checks,
        **({"warnings": warnings} if warnings else {}),
        "took_ms": round((time.monotonic() - started) * 1000),
    }
    return JsonResponse(body, status=200 if healthy else 503)


def _seconds_since(moment):
    return int((timezone.now() - moment).total_seconds()) if moment else None


def _queue():
    oldest = DBTaskResult.objects.ready().order_by("enqueued_at").values("enqueued_at").first()
    stuck = worker.abandoned().order_by("started_at").values("id", "task_path", "started_at")
    return {
        "oldest_ready_seconds": _seconds_since(oldest["enqueued_at"]) if oldest else 0,
        "running": DBTaskResult.objects.running().count(),
        "workers": worker.live_leases().count(),
        "stuck": [
            {
                "id": str(task["id"]),
                "task": task["task_path"].rsplit(".", 1)[-1],
                "running_seconds": _seconds_since(task["started_at"]),
            }
            for task in stuck[:20]
        ],
    }


@login_not_required
@never_cache
@require_GET
def queue(request):
    """For monitoring, never for a load balancer: 503 when the oldest task ready to run has
    waited over HEALTH_QUEUE_MAX_AGE (no worker, or too few), or a running task's worker
    stopped renewing its lease (the task is stuck until a worker sweeps it back)."""
    if not settings.TASKS["default"]["BACKEND"].startswith("django_tasks_db"):
        return JsonResponse({"status": "ok", "queue": "immediate"})
    try:
        body = _queue()
    except Exception:  # the database or the queue's table unreadable: this page must answer
        return JsonResponse({"status": "fail", "checks": {"queue": "fail"}}, status=503)
    waited_too_long = body["oldest_ready_seconds"] > settings.HEALTH_QUEUE_MAX_AGE
    checks = {
        "waiting": "fail" if waited_too_long else "ok",
        "leases": "fail" if body["stuck"] else "ok",
    }
    healthy = all(v == "ok" for v in checks.values())
    body = {"status": "ok" if healthy else "fail", "checks": checks, **body}
    return JsonResponse(body, status=200 if healthy else 503)
