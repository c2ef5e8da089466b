"""PostgreSQL refuses UPDATE and DELETE on the event log: the register's history is evidence.
The hash chain still detects a change made with the trigger disabled.

`poundadmin_refuse_change()` is the kernel's: the ledger's append-only triggers use it too.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION poundadmin_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: posted rows are append-only; reverse them instead',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER kernel_event_append_only BEFORE UPDATE OR DELETE ON kernel_event
    FOR EACH ROW EXECUTE FUNCTION poundadmin_refuse_change();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS kernel_event_append_only ON kernel_event;
DROP FUNCTION IF EXISTS poundadmin_refuse_change();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("kernel", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
