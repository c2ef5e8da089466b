"""The suite's flush after a transactional test: DELETE from every table, not one TRUNCATE.

Django empties the database after each test that commits (`transaction=True`, the live server,
the browser tests) with one `TRUNCATE` of all its 130-odd tables. PostgreSQL makes a new file for
every table and index it truncates, so that costs about half a second a test on the CI machine:
some 370 tests, about four minutes of the suite's CPU time. The tables hold a few rows each by
then, and deleting them takes 5 ms.

A plain DELETE would meet the database's own rules: the triggers that refuse to delete posted
ledger rows and events, and the foreign keys, which would need the tables in order. The delete
runs with `session_replication_role = replica` for its transaction (`SET LOCAL`), under which
PostgreSQL fires neither, as a restore does. That needs a superuser, which the suite's database
user is in CI and on a developer's machine; any other user gets Django's TRUNCATE, as does a
flush asked to reset the sequences or to cascade. `tests/test_flush.py` checks that a flush
leaves every table empty.
"""

from django.db.backends.postgresql.operations import DatabaseOperations

_truncate = DatabaseOperations.sql_flush


def _superuser(connection):
    if not hasattr(connection, "_suite_superuser"):
        with connection.cursor() as cursor:
            cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            connection._suite_superuser = cursor.fetchone()[0]
    return connection._suite_superuser


def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
    if not tables or reset_sequences or allow_cascade or not _superuser(self.connection):
        return _truncate(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    # Django runs these in one transaction (`execute_sql_flush`): SET LOCAL ends with it.
    deletes = [f"DELETE FROM {self.quote_name(table)};" for table in sorted(tables)]
    return [
        "SET LOCAL session_replication_role = replica;",
        *deletes,
        "SET LOCAL session_replication_role = origin;",
    ]


def install():
    DatabaseOperations.sql_flush = sql_flush
