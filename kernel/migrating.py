"""How `manage.py migrate` runs on PostgreSQL (docs/operations.md): one at a time, on the
database it is given, and never queued for long behind the application's locks.

- **One at a time.** The command holds a session advisory lock on that database: a second
  `migrate` (a container per replica, a release step run twice) waits for the first, then finds
  nothing to apply, instead of failing on a duplicate key and recording migrations twice.
- **On the database it is given.** A data step that queries through `Model.objects` without
  `.using()` (a third-party app's, such as django_tasks_db's status renames) would otherwise go
  through the `default` connection, the runtime role's, and wait forever on the lock that the
  migrating connection holds in the same process. `MigrateRouter` sends every query of the
  process to the migrating database while the command runs; our own data steps use
  `schema_editor.connection` anyway.
- **A lock timeout.** `MIGRATION_LOCK_TIMEOUT` is set on the migrating session: a migration that
  cannot take its lock in time fails (re-run it once the long query has ended) rather than queue
  every request of the application behind its ALTER TABLE.
"""

from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.db import connections

from kernel.locks import advisory_lock

_migrating_on: ContextVar[str | None] = ContextVar("migrating_on", default=None)


class MigrateRouter:
    """While `migrate` runs, every read and write goes to the database being migrated."""

    def db_for_read(self, model, **hints):
        return _migrating_on.get()

    def db_for_write(self, model, **hints):
        return _migrating_on.get()


def _set_lock_timeout(connection, value):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('lock_timeout'), set_config('lock_timeout', %s, false)",
            [value],
        )
        return cursor.fetchone()[0]


@contextmanager
def routed_to(using):
    """Send every query of the block to database `using` (MigrateRouter)."""
    token = _migrating_on.set(using)
    try:
        yield
    finally:
        _migrating_on.reset(token)


@contextmanager
def migrating(using, *, on_wait=None):
    """Run the block as the one migration of database `using`, every query routed to it;
    `on_wait()` is called if another migration holds the database, before waiting for it."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        with routed_to(using):
            yield
        return
    # The timeout is for the migration's own statements, set once the lock is held (the wait
    # for the other migrate polls, kernel/locks.py, and is not cut short by it).
    with advisory_lock("migrate", using=using, wait=True, on_wait=on_wait), routed_to(using):
        before = _set_lock_timeout(connection, settings.MIGRATION_LOCK_TIMEOUT)
        try:
            yield
        finally:
            _set_lock_timeout(connection, before)
