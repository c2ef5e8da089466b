"""The worker's leases (docs/decisions/0052): a task survives the worker that died running it.

django-tasks-db marks a task RUNNING when a worker takes it and never looks at it again, so a
worker killed mid-task (kill -9, an out-of-memory kill, a lost machine) left it running for
ever. Here each worker process holds a lease (`WorkerLease`, one row) that a heartbeat thread
renews every third of `WORKER_LEASE_SECONDS`, by the database's clock, naming the task it runs.
On every beat each worker also sweeps: a lease that lapsed has its PostgreSQL sessions ended
(its query stops) and is dropped, and a running task that no live lease holds goes back to the
queue, for any worker to take, or is marked failed after `TASK_MAX_ATTEMPTS` tries. A worker
whose result arrives after its task was taken from it records nothing (`finish_if_still_ours`).
"""

import logging
import os
import socket
import threading
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, connection, connections, transaction
from django.db.models import DateTimeField, ExpressionWrapper, Q
from django.db.models.functions import Now
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from .models import WorkerLease

logger = logging.getLogger(__name__)

LOST = "kernel.worker.WorkerLost"


def _ago(seconds):
    """The database's clock `seconds` ago (or ahead, when negative): every host agrees on it."""
    return ExpressionWrapper(Now() - timedelta(seconds=seconds), output_field=DateTimeField())


def lease_seconds():
    return settings.WORKER_LEASE_SECONDS


def beat_seconds():
    return max(lease_seconds() / 3, 0.2)


def application_name(worker_id):
    """The name a worker's PostgreSQL sessions carry, so that a sweep ends exactly them."""
    return f"poundadmin-worker {worker_id}"[:63]


def on_postgres():
    return connection.vendor == "postgresql"


def backend_pid():
    """The PostgreSQL backend of this thread's connection (None elsewhere)."""
    if not on_postgres():
        return None
    connection.ensure_connection()
    return connection.connection.info.backend_pid


def renew(*, worker_id, task_id=None, pid=None):
    """Take or renew `worker_id`'s lease, naming the task it runs now (None when idle)."""
    fields = {
        "task_id": task_id,
        "backend_pid": pid,
        "renewed_at": Now(),
        "expires_at": _ago(-lease_seconds()),
    }
    if not WorkerLease.objects.filter(worker_id=worker_id).update(**fields):
        WorkerLease.objects.create(
            worker_id=worker_id,
            host=socket.gethostname()[:255],
            pid=os.getpid(),
            application_name=application_name(worker_id) if on_postgres() else "",
            started_at=Now(),
            **fields,
        )


def release(worker_id):
    """A worker that stops on purpose gives its lease up: it no longer counts as alive."""
    WorkerLease.objects.filter(worker_id=worker_id).delete()


def live_leases():
    return WorkerLease.objects.filter(expires_at__gte=Now())


def workers_alive():
    """Has any worker renewed its lease lately? False when the queue is not the database's."""
    if not settings.TASKS["default"]["BACKEND"].startswith("django_tasks_db"):
        return True
    return live_leases().exists()


def lost(task_ids):
    """The ids among `task_ids` whose task was given up after its worker stopped on every try
    (`sweep`): nothing will run them again, so what waits for them can say so."""
    ids = []
    for pk in task_ids:
        try:  # the database queue's ids are UUIDs; another backend's are not, and never lost
            ids.append(str(uuid.UUID(str(pk))))
        except ValueError:
            continue
    if not ids:
        return set()
    failed = DBTaskResult.objects.filter(
        pk__in=ids, status=TaskResultStatus.FAILED, exception_class_path=LOST
    )
    return {str(pk) for pk in failed.values_list("pk", flat=True)}


def abandoned():
    """Running tasks no live lease holds, taken longer than a lease ago: their worker died."""
    held = live_leases().filter(task_id__isnull=False).values("task_id")
    return (
        DBTaskResult.objects.running()
        .exclude(id__in=held)
        .filter(Q(started_at__isnull=True) | Q(started_at__lt=_ago(lease_seconds())))
    )


