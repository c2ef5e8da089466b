"""An animal carries its entry's pound (docs/decisions/0007): copied on save, and on PostgreSQL
set from the entry by a trigger, whatever the writer sends."""

import pytest
from django.db import connection

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
