"""The read replica (docs/decisions/0054-read-replica.md): which reads may go to it.

Nothing goes to the replica unless it asks to. A read-only page or task says so with
`reads_from_replica` (a decorator or a `with` block); inside it, `ReplicaRouter` sends the
reads to the database named by `settings.REPLICA_DATABASE` (set from `DATABASE_REPLICA_URL`),
and everywhere else it has no opinion, so every query stays on `default` as before. Even inside
the scope a read stays on the primary when:

- the user wrote something a moment ago (`PrimaryAfterWriteMiddleware`: a signed cookie set on
  every successful write request, honoured for `REPLICA_STICKY_SECONDS`), so a page shown
  after a POST never shows the world before it;
- the code is inside a transaction on `default` (a return registering its IssuedDocument under
  a row lock): the transaction must read what it writes;
- it follows an object read from, or saved to, the primary (a related lookup, a refresh).

Writes never go to the replica: an object read from it is saved to `default`. Migrations never
run on it.
"""

import functools
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

_replica_reads: ContextVar[bool] = ContextVar("replica_reads", default=False)
_primary_only: ContextVar[bool] = ContextVar("primary_only", default=False)

STICKY_COOKIE = "pa_wrote"
_STICKY_SALT = "kernel.replica.sticky"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def replica_alias():
    """The alias of the replica, or None when none is configured."""
    alias = getattr(settings, "REPLICA_DATABASE", None)
    return alias if alias and alias in settings.DATABASES else None


@contextmanager
def _replica_scope():
    token = _replica_reads.set(True)
    try:
        yield
    finally:
        _replica_reads.reset(token)


def reads_from_replica(func=None):
    """Let the reads of a read-only view or task go to the replica: `@reads_from_replica` on
    a function, or `with reads_from_replica():` around a block. Only reads: a write inside it
    still goes to the primary, and so does every read of a transaction it opens."""
    if func is None:
        return _replica_scope()

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _replica_scope():
            return func(*args, **kwargs)

    return wrapper


@contextmanager
def primary_only():
    """Every read of the block on the primary, even inside `reads_from_replica`."""
    token = _primary_only.set(True)
    try:
        yield
    finally:
        _primary_only.reset(token)


def _in_transaction():
    return connections[DEFAULT_DB_ALIAS].in_atomic_block


def chosen_for_reads():
    """The alias a read with no object to follow would go to now."""
    alias = replica_alias()
    if alias is None or not _replica_reads.get() or _primary_only.get() or _in_transaction():
        return DEFAULT_DB_ALIAS
    return alias


def pinned(queryset):
    """`queryset` bound to the database chosen now: for a response streamed after the view
    (and so after its `reads_from_replica` scope) has returned."""
    return queryset.using(chosen_for_reads())


class ReplicaRouter:
    """Reads inside `reads_from_replica` to the replica; nothing else changes."""

    def db_for_read(self, model, **hints):
        if "instance" in hints:
            return None  # follow the object: Django reads it where it came from
        alias = chosen_for_reads()
        return alias if alias != DEFAULT_DB_ALIAS else None

    def db_for_write(self, model, **hints):
        instance = hints.get("instance")
        alias = replica_alias()
        if alias and instance is not None and instance._state.db == alias:
            return DEFAULT_DB_ALIAS  # an object read from the replica is saved to the primary
        return None

    def allow_relation(self, obj1, obj2, **hints):
        alias = replica_alias()
        pair = {obj1._state.db, obj2._state.db}
        if alias and pair <= {DEFAULT_DB_ALIAS, alias}:
            return True  # the same rows, wherever they were read
        return None

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        if db == replica_alias() or db == "replica":
            return False
        return None


class PrimaryAfterWriteMiddleware:
    """Reads from the primary for REPLICA_STICKY_SECONDS after the user's last write.

    A successful write request (a POST answered below 400) sets a signed, timestamped cookie;
    while it is younger than REPLICA_STICKY_SECONDS the request is served with `primary_only`,
    so the page after a write, and the pages the user opens next, show it even if the replica
    lags. Without a replica the middleware does nothing and sets no cookie."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if replica_alias() is None:
            return self.get_response(request)
        seconds = settings.REPLICA_STICKY_SECONDS
        wrote = request.get_signed_cookie(
            STICKY_COOKIE, default=None, salt=_STICKY_SALT, max_age=seconds
        )
        token = _primary_only.set(wrote is not None)
        try:
            response = self.get_response(request)
        finally:
            _primary_only.reset(token)
        if request.method not in _SAFE_METHODS and response.status_code < 400:
            response.set_signed_cookie(
                STICKY_COOKIE,
                "1",
                salt=_STICKY_SALT,
                max_age=seconds,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response
