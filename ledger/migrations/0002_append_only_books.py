"""PostgreSQL refuses any UPDATE, DELETE or TRUNCATE of posted ledger rows, even from raw SQL,
and refuses to commit a transaction whose postings do not sum to zero. The refusing functions
are the kernel's (kernel 0002); TRUNCATE lets only a superuser through.

On SQLite (the zero-setup demo database) the services are the only guard: Django's test flush
deletes rows there, which such triggers would refuse.
"""

from django.db import migrations

FORWARD = """
CREATE TRIGGER ledger_transaction_append_only BEFORE UPDATE OR DELETE ON ledger_transaction
    FOR EACH ROW EXECUTE FUNCTION poundadmin_refuse_change();
CREATE TRIGGER ledger_posting_append_only BEFORE UPDATE OR DELETE ON ledger_posting
    FOR EACH ROW EXECUTE FUNCTION poundadmin_refuse_change();

CREATE OR REPLACE FUNCTION ledger_check_balanced() RETURNS trigger AS $$
DECLARE total numeric;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total FROM ledger_posting
        WHERE transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: postings sum to %',
            NEW.transaction_id, total USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER ledger_posting_balanced AFTER INSERT ON ledger_posting
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced();

CREATE TRIGGER ledger_transaction_no_truncate BEFORE TRUNCATE ON ledger_transaction
    FOR EACH STATEMENT EXECUTE FUNCTION poundadmin_refuse_truncate();
CREATE TRIGGER ledger_posting_no_truncate BEFORE TRUNCATE ON ledger_posting
    FOR EACH STATEMENT EXECUTE FUNCTION poundadmin_refuse_truncate();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS ledger_posting_no_truncate ON ledger_posting;
DROP TRIGGER IF EXISTS ledger_transaction_no_truncate ON ledger_transaction;
DROP TRIGGER IF EXISTS ledger_posting_balanced ON ledger_posting;
DROP FUNCTION IF EXISTS ledger_check_balanced();
DROP TRIGGER IF EXISTS ledger_posting_append_only ON ledger_posting;
DROP TRIGGER IF EXISTS ledger_transaction_append_only ON ledger_transaction;
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial"), ("kernel", "0002_event_log_append_only")]

    operations = [migrations.RunPython(forward, backward)]
