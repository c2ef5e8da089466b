"""Owners found from ear tags (ADR 0078): the registry's answers kept with their age, the
owner's phone on the entry, and each animal's earlier seizures counted at intake. The phone's
index is built CONCURRENTLY, outside a transaction (tests/test_migration_safety.py); the new
columns carry constant defaults, so no table is rewritten."""

import django.utils.timezone
from django.db import migrations, models

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ('impounding', '0020_lost_cattle_reports'),
    ]

    operations = [
        migrations.CreateModel(
            name='TagLookup',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('tag', models.CharField(max_length=30, unique=True)),
                ('registry', models.CharField(max_length=20)),
                ('outcome', models.CharField(choices=[('found', 'Found'), ('unknown', 'Unknown'), ('failed', 'Failed')], max_length=10)),
                ('owner_name', models.CharField(blank=True, max_length=150)),
                ('owner_phone', models.CharField(blank=True, max_length=15)),
                ('owner_village', models.CharField(blank=True, max_length=150)),
                ('error', models.CharField(blank=True, max_length=200)),
                ('looked_up_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('failures', models.PositiveSmallIntegerField(default=0)),
            ],
        ),
        migrations.AddField(
            model_name='animal',
            name='prior_seizures',
            field=models.PositiveSmallIntegerField(db_default=0, default=0, editable=False),
        ),
        migrations.AddField(
            model_name='impoundment',
            name='owner_phone',
            field=models.CharField(db_default='', default='', blank=True, max_length=15, verbose_name="owner's phone, if known"),
        ),
        AddIndexConcurrently(
            model_name='impoundment',
            index=models.Index(condition=models.Q(('owner_phone', ''), _negated=True), fields=['owner_phone', '-arrived_at'], name='imp_owner_phone'),
        ),
        migrations.AddIndex(
            model_name='taglookup',
            index=models.Index(fields=['looked_up_at'], name='taglookup_age'),
        ),
    ]
