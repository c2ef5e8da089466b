"""The public board's animals (in the pound, under a s.14 notice), newest notice first: a partial
index of a few hundred rows at 1M entries. Built CONCURRENTLY, outside a transaction, after the
column is filled (tests/test_migration_safety.py)."""

from django.db import migrations, models
from django.db.models import Q

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("impounding", "0025_animal_notice_posted_on"),
        ("auctions", "0023_animals_under_notice"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="animal",
            index=models.Index(
                fields=["-notice_posted_on", "id"],
                name="animal_on_board",
                condition=Q(state="impounded", notice_posted_on__isnull=False),
            ),
        ),
    ]
