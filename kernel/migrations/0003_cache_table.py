"""The table of Django's database cache (settings.CACHES): what `manage.py createcachetable`
makes, made by `migrate` so that no deploy step is forgotten and the owner role owns it."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


def drop_cache_table(apps, schema_editor):
    schema_editor.execute("DROP TABLE IF EXISTS poundadmin_cache")


class Migration(migrations.Migration):
    dependencies = [("kernel", "0002_event_log_append_only")]

    operations = [migrations.RunPython(create_cache_table, drop_cache_table)]
