"""Trigram indexes for the register's search box (docs/capacity.md): the owner's name is matched with
`icontains` and the register number with `iexact` and `iendswith`, which Django writes as
UPPER(column) LIKE/= UPPER(term). A B-tree serves none of them, so a term that matches few
entries walked every entry in scope (240 ms at 100k entries, growing with the register). GIN
trigram indexes on the same UPPER() expressions serve LIKE '%...%' and = alike (pg_trgm, a
trusted extension since PostgreSQL 13: the migration role needs CREATE on the database).
PostgreSQL only: SQLite, the demo's database, keeps its plain scan."""

from django.db import migrations

INDEXES = {
    "impoundment_owner_trgm": "owner_name",
    "impoundment_number_trgm": "register_number",
}


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm", params=None)
    for name, column in INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON impounding_impoundment "
            f"USING gin (UPPER({column}::text) gin_trgm_ops)",
            params=None,
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}", params=None)


class Migration(migrations.Migration):
    dependencies = [("impounding", "0002_animal_pound_from_its_entry")]

    operations = [migrations.RunPython(forwards, backwards)]
