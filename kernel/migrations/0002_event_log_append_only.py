"""PostgreSQL holds the event log append-only: the register's history is evidence.

- UPDATE and DELETE of an event are refused (a row trigger). The hash chain still detects a
  change made with the trigger disabled. `poundadmin_refuse_change()` is the kernel's: the
  ledger's append-only triggers use it too.
- TRUNCATE is refused too (row triggers do not fire on it, so a statement trigger does). The
  runtime role holds no TRUNCATE privilege at all (`manage.py db_roles`); this guards the owner
  role against the same mistake. A superuser is let through: it can drop the trigger anyway, and
  Django's test flush truncates the tables as one. The owner role of a deployment is not a
  superuser.
- An event's personal fields (docs/decisions/0010) are erased, never rewritten: UPDATE of
  their row is refused. The link hashes their salted digest; erasure deletes the row and the
  link keeps the digest.
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

CREATE OR REPLACE FUNCTION poundadmin_refuse_personal_update() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'UPDATE on % refused: personal fields are erased (deleted), never changed',
        TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER kernel_eventpersonal_no_update BEFORE UPDATE ON kernel_eventpersonal
    FOR EACH ROW EXECUTE FUNCTION poundadmin_refuse_personal_update();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS kernel_eventpersonal_no_update ON kernel_eventpersonal;
DROP FUNCTION IF EXISTS poundadmin_refuse_personal_update();
DROP TRIGGER IF EXISTS kernel_event_no_truncate ON kernel_event;
DROP FUNCTION IF EXISTS poundadmin_refuse_truncate();
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
