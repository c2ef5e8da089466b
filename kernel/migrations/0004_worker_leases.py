"""Workers' leases on their tasks (docs/decisions/0052), and an index on the tasks running,
which every worker's sweep and /healthz/queue read: a few rows among every result kept."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('kernel', '0003_cache_table'),
        ('django_tasks_database', '0021_conditional_partial_index_ordering'),
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
        migrations.RunSQL(
            "CREATE INDEX kernel_tasks_running_idx ON django_tasks_database_dbtaskresult "
            "(started_at) WHERE status = 'RUNNING'",
            "DROP INDEX kernel_tasks_running_idx",
        ),
    ]
