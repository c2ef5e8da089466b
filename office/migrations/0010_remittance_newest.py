"""The remittances newest first: the API's list (`/api/v1/remittances/`) walks this index, where it
read every remittance of the reader's pounds and sorted them (4,783 at 1M entries over ten years).
Built CONCURRENTLY, outside a transaction (tests/test_migration_safety.py)."""

from django.db import migrations, models

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("office", "0009_remittance_confirmed_latest")]

    operations = [
        AddIndexConcurrently(
            model_name="remittance",
            index=models.Index(fields=["-remitted_on", "-id"], name="remittance_newest"),
        ),
    ]
