"""The receipts list of the API, latest issued first, over many pounds and in one: without an
index on the issue time it sorted every receipt in scope (a sort on disk at 1M entries). Built
CONCURRENTLY, outside a transaction (tests/test_migration_safety.py)."""

from django.db import migrations, models

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("impounding", "0011_court_order_checked_before_release")]

    operations = [
        AddIndexConcurrently(
            model_name="receipt",
            index=models.Index(fields=["-issued_at", "-id"], name="receipt_issued"),
        ),
        AddIndexConcurrently(
            model_name="receipt",
            index=models.Index(fields=["pound", "-issued_at", "-id"], name="receipt_pound_issued"),
        ),
    ]
