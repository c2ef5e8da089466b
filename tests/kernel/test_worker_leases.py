"""A task survives its worker (docs/decisions/0052): each worker holds a lease on the task it
runs and renews it; when the lease lapses, any worker ends the dead one's sessions and puts the
task back on the queue. The slow tests run real `manage.py db_worker` processes, with a lease of
a few seconds, and kill one mid-task."""

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.core.management import get_commands
from django.db import connection
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from kernel import worker
from kernel.management.commands import db_worker
from kernel.models import WorkerLease
from tests.kernel.lease_tasks import hold_then_finish
from tests.kernel.test_db_roles import acting_as, roles  # noqa: F401 - a fixture

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True), pytest.mark.real_clock]
ROOT = Path(__file__).resolve().parents[2]
LEASE = 3  # seconds, in the workers these tests start
BOUND = 120  # seconds any wait below may take: generous, so that no test depends on speed


@pytest.fixture(autouse=True)
def db_queue(settings):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    settings.WORKER_LEASE_SECONDS = LEASE
    settings.TASK_MAX_ATTEMPTS = 3


def _running(minutes_ago=5, tries=1):
    result = hold_then_finish.using(backend="default").enqueue(0)
    DBTaskResult.objects.filter(pk=result.id).update(
        status="RUNNING",
        started_at=timezone.now() - timedelta(minutes=minutes_ago),
        worker_ids=[f"dead{i}" for i in range(tries)],
    )
    return result.id


def _lapse(worker_id):
    WorkerLease.objects.filter(worker_id=worker_id).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_the_kernels_worker_is_the_one_manage_py_runs():
    assert get_commands()["db_worker"] == "kernel"


def test_a_sweep_puts_back_a_running_task_that_no_live_lease_holds():
    orphan, held = _running(), _running()
    worker.renew(worker_id="alive", task_id=held)
    worker.renew(worker_id="gone", task_id=orphan)
    _lapse("gone")

    requeued = worker.sweep()

    assert [str(pk) for pk in requeued] == [orphan]
    assert DBTaskResult.objects.get(pk=orphan).status == "READY"
    assert DBTaskResult.objects.get(pk=held).status == "RUNNING"
    assert list(WorkerLease.objects.values_list("worker_id", flat=True)) == ["alive"]


def test_a_sweep_leaves_a_task_just_taken_before_its_worker_first_renewed():
    taken = _running(minutes_ago=0)

    assert worker.sweep() == []
    assert DBTaskResult.objects.get(pk=taken).status == "RUNNING"


def test_a_task_whose_worker_died_on_every_try_is_marked_failed():
    doomed = _running(tries=3)

    assert worker.sweep() == []

    result = DBTaskResult.objects.get(pk=doomed)
    assert (result.status, result.exception_class_path) == ("FAILED", worker.LOST)
    assert result.finished_at is not None


def test_a_worker_whose_task_was_taken_from_it_records_nothing():
    task_id = _running()
    DBTaskResult.objects.filter(pk=task_id).update(worker_ids=["slow", "other"])
    result = DBTaskResult.objects.get(pk=task_id)
    calls = []

    worker.finish_if_still_ours(result, "slow", calls.append)("done")
    worker.finish_if_still_ours(result, "other", calls.append)("done")

    assert calls == ["done"]


def test_workers_are_alive_while_one_lease_is_live():
    assert not worker.workers_alive()
    worker.renew(worker_id="alive")
    assert worker.workers_alive()
    _lapse("alive")
    assert not worker.workers_alive()


def test_a_worker_renews_sweeps_and_ends_a_lapsed_session_as_the_runtime_role(roles):  # noqa: F811
    """The runtime role owns nothing (kernel/dbroles.py) and is no superuser: its grants still
    let a worker sweep, and it may end the sessions of its own role's lapsed worker."""
    db = settings.DATABASES["default"]
    orphan = _running()
    name = worker.application_name("gone")
    dead = psycopg.connect(
        host=db["HOST"], port=db["PORT"], dbname=db["NAME"], user=roles[1], application_name=name
    )
    try:
        with acting_as(roles[1]):
            worker.renew(worker_id="gone", task_id=orphan)
            _lapse("gone")
            assert [str(pk) for pk in worker.sweep()] == [orphan]
            worker.renew(worker_id="alive")
            worker.release("alive")
        pid = dead.info.backend_pid
        _wait_for(lambda: _backend_gone(pid), "the lapsed worker's session to end")
    finally:
        dead.close()
    assert not WorkerLease.objects.exists()


