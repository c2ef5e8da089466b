"""The daily cash book kept as last drawn (docs/decisions/0066)."""

import django.db.models.deletion
import django.utils.timezone
import kernel.uploads
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_recovery_codes_hashed"),
        ("office", "0002_surplus_claim_once_per_form_key"),
    ]

    operations = [
        migrations.CreateModel(
            name="KeptCashBook",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("day", models.DateField()),
                ("drawn_from", models.CharField(max_length=64)),
                ("file", models.FileField(upload_to=kernel.uploads.UploadName("cashbooks"))),
                ("drawn_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "pound",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="accounts.pound",
                    ),
                ),
            ],
            options={
                "verbose_name": "kept cash book",
                "verbose_name_plural": "kept cash books",
                "constraints": [
                    models.UniqueConstraint(fields=("pound", "day"), name="kept_cash_book_per_day")
                ],
            },
        ),
    ]
