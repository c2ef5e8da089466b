"""The open reports (`Report.in_pound` above zero, migration 0024) of the pounds, newest first:
the officer's s.14 lists and counts read these, not every report the pounds ever sent (ADR 0094).
Built CONCURRENTLY, outside a transaction (tests/test_migration_safety.py)."""

from django.db import migrations, models
from django.db.models import Q

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("auctions", "0024_report_in_pound")]

    operations = [
        AddIndexConcurrently(
            model_name="report",
            index=models.Index(
                fields=["pound", "-sent_at", "-id"], name="report_open", condition=Q(in_pound__gt=0)
            ),
        ),
    ]
