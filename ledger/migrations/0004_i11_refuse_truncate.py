"""PostgreSQL refuses TRUNCATE of posted ledger rows: row triggers (ledger 0002) do not fire on
TRUNCATE, so a statement trigger does, with the kernel's function (poundadmin 0004), which lets
only a superuser through.
"""

from django.db import migrations

FORWARD = """
CREATE TRIGGER ledger_transaction_no_truncate BEFORE TRUNCATE ON ledger_transaction
    FOR EACH STATEMENT EXECUTE FUNCTION poundadmin_refuse_truncate();
CREATE TRIGGER ledger_posting_no_truncate BEFORE TRUNCATE ON ledger_posting
    FOR EACH STATEMENT EXECUTE FUNCTION poundadmin_refuse_truncate();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS ledger_posting_no_truncate ON ledger_posting;
DROP TRIGGER IF EXISTS ledger_transaction_no_truncate ON ledger_transaction;
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0003_account_months"),
        ("kernel", "0004_i11_refuse_truncate"),
    ]

    operations = [migrations.RunPython(forward, backward)]
