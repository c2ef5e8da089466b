"""The animals entered before 0027 take their entry's arrival (ADR 0091). In batches of BATCH
keys, each its own transaction, rather than one transaction holding every animal's row lock for
minutes; a batch fills only the animals still without it, so a run cut short (a lock not had
within MIGRATION_LOCK_TIMEOUT) is run again and goes on where it stopped."""

from django.db import migrations
from django.db.models import OuterRef, Subquery

BATCH = 20_000

# The trigger (0027) fills each row the UPDATE names from its entry: the statement only names
# them. Rows that have it already are left alone.
FILL = """
UPDATE impounding_animal SET entry_arrived_at = NULL
    WHERE id >= %s AND id < %s AND entry_arrived_at IS NULL
"""


def forward(apps, schema_editor):
    connection = schema_editor.connection
    Animal = apps.get_model("impounding", "Animal")
    if connection.vendor != "postgresql":
        Impoundment = apps.get_model("impounding", "Impoundment")
        entry = Impoundment.objects.using(connection.alias).filter(pk=OuterRef("impoundment_id"))
        Animal.objects.using(connection.alias).filter(entry_arrived_at__isnull=True).update(
            entry_arrived_at=Subquery(entry.values("arrived_at")[:1])
        )
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(max(id), 0) FROM impounding_animal")
        last = cursor.fetchone()[0]
        for start in range(0, last + 1, BATCH):
            cursor.execute(FILL, [start, start + BATCH])
        # The planner's statistics of the new column now, not at autovacuum's next pass.
        cursor.execute("ANALYZE impounding_animal (entry_arrived_at)")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("impounding", "0027_animal_entry_arrival")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, atomic=False)]
