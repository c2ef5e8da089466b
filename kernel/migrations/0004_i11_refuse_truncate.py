"""PostgreSQL refuses TRUNCATE of the event log. Row triggers (poundadmin 0002) do not fire on
TRUNCATE, so a statement trigger does. The runtime role holds no TRUNCATE privilege at all
(`manage.py db_roles`); this guards the owner role against the same mistake.

A superuser is let through: it can drop the trigger anyway, and Django's test flush truncates
the tables as one. The owner role of a deployment is not a superuser.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION poundadmin_refuse_truncate() RETURNS trigger AS $$
BEGIN
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'TRUNCATE on % refused: posted rows are append-only', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER kernel_event_no_truncate BEFORE TRUNCATE ON kernel_event
    FOR EACH STATEMENT EXECUTE FUNCTION poundadmin_refuse_truncate();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS kernel_event_no_truncate ON kernel_event;
DROP FUNCTION IF EXISTS poundadmin_refuse_truncate();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("kernel", "0003_chain_checkpoint")]

    operations = [migrations.RunPython(forward, backward)]
