"""PostgreSQL advisory locks: one holder at a time for work that must not run twice at once."""

import zlib
from contextlib import contextmanager

from django.db import DEFAULT_DB_ALIAS, connections


def _key(name):
    # A stable 32-bit key per name: advisory locks are numbered, not named.
    return zlib.crc32(f"poundadmin:{name}".encode())


@contextmanager
def advisory_lock(name, *, using=DEFAULT_DB_ALIAS, wait=False):
    """Yield True while holding the session-level lock `name`, or False if another session has it.

    It never waits, unless `wait`: then it waits for the holder to let go and always yields True.
    On a database without advisory locks (SQLite in development) it yields True: there is one
    process there."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        yield True
        return
    key = _key(name)
    with connection.cursor() as cursor:
        if wait:
            cursor.execute("SELECT pg_advisory_lock(%s), true", [key])
        else:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        held = cursor.fetchone()[-1]
    try:
        yield held
    finally:
        if held:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
