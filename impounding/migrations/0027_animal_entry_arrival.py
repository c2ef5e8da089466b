"""Each animal carries its entry's arrival (s.8(b)) beside its pound, so that a pound's animals in
custody, in the order of their arrival, are an index range: the today board numbered every
animal in custody of its pounds by a window joined to their entries (7,684 animals for ten
pounds at 1M entries, 30 ms, growing with the pounds' intake; docs/capacity.md).

PostgreSQL keeps the column as it keeps the pound (0002): the same trigger sets both from the
entry on every insert and on every change of the animal's entry, whatever the writer sent (an
app server of the previous release during a rolling deploy included); the model's save() copies
them too, for SQLite. An entry's arrival is never amended (services.intake,
AMENDABLE_ENTRY_FIELDS), so the entry needs no trigger of its own.

The column is nullable, added without rewriting the table. The animals already entered are filled
in batches of BATCH keys, each its own transaction, outside one long transaction that would hold
every animal's row lock; then the board's partial index is built CONCURRENTLY
(tests/test_migration_safety.py)."""

from django.db import migrations, models
from django.db.models import OuterRef, Q, Subquery

from kernel.operations import AddIndexConcurrently

BATCH = 100_000

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
# The trigger fills each row the UPDATE touches from its entry: the statement only names them.
FILL = """
UPDATE impounding_animal SET entry_arrived_at = NULL
    WHERE id >= %s AND id < %s AND entry_arrived_at IS NULL
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
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        Animal, Impoundment = (
            apps.get_model("impounding", "Animal"),
            apps.get_model("impounding", "Impoundment"),
        )
        arrival = Impoundment.objects.using(connection.alias).filter(pk=OuterRef("impoundment_id"))
        Animal.objects.using(connection.alias).update(
            entry_arrived_at=Subquery(arrival.values("arrived_at")[:1])
        )
        return
    schema_editor.execute(FORWARD, params=None)
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(max(id), 0) FROM impounding_animal")
        last = cursor.fetchone()[0]
        for start in range(0, last + 1, BATCH):
            cursor.execute(FILL, [start, start + BATCH])
        # The planner's statistics of the new column now, not at autovacuum's next pass.
        cursor.execute("ANALYZE impounding_animal (entry_arrived_at)")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("impounding", "0026_animal_on_board_index")]

    operations = [
        migrations.AddField(
            model_name="animal",
            name="entry_arrived_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(forward, backward, atomic=False),
        AddIndexConcurrently(
            model_name="animal",
            index=models.Index(
                fields=["pound", "entry_arrived_at", "number", "id"],
                name="animal_custody_arrival",
                condition=Q(state__in=["impounded", "escaped", "rescued"]),
            ),
        ),
    ]
