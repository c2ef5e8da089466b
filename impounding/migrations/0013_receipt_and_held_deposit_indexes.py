"""The receipts list of the API, latest issued first, over many pounds and in one: without an
index on the issue time it sorted every receipt in scope (a sort on disk at 1M entries). And the
deposits held now, which the office's pages count and list: without a partial index on the held
ones, each of those queries read every deposit ever taken. Built CONCURRENTLY, outside a
transaction (tests/test_migration_safety.py)."""

from django.db import migrations, models
from django.db.models import Q

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("impounding", "0012_animal_month_totals")]

    operations = [
        AddIndexConcurrently(
            model_name="receipt",
            index=models.Index(fields=["-issued_at", "-id"], name="receipt_issued"),
        ),
        AddIndexConcurrently(
            model_name="receipt",
            index=models.Index(fields=["pound", "-issued_at", "-id"], name="receipt_pound_issued"),
        ),
        AddIndexConcurrently(
            model_name="deposit",
            index=models.Index(
                fields=["complaint_deadline", "id"],
                name="deposit_held",
                condition=Q(status="held"),
            ),
        ),
    ]
