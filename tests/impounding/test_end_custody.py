"""The one way custody ends (`services.end_custody`) and the one filter for the animals still held
(`Animal.objects.in_custody()`)."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from impounding import services
from impounding.models import OUT_OF_POUND, TERMINAL, TRANSITIONS, Animal, AnimalState
from impounding.services import TransitionNotAllowed
from tests.impounding.factories import cow, goat, make_entry, pay

IST = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=IST)

pytestmark = pytest.mark.time_machine(NOW, tick=False)


def ist(day, hour=12):
    return datetime(2026, 11, day, hour, tzinfo=IST)


@pytest.fixture
def entry(pound, pound_keeper):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(20, 9),
        seized_at=ist(20, 6),
        animals=[cow(), goat(), cow(colour="Brown")],
    )


def held(entry):
    return set(entry.animals.in_custody().values_list("number", flat=True))


def states(entry):
    return dict(entry.animals.values_list("number", "state"))


# --- in_custody ---


def test_in_custody_is_every_animal_in_the_pound(entry):
    assert held(entry) == {1, 2, 3}
    assert Animal.objects.in_custody().count() == 3


def test_in_custody_excludes_a_released_animal(entry, pound_keeper, tariffs):
    pay(entry, pound_keeper, [entry.animals.get(number=1)])

    assert states(entry)[1] == AnimalState.RELEASED_PAID
    assert held(entry) == {2, 3}


def test_in_custody_excludes_the_dead_and_those_out_of_the_pound(entry, pound_keeper):
    one, two, three = entry.animals.order_by("number")
    services.record_death(animal=one, by=pound_keeper, at=ist(23), cause="Bloat")
    services.record_escape(animal=two, by=pound_keeper, at=ist(23))
    services.record_escape(animal=three, by=pound_keeper, at=ist(23), rescued=True)

    assert held(entry) == set()


def test_in_custody_takes_back_a_recaptured_animal(entry, pound_keeper):
    animal = entry.animals.get(number=2)
    services.record_escape(animal=animal, by=pound_keeper, at=ist(22))
    services.record_return(animal=animal, by=pound_keeper, at=ist(23))

    assert held(entry) == {1, 2, 3}


def test_in_custody_chains_with_other_filters(entry, pound, other_pound, pound_keeper):
    assert Animal.objects.filter(pound=other_pound).in_custody().count() == 0
    assert Animal.objects.filter(pound=pound).in_custody().count() == 3


# --- end_custody ---


def test_end_for_good_sets_the_state_and_when_custody_ended(entry):
    animals = list(entry.animals.order_by("number")[:2])

    services.end_custody(animals, state=AnimalState.DIED, at=ist(23))

    ended = dict(entry.animals.values_list("number", "custody_ended_at"))
    assert states(entry) == {1: AnimalState.DIED, 2: AnimalState.DIED, 3: AnimalState.IMPOUNDED}
    assert ended == {1: ist(23), 2: ist(23), 3: None}
    assert [a.state for a in animals] == [AnimalState.DIED, AnimalState.DIED]


@pytest.mark.parametrize("out", sorted(OUT_OF_POUND))
def test_escape_or_rescue_leaves_custody_ended_at_empty(entry, out):
    animal = entry.animals.get(number=1)

    services.end_custody([animal], state=out, at=ist(23))

    animal.refresh_from_db()
    assert (animal.state, animal.custody_ended_at) == (out, None)


def test_end_custody_after_an_escape_sets_when_it_ended(entry):
    animal = entry.animals.get(number=1)
    services.end_custody([animal], state=AnimalState.ESCAPED, at=ist(22))

    services.end_custody([animal], state=AnimalState.DIED, at=ist(23))

    animal.refresh_from_db()
    assert (animal.state, animal.custody_ended_at) == (AnimalState.DIED, ist(23))


def test_end_custody_refuses_an_illegal_move_and_moves_none(entry):
    first, second = entry.animals.order_by("number")[:2]
    services.end_custody([second], state=AnimalState.DIED, at=ist(22))

    with pytest.raises(TransitionNotAllowed):
        services.end_custody([first, second], state=AnimalState.ESCAPED, at=ist(23))

    assert states(entry) == {
        1: AnimalState.IMPOUNDED,
        2: AnimalState.DIED,
        3: AnimalState.IMPOUNDED,
    }
    assert entry.animals.get(number=2).custody_ended_at == ist(22)


def test_end_custody_refuses_a_state_that_is_no_end(entry):
    # The way back from an escape is allowed by the state table, but it is no end of custody.
    animal = entry.animals.get(number=1)
    services.end_custody([animal], state=AnimalState.ESCAPED, at=ist(22))

    with pytest.raises(ValueError, match="not an end of custody"):
        services.end_custody([animal], state=AnimalState.IMPOUNDED, at=ist(23))

    assert states(entry)[1] == AnimalState.ESCAPED


def test_end_custody_saves_only_the_custody_fields(entry):
    animal = entry.animals.get(number=1)
    animal.colour = "Painted over in memory"

    services.end_custody([animal], state=AnimalState.DIED, at=ist(23))

    animal.refresh_from_db()
    assert (animal.state, animal.colour) == (AnimalState.DIED, "White")


def test_every_end_in_the_state_table_is_an_end_of_custody():
    # The ends end_custody accepts are exactly the moves out of the pound the table allows.
    moves = set().union(*TRANSITIONS.values())
    assert TERMINAL | OUT_OF_POUND == moves - {AnimalState.IMPOUNDED}
