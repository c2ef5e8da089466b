"""The API's sales and notices, paged by keyset: each list read in its order by an index and
stopped at the page's LIMIT, rather than every row of the caller's pounds joined and sorted (at
1M entries the auditor's sales list joined all 27k sales to their certificates first). Built
CONCURRENTLY, outside a transaction, as every index after the initial migrations is
(tests/test_migration_safety.py)."""

from django.db import migrations, models

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("auctions", "0021_holding_found_dead_after_escape")]

    operations = [
        AddIndexConcurrently(
            model_name="notice",
            index=models.Index(fields=["pound", "-posted_on", "-id"], name="notice_pound_posted"),
        ),
        AddIndexConcurrently(
            model_name="notice",
            index=models.Index(fields=["-posted_on", "-id"], name="notice_posted"),
        ),
        AddIndexConcurrently(
            model_name="sale",
            index=models.Index(fields=["-sold_at", "-id"], name="sale_sold"),
        ),
    ]
