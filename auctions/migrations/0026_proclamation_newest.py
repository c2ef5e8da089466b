"""The proclamations newest first: the API's list (`/api/v1/proclamations/`) walks this index
and probes each row's notice for the reader's pounds, where it joined every proclamation ever
made to its notice and sorted them (44,354 at 1M entries, 24 ms, growing with the history).
Built CONCURRENTLY, outside a transaction (tests/test_migration_safety.py)."""

from django.db import migrations, models

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("auctions", "0025_report_open_index")]

    operations = [
        AddIndexConcurrently(
            model_name="proclamation",
            index=models.Index(fields=["-made_on", "-id"], name="proclamation_newest"),
        ),
    ]
