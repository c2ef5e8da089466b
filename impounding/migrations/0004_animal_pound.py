"""Each animal carries its entry's pound (docs/decisions/0007), so that a pound's animals in
custody, or leaving it in a period, are an index range rather than a walk over every entry
the pound ever made. The column is filled from the entries, then kept by PostgreSQL: a trigger
sets it from the entry on every insert and on every change of the entry, whatever the writer
sent (the model's save() copies it too, for SQLite)."""

import django.db.models.deletion
from django.db import migrations, models

BACKFILL = """
UPDATE impounding_animal a SET pound_id = i.pound_id
FROM impounding_impoundment i WHERE i.id = a.impoundment_id AND a.pound_id IS NULL
"""
BACKFILL_SQLITE = """
UPDATE impounding_animal SET pound_id = (
    SELECT pound_id FROM impounding_impoundment i WHERE i.id = impounding_animal.impoundment_id
) WHERE pound_id IS NULL
"""

TRIGGER = """
CREATE OR REPLACE FUNCTION impounding_animal_pound() RETURNS trigger AS $$
BEGIN
    SELECT pound_id INTO NEW.pound_id FROM impounding_impoundment WHERE id = NEW.impoundment_id;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER impounding_animal_pound
    BEFORE INSERT OR UPDATE OF impoundment_id, pound_id ON impounding_animal
    FOR EACH ROW EXECUTE FUNCTION impounding_animal_pound();
"""
DROP_TRIGGER = """
DROP TRIGGER IF EXISTS impounding_animal_pound ON impounding_animal;
DROP FUNCTION IF EXISTS impounding_animal_pound();
"""


def backfill(apps, schema_editor):
    postgres = schema_editor.connection.vendor == "postgresql"
    schema_editor.execute(BACKFILL if postgres else BACKFILL_SQLITE, params=None)


def add_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGGER, params=None)


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_TRIGGER, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("impounding", "0003_animal_custody_ended_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="animal",
            name="pound",
            field=models.ForeignKey(
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="accounts.pound",
            ),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="animal",
            name="pound",
            field=models.ForeignKey(
                db_index=False,
                editable=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="accounts.pound",
            ),
        ),
        migrations.RunPython(add_trigger, drop_trigger),
        migrations.AddIndex(
            model_name="animal",
            index=models.Index(fields=["pound", "state"], name="animal_pound_state"),
        ),
        migrations.AddIndex(
            model_name="animal",
            index=models.Index(fields=["pound", "custody_ended_at"], name="animal_pound_ended"),
        ),
    ]
