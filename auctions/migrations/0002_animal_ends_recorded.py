"""An animal that the register shows as sold, disposed of or returned under s.16 must have that
end recorded on the sales floor, which names the animals: a sold LotAnimal (ss.14, 16), an
approved disposal order of the District Magistrate (s.14), or the s.16 case that returned it.

The register's own table cannot point up at the sales' tables, so PostgreSQL checks it here, as
each row changes: the services write the end record first, then move the animal. Nothing leaves
the pound except as the Act provides (s.19).
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION auctions_check_animal_end() RETURNS trigger AS $$
BEGIN
    IF NEW.state = 'sold' AND NOT EXISTS (
        SELECT 1 FROM auctions_lotanimal WHERE animal_id = NEW.id AND sold
    ) THEN
        RAISE EXCEPTION 'animal % is sold without a sold lot', NEW.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.state = 'disposed' AND NOT EXISTS (
        SELECT 1 FROM auctions_disposalorder_animals m
        JOIN auctions_disposalorder o ON o.id = m.disposalorder_id
        WHERE m.animal_id = NEW.id AND o.status = 'approved'
    ) THEN
        RAISE EXCEPTION 'animal % is disposed of without an approved order', NEW.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.state = 'returned_s16' AND NOT EXISTS (
        SELECT 1 FROM auctions_s16case_returned_animals WHERE animal_id = NEW.id
    ) THEN
        RAISE EXCEPTION 'animal % is returned under s.16 without its case', NEW.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER auctions_animal_end_recorded
    AFTER INSERT OR UPDATE OF state ON impounding_animal
    FOR EACH ROW WHEN (NEW.state IN ('sold', 'disposed', 'returned_s16'))
    EXECUTE FUNCTION auctions_check_animal_end();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS auctions_animal_end_recorded ON impounding_animal;
DROP FUNCTION IF EXISTS auctions_check_animal_end();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("auctions", "0001_initial"), ("impounding", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
