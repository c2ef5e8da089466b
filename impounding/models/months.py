"""The register's month totals (docs/decisions/0066): per pound, species and IST month, how
many animals came in (impounded, or born in the pound) and how many left it, by the state they
left in. The periodic returns (office.returns) read them instead of the animals themselves.

A derived cache, not a record: on PostgreSQL a trigger on the animals keeps it in the writer's
own transaction, whatever wrote the rows (a service, the admin, a bulk load), and
`manage.py check_register_months` holds it against the animals."""

from django.db import models
from django.db.models import Case, Count, F, Value, When
from django.db.models.functions import Coalesce, Concat, TruncMonth
from django.utils.translation import gettext_lazy as _

from accounts.models import Pound

from .choices import Species

IMPOUNDED = "impounded"
BORN = "born"
LEFT = "left:"  # followed by the state the animal left in: "left:died"


def left(state):
    """The movement of an animal that left the pound in `state`."""
    return f"{LEFT}{state}"


class AnimalMonth(models.Model):
    """The animals of one species that came into, or left, one pound in one month."""

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="+")
    species = models.CharField(max_length=20, choices=Species.choices)
    month = models.DateField()  # the first day, in Asia/Kolkata
    # "impounded", "born", or "left:" and the state it left in (see `left`).
    movement = models.CharField(max_length=40)
    animals = models.IntegerField(default=0)

    class Meta:
        verbose_name = _("month of the register")
        verbose_name_plural = _("months of the register")
        constraints = [
            models.UniqueConstraint(
                fields=["pound", "month", "species", "movement"], name="animal_month_key"
            )
        ]

    def __str__(self):
        return f"{self.pound_id} {self.month:%Y-%m} {self.species} {self.movement}"


def months_of_animals(animals):
    """`animals` (a queryset) added up as AnimalMonth rows by the database, in two grouped
    queries: what the month totals must say. Yields dicts."""
    came = animals.order_by().values(
        "pound_id",
        "species",
        month=TruncMonth(
            Coalesce("born_at", "impoundment__arrived_at"), output_field=models.DateField()
        ),
        movement=Case(
            When(born_at__isnull=True, then=Value(IMPOUNDED)),
            default=Value(BORN),
            output_field=models.CharField(),
        ),
    )
    went = (
        animals.filter(custody_ended_at__isnull=False)
        .order_by()
        .values(
            "pound_id",
            "species",
            month=TruncMonth("custody_ended_at", output_field=models.DateField()),
            movement=Concat(Value(LEFT), F("state"), output_field=models.CharField()),
        )
    )
    for rows in (came, went):
        yield from rows.annotate(animals=Count("pk")).iterator()
