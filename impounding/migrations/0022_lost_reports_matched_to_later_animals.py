"""Lost-cattle reports matched to the animals entered after them (ADR 0079, addendum): the open
reports by district, species and day lost, the worker's read when an animal comes in. Built
CONCURRENTLY, outside a transaction (tests/test_migration_safety.py)."""

from django.db import migrations, models

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ('accounts', '0011_district_training_clock'),
        ('impounding', '0021_owners_from_ear_tags'),
    ]

    operations = [
        AddIndexConcurrently(
            model_name='lostreport',
            index=models.Index(condition=models.Q(('state', 'open')), fields=['district', 'species', 'lost_on'], name='lostreport_open_described'),
        ),
    ]
