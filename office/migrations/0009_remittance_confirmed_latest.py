"""The latest confirmed remittances: the remittances page lists the newest 50 of its pounds off
this index, where it read every remittance they ever confirmed and sorted them (4,763 at 1M
entries over ten years, 10 ms, growing with the history). Built CONCURRENTLY, outside a
transaction (tests/test_migration_safety.py)."""

from django.db import migrations, models
from django.db.models import Q

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("office", "0008_surplus_lists_walk_their_order")]

    operations = [
        AddIndexConcurrently(
            model_name="remittance",
            index=models.Index(
                fields=["-confirmed_at", "-id"],
                name="remittance_confirmed_latest",
                condition=Q(status="confirmed"),
            ),
        ),
    ]