def test_a_worker_ended_by_a_signal_as_it_starts_gives_its_lease_up(monkeypatch):
    """The library's signal handler ends an idle worker by SystemExit, wherever it is: here
    in the sweep that follows the worker's first renewal."""

    def signalled():
        raise SystemExit(0)

    monkeypatch.setattr(db_worker, "_name_sessions", lambda worker_id: None)
    monkeypatch.setattr(worker, "sweep", signalled)
    leased = db_worker.LeasedWorker(
        queue_names=["default"],
        excluded_queue_names=[],
        interval=1,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="signalled",
    )

    with pytest.raises(SystemExit):
        leased.run()

    assert not WorkerLease.objects.exists()


def test_a_renewal_under_way_as_the_worker_stops_cannot_outlive_the_release(monkeypatch, settings):
    """The beat that was renewing when the worker stopped lands before the lease is given up,
    however long it takes: the heartbeat's own thread gives it up, after its last beat."""
    settings.WORKER_LEASE_SECONDS = 0.6
    renew, entered, gate = worker.renew, threading.Event(), threading.Event()

    def slow_renew(**kwargs):
        entered.set()
        gate.wait(BOUND)
        renew(**kwargs)

    monkeypatch.setattr(worker, "renew", slow_renew)
    heartbeat = worker.Heartbeat("slow")
    heartbeat.start()
    assert entered.wait(BOUND)
    stopper = threading.Thread(target=heartbeat.stop)
    stopper.start()
    # Longer than a lease: the wait a stopping worker once gave a beat under way.
    stopper.join(timeout=worker.lease_seconds() * 2)
    gate.set()
    stopper.join(BOUND)

    assert not heartbeat.is_alive()
    assert not WorkerLease.objects.exists()


# Real workers, killed mid-task.


def _start_worker(log):
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
        "WORKER_LEASE_SECONDS": str(LEASE),
        "LOG_LEVEL": "WARNING",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--interval", "0.2", "--no-startup-delay"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def _wait_for(condition, what):
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"waited {BOUND} s for {what}")


def _backend_sleeping(task_id):
    """The pid of the PostgreSQL backend the task's worker runs it on, once it is in pg_sleep."""
    lease = WorkerLease.objects.filter(task_id=task_id, backend_pid__isnull=False).first()
    if lease is None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_stat_activity WHERE pid = %s AND query LIKE %s",
            [lease.backend_pid, "%pg_sleep%"],
        )
        return lease.backend_pid if cursor.fetchone() else None


def _backend_gone(pid):
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid])
        return cursor.fetchone() is None


def _stop(*procs):
    for proc in procs:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def _killed_mid_task_then_finished_by_another(tmp_path, how):
    task_id = hold_then_finish.using(backend="default").enqueue(600).id
    log = (tmp_path / "workers.log").open("w")
    first = _start_worker(log)
    second = None
    try:
        backend = _wait_for(lambda: _backend_sleeping(task_id), "the first worker's query")
        os.kill(first.pid, how)
        killed_at = time.monotonic()
        second = _start_worker(log)

        _wait_for(lambda: DBTaskResult.objects.get(pk=task_id).status == "SUCCESSFUL", "the task")
        finished_in = time.monotonic() - killed_at
        _wait_for(lambda: _backend_gone(backend), "the dead worker's query to end")
    finally:
        if how == signal.SIGSTOP:
            os.kill(first.pid, signal.SIGCONT)
        _stop(first, *filter(None, [second]))
        log.close()
    result = DBTaskResult.objects.get(pk=task_id)
    print(f"killed with {signal.Signals(how).name}: finished {finished_in:.1f} s later")
    return result


@pytest.mark.slow
def test_a_task_whose_worker_was_killed_is_finished_by_another_worker(tmp_path):
    result = _killed_mid_task_then_finished_by_another(tmp_path, signal.SIGKILL)

    assert result.return_value == 2
    assert len(result.worker_ids) == 2 and result.worker_ids[0] != result.worker_ids[1]


@pytest.mark.slow
def test_a_frozen_workers_query_is_ended_and_its_task_finished_by_another(tmp_path):
    """A frozen worker (or one cut off from the database) keeps its session open: only the
    sweep, ending the sessions of the lapsed lease, stops its query."""
    result = _killed_mid_task_then_finished_by_another(tmp_path, signal.SIGSTOP)

    assert result.return_value == 2
    assert not WorkerLease.objects.filter(worker_id=result.worker_ids[0]).exists()


@pytest.mark.slow
def test_a_worker_stopped_on_purpose_gives_its_lease_up(tmp_path):
    """So the waiting page says at once that no worker runs, rather than a lease later."""
    with (tmp_path / "worker.log").open("w") as log:
        running = _start_worker(log)
        try:
            _wait_for(lambda: WorkerLease.objects.exists(), "the worker's lease")
            assert worker.workers_alive()

            running.send_signal(signal.SIGTERM)
            running.wait(timeout=BOUND)
        finally:
            _stop(running)

    assert running.returncode == 0
    assert not WorkerLease.objects.exists() and not worker.workers_alive()
