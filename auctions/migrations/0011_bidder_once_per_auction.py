"""One person, one registration at an auction (s.19, docs/decisions/0057): the same phone, or
the same identity document (not an Aadhaar number's last four digits, which many share), is
registered once per auction. The bidders' table is small: a plain unique index."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("auctions", "0010_bidder_same_as"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="bidder",
            constraint=models.UniqueConstraint(
                condition=models.Q(~models.Q(phone=""), same_as__isnull=True),
                fields=("auction", "phone"),
                name="bidder_once_per_phone",
            ),
        ),
        migrations.AddConstraint(
            model_name="bidder",
            constraint=models.UniqueConstraint(
                condition=models.Q(
                    ~models.Q(id_number=""), ~models.Q(id_kind="aadhaar"), same_as__isnull=True
                ),
                fields=("auction", "id_number"),
                name="bidder_once_per_id_number",
            ),
        ),
    ]
