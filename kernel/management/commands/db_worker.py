"""`manage.py db_worker`: django-tasks-db's worker, holding a lease on the task it runs
(docs/decisions/0052, kernel/worker.py). Same arguments as the library's command, which this
one replaces (settings.INSTALLED_APPS lists the kernel before the library)."""

import logging
import os

from django.core.management.base import CommandError
from django.db import connections
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands import db_worker

from kernel import worker as leases

logger = logging.getLogger("django_tasks_db")


class LeasedWorker(db_worker.Worker):
    """The library's worker, with a heartbeat that renews its lease and sweeps the lapsed."""

    def run(self):
        self.heartbeat = leases.Heartbeat(self.worker_id)
        # A signal ends the worker by SystemExit wherever it is, even before its first task:
        # from the first renewal on, the lease is given up on the way out.
        try:
            _name_sessions(self.worker_id)
            leases.renew(worker_id=self.worker_id)
            # A worker that starts puts back at once what the dead left running.
            leases.sweep()
            self.heartbeat.start()
            super().run()
        finally:
            self.heartbeat.stop()

    def run_task(self, db_task_result):
        pid = leases.backend_pid()
        leases.renew(worker_id=self.worker_id, task_id=db_task_result.pk, pid=pid)
        self.heartbeat.hold(db_task_result.pk, pid)
        for finish in ("set_successful", "set_failed"):
            original = getattr(db_task_result, finish)
            setattr(
                db_task_result,
                finish,
                leases.finish_if_still_ours(db_task_result, self.worker_id, original),
            )
        try:
            super().run_task(db_task_result)
        finally:
            self.heartbeat.hold(None, None)
            leases.renew(worker_id=self.worker_id)


def _name_sessions(worker_id):
    """This process's PostgreSQL sessions carry the worker's name, for a sweep to find them."""
    for alias in connections:
        database = connections[alias]
        if database.vendor == "postgresql":
            database.settings_dict.setdefault("OPTIONS", {})["application_name"] = (
                leases.application_name(worker_id)
            )
            database.close()


class Command(db_worker.Command):
    help = "Run a database background worker that holds a lease on the task it runs."

    def handle(self, *, verbosity, reload, batch, queue_name, exclude_queues, **options):
        self.configure_logging(verbosity)
        if reload and batch:
            logger.warning("--reload and --batch cannot be specified together: no autoreload.")
            reload = False
        queue_names = queue_name.split(",")
        excluded = exclude_queues.split(",") if exclude_queues else []
        if excluded and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = LeasedWorker(
            queue_names=queue_names,
            excluded_queue_names=excluded,
            batch=batch,
            interval=options["interval"],
            backend_name=options["backend_name"],
            startup_delay=options["startup_delay"],
            max_tasks=options["max_tasks"],
            worker_id=options["worker_id"],
        )
        if reload:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
