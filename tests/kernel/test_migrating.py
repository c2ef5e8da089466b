"""`manage.py migrate` is the kernel's (kernel/migrating.py): one at a time per database, every
query on the database it is given, with a lock timeout (docs/operations.md)."""

import psycopg
import pytest
from django.core.management import get_commands
from django.db import connection, router

from kernel.locks import _key
from kernel.migrating import migrating, routed_to
from kernel.models import Event


def test_the_migrate_command_is_the_kernels():
    assert get_commands()["migrate"] == "kernel"


def test_while_migrating_every_query_goes_to_the_migrating_database():
    """A data step that forgets `.using()` (django_tasks_db's do) must not go through the
    runtime role's connection, which would wait for ever on the migrating one's lock."""
    assert router.db_for_write(Event) == "default"
    with routed_to("owner"):
        assert Event.objects.all().db == "owner"
        assert router.db_for_write(Event) == "owner"
    assert Event.objects.all().db == "default"


def _other_session():
    settings = connection.settings_dict
    return psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        password=settings["PASSWORD"] or None,
        host=settings["HOST"] or None,
        port=settings["PORT"] or None,
        autocommit=True,
    )


def _lock_timeout():
    with connection.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        return cursor.fetchone()[0]


@pytest.mark.postgres
def test_a_migrate_holds_the_databases_lock_with_a_lock_timeout(settings):
    settings.MIGRATION_LOCK_TIMEOUT = "7s"
    before = _lock_timeout()
    with _other_session() as other:
        with migrating("default"):
            assert _lock_timeout() == "7s"
            taken = other.execute("SELECT pg_try_advisory_lock(%s)", [_key("migrate")])
            assert taken.fetchone()[0] is False
        assert _lock_timeout() == before
        taken = other.execute("SELECT pg_try_advisory_lock(%s)", [_key("migrate")])
        assert taken.fetchone()[0] is True


@pytest.mark.postgres
def test_a_second_migrate_says_it_waits_and_runs_once_the_first_lets_go():
    """The wait polls (a session blocked in pg_advisory_lock would keep a snapshot that the
    first migrate's CREATE INDEX CONCURRENTLY waits for: a deadlock)."""
    key = _key("migrate")
    told = []
    with _other_session() as first:
        first.execute("SELECT pg_advisory_lock(%s)", [key])

        def first_finishes():
            told.append("waiting")
            first.execute("SELECT pg_advisory_unlock(%s)", [key])

        with migrating("default", on_wait=first_finishes):
            assert told == ["waiting"]
            taken = first.execute("SELECT pg_try_advisory_lock(%s)", [key])
            assert taken.fetchone()[0] is False
