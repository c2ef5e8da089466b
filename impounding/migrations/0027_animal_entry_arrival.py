"""Each animal carries its entry's arrival (s.8(b)) beside its pound (ADR 0091), so that a pound's
animals in custody, in the order of their arrival, are an index range: the today board numbered
every animal in custody of its pounds by a window joined to their entries (7,684 animals for ten
pounds at 1M entries, 30 ms, growing with the pounds' intake; docs/capacity.md).

PostgreSQL keeps the column as it keeps the pound (0002): the same trigger sets both from the
entry on every insert and on every change of the animal's entry, whatever the writer sent (an
app server of the previous release during a rolling deploy included); the model's save() copies
them too, for SQLite. An entry's arrival is never amended (services.intake,
AMENDABLE_ENTRY_FIELDS), so the entry needs no trigger of its own.

The column is nullable, added without rewriting the table, in one transaction with the trigger:
every animal entered from here on has it. 0028 fills the animals already entered, and 0029
indexes them."""

from django.db import migrations, models

FORWARD = """
CREATE OR REPLACE FUNCTION impounding_animal_pound() RETURNS trigger AS $$
BEGIN
    SELECT pound_id, arrived_at INTO NEW.pound_id, NEW.entry_arrived_at
        FROM impounding_impoundment WHERE id = NEW.impoundment_id;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS impounding_animal_pound ON impounding_animal;
CREATE TRIGGER impounding_animal_pound
    BEFORE INSERT OR UPDATE OF impoundment_id, pound_id, entry_arrived_at ON impounding_animal
    FOR EACH ROW EXECUTE FUNCTION impounding_animal_pound();
"""
BACKWARD = """
CREATE OR REPLACE FUNCTION impounding_animal_pound() RETURNS trigger AS $$
BEGIN
    SELECT pound_id INTO NEW.pound_id FROM impounding_impoundment WHERE id = NEW.impoundment_id;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS impounding_animal_pound ON impounding_animal;
CREATE TRIGGER impounding_animal_pound
    BEFORE INSERT OR UPDATE OF impoundment_id, pound_id ON impounding_animal
    FOR EACH ROW EXECUTE FUNCTION impounding_animal_pound();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("impounding", "0026_animal_on_board_index")]

    operations = [
        migrations.AddField(
            model_name="animal",
            name="entry_arrived_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(forward, backward),
    ]
