"""An installation id for this database, made once: signed checkpoints are stored under it
(docs/decisions/0020-signed-checkpoints.md). A restored copy keeps the row, and with it its own
checkpoints."""

import secrets

import django.utils.timezone
from django.db import migrations, models


def make_installation(apps, schema_editor):
    db = schema_editor.connection.alias
    Installation = apps.get_model("kernel", "Installation")
    if not Installation.objects.using(db).exists():
        Installation.objects.using(db).create(pk=1, key=secrets.token_hex(16))


class Migration(migrations.Migration):
    dependencies = [("kernel", "0005_index_running_tasks")]

    operations = [
        migrations.CreateModel(
            name="Installation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(editable=False, max_length=32, unique=True)),
                (
                    "made_at",
                    models.DateTimeField(default=django.utils.timezone.now, editable=False),
                ),
            ],
        ),
        migrations.RunPython(make_installation, migrations.RunPython.noop),
    ]
