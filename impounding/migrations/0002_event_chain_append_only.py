"""PostgreSQL refuses UPDATE and DELETE on the event log: the register's history is evidence.
The hash chain still detects a change made with the trigger disabled."""

from django.db import migrations

FORWARD = """
CREATE TRIGGER impounding_event_append_only BEFORE UPDATE OR DELETE ON impounding_event
    FOR EACH ROW EXECUTE FUNCTION poundadmin_refuse_change();
"""
BACKWARD = "DROP TRIGGER IF EXISTS impounding_event_append_only ON impounding_event;"


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("impounding", "0001_initial"), ("ledger", "0002_append_only_triggers")]

    operations = [migrations.RunPython(forward, backward)]
