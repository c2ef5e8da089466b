"""The auctions screen and the disposal orders, paged by keyset (auctions.selectors): each list
read in its order by an index and stopped at the page's LIMIT. Built CONCURRENTLY, outside a
transaction, as every index after the initial migrations is (tests/test_migration_safety.py)."""

from django.db import migrations, models

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("auctions", "0011_bidder_once_per_auction")]

    operations = [
        AddIndexConcurrently(
            model_name="auction",
            index=models.Index(fields=["status", "scheduled_for", "id"], name="auction_status_when"),
        ),
        AddIndexConcurrently(
            model_name="auction",
            index=models.Index(fields=["scheduled_for", "id"], name="auction_when"),
        ),
        AddIndexConcurrently(
            model_name="disposalorder",
            index=models.Index(
                fields=["status", "-prepared_at", "-id"], name="disposal_status_prepared"
            ),
        ),
        AddIndexConcurrently(
            model_name="disposalorder",
            index=models.Index(fields=["-prepared_at", "-id"], name="disposal_prepared"),
        ),
    ]
