"""PostgreSQL advisory locks: one holder at a time for work that must not run twice at once."""

import time
import zlib
from contextlib import contextmanager

from django.db import DEFAULT_DB_ALIAS, connections

WAIT_SECONDS = 0.5


def _key(name):
    # A stable 32-bit key per name: advisory locks are numbered, not named.
    return zlib.crc32(f"poundadmin:{name}".encode())


@contextmanager
def advisory_lock(name, *, using=DEFAULT_DB_ALIAS, wait=False, on_wait=None):
    """Yield True while holding the session-level lock `name`, or False if another session has it.

    It never waits, unless `wait`: then it calls `on_wait()` if the lock is taken, tries again
    every half second until the holder lets go, and yields True. On a database without advisory
    locks (SQLite in development) it yields True: there is one process there."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        yield True
        return
    key = _key(name)
    held = _try(connection, key)
    if wait and not held and on_wait:
        on_wait()
    # Polling, not pg_advisory_lock(): a session blocked in a statement keeps its snapshot, and
    # a CREATE INDEX CONCURRENTLY in the holder's session waits for every older snapshot, so
    # the two would deadlock. Between two tries the waiting session holds nothing.
    while wait and not held:
        time.sleep(WAIT_SECONDS)
        held = _try(connection, key)
    try:
        yield held
    finally:
        if held:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


def _try(connection, key):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        return cursor.fetchone()[0]


def transaction_lock(name, *, using=DEFAULT_DB_ALIAS):
    """Hold the lock `name` until the current transaction ends, waiting for a transaction that
    holds it to end first: for two short paths that must see each other's committed rows (the
    one that waits reads after the other's commit). Not for work that runs long, nor beside a
    migration (see `advisory_lock`). Nothing on a database without advisory locks."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_key(name)])
