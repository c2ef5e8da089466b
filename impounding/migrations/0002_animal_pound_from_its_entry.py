"""Each animal carries its entry's pound (docs/decisions/0007), so that a pound's animals in
custody, or leaving it in a period, are an index range rather than a walk over every entry the
pound ever made. PostgreSQL keeps the column: a trigger sets it from the entry on every insert
and on every change of the entry, whatever the writer sent (the model's save() copies it too,
for SQLite).
"""

from django.db import migrations

FORWARD = """
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
BACKWARD = """
DROP TRIGGER IF EXISTS impounding_animal_pound ON impounding_animal;
DROP FUNCTION IF EXISTS impounding_animal_pound();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("impounding", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
