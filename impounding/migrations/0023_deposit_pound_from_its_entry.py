"""Each s.15 deposit carries its entry's pound, as each animal does (docs/decisions/0007), so that
the deposits page, the office's queues and the API's list read a pound's deposits by an index
rather than joining every release the pound ever made (docs/capacity.md, issue 24). PostgreSQL
keeps the column: a trigger sets it from the release's entry on every insert and on every change
of the release, whatever the writer sent, so an app server of the previous release writes it
right during a rolling deploy (the model's save() copies it too, for SQLite).
"""

import django.db.models.deletion
from django.db import migrations, models

FORWARD = """
UPDATE impounding_deposit d SET pound_id = i.pound_id
    FROM impounding_release r JOIN impounding_impoundment i ON i.id = r.impoundment_id
    WHERE r.id = d.release_id;

CREATE OR REPLACE FUNCTION impounding_deposit_pound() RETURNS trigger AS $$
BEGIN
    SELECT i.pound_id INTO NEW.pound_id
        FROM impounding_release r JOIN impounding_impoundment i ON i.id = r.impoundment_id
        WHERE r.id = NEW.release_id;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER impounding_deposit_pound
    BEFORE INSERT OR UPDATE OF release_id, pound_id ON impounding_deposit
    FOR EACH ROW EXECUTE FUNCTION impounding_deposit_pound();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS impounding_deposit_pound ON impounding_deposit;
DROP FUNCTION IF EXISTS impounding_deposit_pound();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)
        return
    Deposit = apps.get_model("impounding", "Deposit")
    db = schema_editor.connection.alias
    for deposit in Deposit.objects.using(db).select_related("release__impoundment"):
        deposit.pound_id = deposit.release.impoundment.pound_id
        deposit.save(using=db, update_fields=["pound"])


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("impounding", "0022_lost_reports_matched_to_later_animals"),
    ]

    operations = [
        migrations.AddField(
            model_name="deposit",
            name="pound",
            field=models.ForeignKey(
                null=True,
                db_index=False,
                editable=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="accounts.pound",
            ),
        ),
        migrations.RunPython(forward, backward),
        migrations.AlterField(
            model_name="deposit",
            name="pound",
            field=models.ForeignKey(
                db_index=False,
                editable=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="accounts.pound",
            ),
        ),
        migrations.AddIndex(
            model_name="deposit",
            index=models.Index(
                fields=["pound", "-complaint_deadline", "-id"], name="deposit_pound_deadline"
            ),
        ),
        migrations.AddIndex(
            model_name="deposit",
            index=models.Index(fields=["-complaint_deadline", "-id"], name="deposit_deadline"),
        ),
    ]
