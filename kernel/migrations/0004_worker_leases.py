"""Workers' leases on their tasks (docs/decisions/0052)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('kernel', '0003_cache_table'),
    ]

    operations = [
        migrations.CreateModel(
            name='WorkerLease',
            fields=[
                ('worker_id', models.CharField(max_length=64, primary_key=True, serialize=False)),
                ('host', models.CharField(max_length=255)),
                ('pid', models.PositiveIntegerField()),
                ('task_id', models.UUIDField(blank=True, null=True)),
                ('backend_pid', models.PositiveIntegerField(blank=True, null=True)),
                ('application_name', models.CharField(blank=True, max_length=63)),
                ('started_at', models.DateTimeField()),
                ('renewed_at', models.DateTimeField()),
                ('expires_at', models.DateTimeField(db_index=True)),
            ],
            options={
                'verbose_name': 'worker lease',
                'verbose_name_plural': 'worker leases',
            },
        ),
    ]
