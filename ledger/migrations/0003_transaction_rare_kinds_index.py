"""The few transactions of a pound's month that the periodic returns read one by one
(reversals and remittances, docs/decisions/0066), built CONCURRENTLY on the big table."""

from django.db import migrations, models

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("ledger", "0002_append_only_books")]

    operations = [
        AddIndexConcurrently(
            model_name="transaction",
            index=models.Index(
                condition=models.Q(("kind__in", ["reversal", "remittance_sent"])),
                fields=["pound", "kind", "at"],
                name="transaction_pound_rare_kinds",
            ),
        )
    ]
