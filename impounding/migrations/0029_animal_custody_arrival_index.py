"""A pound's animals in custody (in the pound, escaped or rescued) by their entry's arrival: the
today board's window reads them in this order, no entry joined and nothing sorted (ADR 0091).
Built CONCURRENTLY, outside a transaction, after 0028 has filled the column
(tests/test_migration_safety.py)."""

from django.db import migrations, models
from django.db.models import Q

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("impounding", "0028_animal_entry_arrival_filled")]

    operations = [
        AddIndexConcurrently(
            model_name="animal",
            index=models.Index(
                fields=["pound", "entry_arrived_at", "number", "id"],
                name="animal_custody_arrival",
                condition=Q(state__in=["impounded", "escaped", "rescued"]),
            ),
        ),
    ]
