"""The webhooks' three models, moved here from `api` (ADR 0051). Their tables stay as `api`
0001 made them (`Meta.db_table`), so this migration changes Django's state alone: it runs after
`api` 0001 made the tables, and `api` 0002 then drops the models from the API's state."""

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("accounts", "0001_initial"),
        ("api", "0001_initial"),
        ("kernel", "0003_cache_table"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="WebhookSubscription",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("url", models.URLField(max_length=500, verbose_name="address")),
                        ("topics", models.JSONField(default=list, verbose_name="topics")),
                        ("secret", models.CharField(editable=False, max_length=80)),
                        (
                            "created_at",
                            models.DateTimeField(
                                default=django.utils.timezone.now, verbose_name="created"
                            ),
                        ),
                        (
                            "stopped_at",
                            models.DateTimeField(blank=True, null=True, verbose_name="stopped"),
                        ),
                        (
                            "idempotency_key",
                            models.UUIDField(blank=True, editable=False, null=True, unique=True),
                        ),
                        (
                            "created_by",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "stopped_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "token",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="webhooks",
                                to="accounts.apitoken",
                                verbose_name="service token",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "webhook",
                        "verbose_name_plural": "webhooks",
                        "db_table": "api_webhooksubscription",
                        "ordering": ["-created_at", "-pk"],
                    },
                ),
                migrations.CreateModel(
                    name="WebhookDelivery",
                    fields=[
                        (
                            "id",
                            models.UUIDField(
                                default=uuid.uuid4,
                                editable=False,
                                primary_key=True,
                                serialize=False,
                            ),
                        ),
                        ("topic", models.CharField(max_length=40, verbose_name="topic")),
                        ("body", models.TextField()),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Waiting to be sent"),
                                    ("delivered", "Delivered"),
                                    ("gave_up", "Given up"),
                                ],
                                default="pending",
                                max_length=10,
                                verbose_name="status",
                            ),
                        ),
                        (
                            "attempts",
                            models.PositiveSmallIntegerField(default=0, verbose_name="attempts"),
                        ),
                        ("next_attempt_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "delivered_at",
                            models.DateTimeField(blank=True, null=True, verbose_name="delivered"),
                        ),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("resent_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "event",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to="kernel.event",
                            ),
                        ),
                        (
                            "resent_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "subscription",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="deliveries",
                                to="webhooks.webhooksubscription",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "webhook delivery",
                        "verbose_name_plural": "webhook deliveries",
                        "db_table": "api_webhookdelivery",
                    },
                ),
                migrations.CreateModel(
                    name="WebhookAttempt",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("number", models.PositiveSmallIntegerField()),
                        ("at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("status_code", models.PositiveSmallIntegerField(blank=True, null=True)),
                        ("error", models.CharField(blank=True, max_length=200)),
                        ("response", models.CharField(blank=True, max_length=500)),
                        ("duration_ms", models.PositiveIntegerField(default=0)),
                        (
                            "delivery",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="attempt_log",
                                to="webhooks.webhookdelivery",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "api_webhookattempt",
                        "ordering": ["delivery", "number"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("delivery", "number"), name="webhookattempt_number"
                            )
                        ],
                    },
                ),
                migrations.AddIndex(
                    model_name="webhookdelivery",
                    index=models.Index(
                        condition=models.Q(("status", "pending")),
                        fields=["next_attempt_at"],
                        name="webhookdelivery_due",
                    ),
                ),
                migrations.AddIndex(
                    model_name="webhookdelivery",
                    index=models.Index(
                        fields=["subscription", "-created_at"], name="webhookdelivery_recent"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="webhookdelivery",
                    constraint=models.UniqueConstraint(
                        fields=("subscription", "event"), name="webhookdelivery_one_per_event"
                    ),
                ),
            ],
        ),
    ]
