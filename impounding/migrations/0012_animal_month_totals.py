"""The register's month totals (docs/decisions/0066): the table, the trigger that keeps it
(impounding/months_sql.py) and its rows for the animals already entered."""

import django.db.models.deletion
from django.db import migrations, models

from impounding import months_sql
from impounding.models.months import months_of_animals


def forward(apps, schema_editor):
    """The trigger that keeps the totals, then the totals of the animals already there."""
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(months_sql.FORWARD, params=None)
    alias = schema_editor.connection.alias
    Animal = apps.get_model("impounding", "Animal")
    AnimalMonth = apps.get_model("impounding", "AnimalMonth")
    AnimalMonth.objects.using(alias).bulk_create(
        (AnimalMonth(**row) for row in months_of_animals(Animal.objects.using(alias).all())),
        batch_size=5000,
    )


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(months_sql.BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_recovery_codes_hashed"),
        ("impounding", "0011_court_order_checked_before_release"),
    ]

    operations = [
        migrations.CreateModel(
            name="AnimalMonth",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "species",
                    models.CharField(
                        choices=[
                            ("cattle", "Cattle (cow, bull, bullock, heifer, calf)"),
                            ("buffalo", "Buffalo"),
                            ("horse", "Horse (mare, gelding, colt, filly)"),
                            ("pony", "Pony"),
                            ("mule", "Mule"),
                            ("ass", "Ass (donkey)"),
                            ("camel", "Camel"),
                            ("elephant", "Elephant"),
                            ("pig", "Pig"),
                            ("sheep", "Sheep (ram, ewe, lamb)"),
                            ("goat", "Goat (kid)"),
                            ("other", "Other animal notified by the State"),
                        ],
                        max_length=20,
                    ),
                ),
                ("month", models.DateField()),
                ("movement", models.CharField(max_length=40)),
                ("animals", models.IntegerField(default=0)),
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
                "verbose_name": "month of the register",
                "verbose_name_plural": "months of the register",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("pound", "month", "species", "movement"), name="animal_month_key"
                    )
                ],
            },
        ),
        migrations.RunPython(forward, backward),
    ]
