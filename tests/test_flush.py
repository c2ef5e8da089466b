"""The suite's flush after a transactional test (tests/flush.py) leaves every table empty,
the append-only ledger's included, and leaves the database's rules on afterwards."""

import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import DatabaseError, connection, transaction

from kernel.models import Event
from ledger.models import Posting
from tests.impounding.factories import make_entry, pay

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _tables_with_rows():
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        counts = {}
        for table in tables:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return {table for table, count in counts.items() if count}


def test_the_flush_empties_every_table_the_books_and_the_chain_too(pound, pound_keeper, tariffs):
    pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    assert Posting.objects.exists() and Event.objects.exists()
    assert {"ledger_posting", "kernel_event", "impounding_impoundment"} <= _tables_with_rows()

    call_command("flush", verbosity=0, interactive=False, inhibit_post_migrate=True)

    assert _tables_with_rows() == set()


def test_the_flush_deletes_where_django_would_truncate_and_leaves_the_triggers_on(
    pound, pound_keeper, tariffs
):
    tables = ["ledger_posting", "kernel_event"]
    statements = connection.ops.sql_flush(no_style(), tables)
    assert not any("TRUNCATE" in sql for sql in statements)
    assert statements[0] == "SET LOCAL session_replication_role = replica;"
    # A reset of the sequences is still Django's TRUNCATE ... RESTART IDENTITY.
    assert "TRUNCATE" in connection.ops.sql_flush(no_style(), tables, reset_sequences=True)[0]

    with transaction.atomic():  # the database's rule, before the flush
        pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
        with pytest.raises(DatabaseError), transaction.atomic():
            Posting.objects.all().delete()
    call_command("flush", verbosity=0, interactive=False)
    # The flush's SET LOCAL ended with its transaction: the triggers fire again.
    with connection.cursor() as cursor:
        cursor.execute("SHOW session_replication_role")
        assert cursor.fetchone()[0] == "origin"
