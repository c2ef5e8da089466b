"""One person, one registration at an auction (s.19, docs/decisions/0057): before the rule, a
bidder could be registered several times in one auction with the same phone or document. Those
later registrations are marked with the number he was first registered under (`same_as`), so
that the unique constraints of the next migration build on a database that holds them, and
the records stay as they were made."""

from django.db import migrations, models


def _mark(Bidder, alias, field, **exclude):
    first = {}
    rows = (
        Bidder.objects.using(alias)
        .exclude(**{field: ""})
        .exclude(**exclude)
        .filter(same_as__isnull=True)
        .order_by("auction_id", "number")
        .values_list("pk", "auction_id", "number", field)
    )
    for pk, auction_id, number, value in rows:
        earlier = first.setdefault((auction_id, value), number)
        if earlier != number:
            Bidder.objects.using(alias).filter(pk=pk).update(same_as=earlier)


def mark_second_registrations(apps, schema_editor):
    Bidder = apps.get_model("auctions", "Bidder")
    alias = schema_editor.connection.alias
    _mark(Bidder, alias, "phone")
    _mark(Bidder, alias, "id_number", id_kind="aadhaar")


class Migration(migrations.Migration):
    dependencies = [
        ("auctions", "0009_auction_and_conditions_once_per_form_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="bidder",
            name="same_as",
            field=models.PositiveSmallIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(mark_second_registrations, migrations.RunPython.noop),
    ]
