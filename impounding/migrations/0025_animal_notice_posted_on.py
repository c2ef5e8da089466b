"""Each animal carries the day of the latest s.14 notice naming it, for the public board
(docs/capacity.md, issue 24). A nullable column: added without rewriting the table. The sales
floor fills it (auctions/migrations/0023), and 0026 indexes it."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("impounding", "0024_deposits_whose_refund_is_due")]

    operations = [
        migrations.AddField(
            model_name="animal",
            name="notice_posted_on",
            field=models.DateField(blank=True, editable=False, null=True),
        ),
    ]
