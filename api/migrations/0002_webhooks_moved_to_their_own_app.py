"""The webhooks' three models leave the API's state for the `webhooks` app (ADR 0051). Their
tables stay, under the names they have (`Meta.db_table` there), so nothing is done to the
database; this runs after `webhooks` 0001 took the models into its state."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0001_initial"),
        ("webhooks", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(
                    name="WebhookAttempt",
                ),
                migrations.DeleteModel(
                    name="WebhookDelivery",
                ),
                migrations.DeleteModel(
                    name="WebhookSubscription",
                ),
            ],
        ),
    ]
