"""When the worker mailed a to-do's people (accounts.todos.mail_todo). The to-dos made before
were mailed inside their run, so they count as mailed when they were made: none is mailed again
by `requeue_stale_tasks`."""

from django.db import migrations, models
from django.db.models import F


def mailed_when_made(apps, schema_editor):
    apps.get_model("accounts", "ToDo").objects.update(mailed_at=F("created_at"))


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_h5_earlier_files")]

    operations = [
        migrations.AddField(
            model_name="todo",
            name="mailed_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(mailed_when_made, migrations.RunPython.noop),
    ]
