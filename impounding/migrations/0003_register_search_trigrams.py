"""Trigram indexes for the register's search box (docs/capacity.md): the owner's name is matched with
`icontains` and the register number with `iexact` and `iendswith`, which Django writes as
UPPER(column) LIKE/= UPPER(term). A B-tree serves none of them, so a term that matches few
entries walked every entry in scope (240 ms at 100k entries, growing with the register). GIN
trigram indexes on the same UPPER() expressions serve LIKE '%...%' and = alike.
PostgreSQL only: SQLite, the demo's database, keeps its plain scan.

pg_trgm is created by `manage.py db_roles --create`, the superuser's step (README, "Database
roles"), so the owner role needs no CREATE on the database. The indexes are built CONCURRENTLY,
outside a transaction, since the register is the biggest table (docs/operations.md); an index
left invalid by a failed build is dropped and built again."""

from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, migrations

INDEXES = {
    "impoundment_owner_trgm": "owner_name",
    "impoundment_number_trgm": "register_number",
}


def _create_extension(schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
        if cursor.fetchone():
            return
    try:
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm", params=None)
    except DatabaseError as error:
        raise ImproperlyConfigured(
            "pg_trgm is missing and this role may not create it: run "
            "`manage.py db_roles --create` as a superuser first (README, Database roles)."
        ) from error


def _invalid(schema_editor, name):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT NOT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE c.relname = %s",
            [name],
        )
        row = cursor.fetchone()
    return bool(row and row[0])


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    _create_extension(schema_editor)
    for name, column in INDEXES.items():
        if _invalid(schema_editor, name):
            schema_editor.execute(f"DROP INDEX CONCURRENTLY {name}", params=None)
        schema_editor.execute(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON impounding_impoundment "
            f"USING gin (UPPER({column}::text) gin_trgm_ops)",
            params=None,
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}", params=None)


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY may not run inside a transaction.
    atomic = False

    dependencies = [("impounding", "0002_animal_pound_from_its_entry")]

    operations = [migrations.RunPython(forwards, backwards)]
