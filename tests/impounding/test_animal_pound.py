"""An animal carries its entry's pound (docs/decisions/0007) and its arrival (migration 0027):
copied on save, and on PostgreSQL set from the entry by a trigger, whatever the writer sends."""

from datetime import timedelta
from importlib import import_module
from types import SimpleNamespace
from unittest.mock import patch

import pytest
from django.apps import apps
from django.db import connection
from django.utils import timezone

from impounding.models import Animal
from tests.accounts.factories import PoundFactory
from tests.impounding.factories import cow, make_entry


def test_a_new_animal_takes_its_entrys_pound(pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])
    assert set(entry.animals.values_list("pound_id", flat=True)) == {pound.pk}
    assert Animal.objects.filter(pound=pound).count() == 2


@pytest.mark.postgres
def test_the_database_keeps_the_pound_whatever_the_writer_sends(pound, pound_keeper, district):
    other = PoundFactory(district=district)
    entry = make_entry(pound=pound, by=pound_keeper)
    animal = entry.animals.get()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE impounding_animal SET pound_id = %s WHERE id = %s", [other.pk, animal.pk]
        )
        cursor.execute(
            "INSERT INTO impounding_animal (impoundment_id, pound_id, number, species, sex,"
            " age_class, colour, marks, ear_tag, photo, state)"
            " VALUES (%s, %s, 9, 'cattle', 'female', 'adult', 'red', '', '', '', 'impounded')"
            " RETURNING id",
            [entry.pk, other.pk],
        )
        (inserted,) = cursor.fetchone()
    assert Animal.objects.get(pk=animal.pk).pound_id == pound.pk
    assert Animal.objects.get(pk=inserted).pound_id == pound.pk


def test_a_new_animal_takes_its_entrys_arrival(pound, pound_keeper):
    arrived = timezone.now() - timedelta(days=3, hours=5)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()], arrived_at=arrived)
    assert set(entry.animals.values_list("entry_arrived_at", flat=True)) == {arrived}


@pytest.mark.postgres
def test_the_database_keeps_the_arrival_whatever_the_writer_sends(pound, pound_keeper):
    arrived = timezone.now() - timedelta(days=2)
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=arrived)
    animal = entry.animals.get()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE impounding_animal SET entry_arrived_at = now() WHERE id = %s", [animal.pk]
        )
        cursor.execute(
            "INSERT INTO impounding_animal (impoundment_id, pound_id, number, species, sex,"
            " age_class, colour, marks, ear_tag, photo, state, entry_arrived_at)"
            " VALUES (%s, %s, 9, 'cattle', 'female', 'adult', 'red', '', '', '', 'impounded',"
            " NULL) RETURNING id",
            [entry.pk, pound.pk],
        )
        (inserted,) = cursor.fetchone()
    assert Animal.objects.get(pk=animal.pk).entry_arrived_at == arrived
    assert Animal.objects.get(pk=inserted).entry_arrived_at == arrived


@pytest.mark.postgres
def test_the_migration_fills_the_animals_entered_before_it(pound, pound_keeper):
    """Migration 0028 fills the arrival of every animal already entered, batch by batch: here
    the column is emptied behind the trigger's back, and the migration's step fills it again."""
    fill = import_module("impounding.migrations.0028_animal_entry_arrival_filled")
    arrivals = [timezone.now() - timedelta(days=d) for d in (9, 4)]
    entries = [make_entry(pound=pound, by=pound_keeper, arrived_at=a) for a in arrivals]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # no trigger fires
        cursor.execute("UPDATE impounding_animal SET entry_arrived_at = NULL")
        cursor.execute("SET LOCAL session_replication_role = origin")
    assert not Animal.objects.filter(entry_arrived_at__isnull=False).exists()
    schema_editor = SimpleNamespace(connection=connection)  # the fill uses its connection alone
    with patch.object(fill, "BATCH", 1):
        fill.forward(apps, schema_editor)
    got = dict(Animal.objects.values_list("impoundment_id", "entry_arrived_at"))
    assert got == {e.pk: a for e, a in zip(entries, arrivals, strict=True)}
