"""An index on the running tasks, which every worker's sweep and /healthz/queue read every few
seconds (docs/decisions/0052): a few rows among every task result kept. Built CONCURRENTLY on
PostgreSQL, outside a transaction, so the queue is never locked while it is built."""

from django.db import migrations

INDEX = "kernel_tasks_running_idx"
TABLE = "django_tasks_database_dbtaskresult"


def create_index(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(
        f"CREATE INDEX {concurrently}IF NOT EXISTS {INDEX} ON {TABLE} (started_at) "
        "WHERE status = 'RUNNING'"
    )


def drop_index(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("kernel", "0004_worker_leases"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [migrations.RunPython(create_index, drop_index)]
