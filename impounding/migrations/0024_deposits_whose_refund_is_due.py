"""The deposits whose refund is due (s.20), in the order the deposits page lists them: without
a partial index on them, its list and count walked every deposit ever taken by the deadline
index and filtered them (62,000 rows at 1M entries). Built CONCURRENTLY, outside a transaction
(tests/test_migration_safety.py)."""

from django.db import migrations, models
from django.db.models import Q

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("impounding", "0023_deposit_pound_from_its_entry")]

    operations = [
        AddIndexConcurrently(
            model_name="deposit",
            index=models.Index(
                fields=["complaint_deadline", "id"],
                name="deposit_refund_due",
                condition=Q(status="refund_due"),
            ),
        ),
    ]
