"""Seal the signing secrets stored in the clear before ADR 0060 with WEBHOOK_SECRET_KEYS' newest
key. A database with webhooks needs the key set before this runs; one without needs none."""

from django.db import migrations

from webhooks.secrets import CLEAR_PREFIX, seal, unseal


def _rows(apps, schema_editor):
    model = apps.get_model("webhooks", "WebhookSubscription")
    return model.objects.using(schema_editor.connection.alias)


def seal_clear_secrets(apps, schema_editor):
    for row in _rows(apps, schema_editor).filter(secret__startswith=CLEAR_PREFIX):
        row.secret = seal(row.secret)
        row.save(update_fields=["secret"])


def open_sealed_secrets(apps, schema_editor):
    for row in _rows(apps, schema_editor).exclude(secret__startswith=CLEAR_PREFIX):
        row.secret = unseal(row.secret)
        row.save(update_fields=["secret"])


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0002_secret_sealed_column"),
    ]

    operations = [
        migrations.RunPython(seal_clear_secrets, open_sealed_secrets, elidable=False),
    ]
