"""The register's month totals (impounding.AnimalMonth, docs/decisions/0066): read, set afresh
after a bulk load, and held against the animals they add up."""

from collections import defaultdict

from django.db import connection, transaction
from django.db.models import Q, Sum

from .models import Animal, AnimalMonth
from .models.months import BORN, IMPOUNDED, left, months_of_animals

__all__ = ["BORN", "IMPOUNDED", "left", "movements", "months_disagree", "rebuild_months"]


def _kept():
    # The trigger that keeps the table is PostgreSQL's; on SQLite (the development fallback)
    # the totals are added up from the animals when asked.
    return connection.vendor == "postgresql"


def movements(pound_ids, month):
    """{(pound id, species, movement): (before, during)}: the animals of each movement in the
    months before `month` (a first day) and in `month`. A few rows per pound, species and
    movement, whatever the length of the register."""
    if _kept():
        rows = (
            AnimalMonth.objects.filter(pound_id__in=pound_ids, month__lte=month)
            .order_by()
            .values("pound_id", "species", "movement")
            .annotate(
                before=Sum("animals", filter=Q(month__lt=month), default=0),
                during=Sum("animals", filter=Q(month=month), default=0),
            )
        )
        return {
            (r["pound_id"], r["species"], r["movement"]): (r["before"], r["during"]) for r in rows
        }
    found = defaultdict(lambda: (0, 0))
    for row in months_of_animals(Animal.objects.filter(pound_id__in=pound_ids)):
        if row["month"] > month:
            continue
        key = (row["pound_id"], row["species"], row["movement"])
        before, during = found[key]
        if row["month"] < month:
            found[key] = (before + row["animals"], during)
        else:
            found[key] = (before, during + row["animals"])
    return dict(found)


@transaction.atomic
def rebuild_months():
    """Set the month totals afresh from the animals: after rows written past the trigger (a
    bulk load with triggers off), or a drift that check_register_months reported."""
    if not _kept():
        return
    AnimalMonth.objects.all().delete()
    AnimalMonth.objects.bulk_create(
        (AnimalMonth(**row) for row in months_of_animals(Animal.objects.all())), batch_size=5000
    )


def months_disagree():
    """Where the month totals do not say what the animals add up to: a line per row. Two
    grouped queries over the animals, so for the weekly run, never a request."""
    if not _kept():
        return []
    kept = defaultdict(int)
    for pound_id, species, month, movement, animals in AnimalMonth.objects.values_list(
        "pound_id", "species", "month", "movement", "animals"
    ).iterator():
        kept[(pound_id, species, month, movement)] += animals
    counted = defaultdict(int)
    for row in months_of_animals(Animal.objects.all()):
        counted[(row["pound_id"], row["species"], row["month"], row["movement"])] += row["animals"]
    problems = []
    for key in sorted(set(kept) | set(counted)):
        if kept[key] != counted[key]:
            pound_id, species, month, movement = key
            problems.append(
                f"pound #{pound_id}, {species}, {month:%Y-%m}, {movement}: the month totals say "
                f"{kept[key]}, the animals {counted[key]}"
            )
    return problems
