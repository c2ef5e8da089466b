"""The personal fields of an event, kept apart from its hashed link (docs/decisions/0010).

The link hashes their salted digest; erasure deletes the row and the link keeps the digest.
PostgreSQL refuses UPDATE on the row: personal fields are erased, never rewritten. Adding the
digest column writes no row, so the event log's append-only trigger is not asked.
"""

import django.core.serializers.json
import django.db.models.deletion
from django.db import migrations, models

FORWARD = """
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
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("kernel", "0004_i11_refuse_truncate")]

    operations = [
        migrations.CreateModel(
            name="EventPersonal",
            fields=[
                (
                    "event",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="personal_fields",
                        serialize=False,
                        to="kernel.event",
                    ),
                ),
                ("fields", models.JSONField(encoder=django.core.serializers.json.DjangoJSONEncoder)),
                ("salt", models.CharField(max_length=32)),
            ],
            options={
                "verbose_name": "personal fields of an event",
                "verbose_name_plural": "personal fields of events",
            },
        ),
        migrations.AddField(
            model_name="event",
            name="personal_digest",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.RunPython(forward, backward),
    ]