def _end_sessions(lease):
    """End the lapsed worker's PostgreSQL sessions: a frozen or cut-off worker's query stops,
    and the row locks it held go with it. Matched by the worker's own application name, so a
    backend pid taken again by a new session is never touched."""
    if not (on_postgres() and lease.application_name):
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = %s AND pid <> pg_backend_pid()",
            [lease.application_name],
        )
        return cursor.fetchone()[0]


@transaction.atomic
def sweep():
    """Drop the lapsed leases (ending their sessions), then put every abandoned task back on
    the queue, or mark it failed once it has been tried TASK_MAX_ATTEMPTS times. Two workers
    sweeping at once each skip what the other has locked. Returns the ids put back."""
    for lease in WorkerLease.objects.select_for_update(skip_locked=True, of=("self",)).filter(
        expires_at__lt=Now()
    ):
        ended = _end_sessions(lease)
        logger.warning("Worker %s lapsed; %d session(s) ended", lease.worker_id, ended)
        lease.delete()
    requeued = []
    for result in abandoned().select_for_update(skip_locked=True, of=("self",)):
        if len(result.worker_ids) >= settings.TASK_MAX_ATTEMPTS:
            DBTaskResult.objects.filter(pk=result.pk).update(
                status=TaskResultStatus.FAILED,
                finished_at=timezone.now(),
                exception_class_path=LOST,
                traceback=f"The worker running this task stopped, {len(result.worker_ids)} times.",
            )
            logger.error("Task %s failed: its worker stopped on every try", result.pk)
            continue
        DBTaskResult.objects.filter(pk=result.pk).update(status=TaskResultStatus.READY)
        requeued.append(result.pk)
        logger.warning("Task %s put back on the queue: its worker stopped", result.pk)
    return requeued


def finish_if_still_ours(db_task_result, worker_id, finish):
    """Call `finish` (the result's set_successful or set_failed) only while the task is still
    this worker's: after its lease lapsed another worker may run it, and its outcome is that
    worker's to record. Holds the task's row meanwhile, as a sweep does."""

    def guarded(*args, **kwargs):
        close_old_connections()  # a sweep may have ended this worker's session
        with transaction.atomic():
            row = (
                DBTaskResult.objects.select_for_update(of=("self",))
                .filter(pk=db_task_result.pk)
                .values_list("status", "worker_ids")
                .first()
            )
            if row is None or row[0] != TaskResultStatus.RUNNING or row[1][-1:] != [worker_id]:
                logger.warning("Task %s was taken from worker %s", db_task_result.pk, worker_id)
                return None
            return finish(*args, **kwargs)

    return guarded


class Heartbeat(threading.Thread):
    """Renews its worker's lease every beat, naming the task the worker runs, and sweeps.
    A failed beat (the database away) is logged and tried again at the next; a worker that
    cannot renew for a whole lease loses its task to another, and records nothing of it.

    Stopped, the thread gives the lease up itself, after its last beat: no renewal can land
    after the release, whatever the machine's speed, because one thread does both in turn."""

    # How long a stopping worker waits for the last beat and the release, under the unit's
    # TimeoutStopSec; past it the worker ends anyway, and its lease lapses by itself.
    STOP_WAIT = 60

    def __init__(self, worker_id):
        super().__init__(name="worker-lease", daemon=True)
        self.worker_id = worker_id
        self.task_id = None
        self.pid = None
        self.stopping = threading.Event()

    def hold(self, task_id, pid):
        self.task_id, self.pid = task_id, pid

    def run(self):
        try:
            while not self.stopping.wait(beat_seconds()):
                self.beat()
            release(self.worker_id)
        except Exception:  # the lease then lapses by itself within a lease
            logger.exception("Worker %s could not give its lease up", self.worker_id)
        finally:
            connections.close_all()

    def beat(self):
        try:
            renew(worker_id=self.worker_id, task_id=self.task_id, pid=self.pid)
            sweep()
        except Exception:  # the thread must live on: a lapsed lease would give the task away
            logger.exception("Worker %s could not renew its lease", self.worker_id)
            connection.close()

    def stop(self):
        """End the beats and give the lease up: the thread does it after a beat under way,
        or this caller does it when the thread never started."""
        self.stopping.set()
        if self.ident is None:  # never started
            release(self.worker_id)
            return
        self.join(timeout=self.STOP_WAIT)
        if self.is_alive():
            logger.warning("Worker %s stopped before its lease was given up", self.worker_id)
