"""The complaints still to decide (s.20), in the order the deposits page lists them: that list,
and its count, read these rather than every complaint ever made (a sequential scan of 7,776 at
1M entries to find 305; docs/capacity.md). Built CONCURRENTLY, outside a transaction
(tests/test_migration_safety.py)."""

from django.db import migrations, models
from django.db.models import Q

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("impounding", "0030_deposit_complaint_state")]

    operations = [
        AddIndexConcurrently(
            model_name="complaint",
            index=models.Index(
                fields=["filed_on", "id"], name="complaint_pending", condition=Q(outcome="pending")
            ),
        ),
    ]
