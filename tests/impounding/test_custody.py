"""s.9 custody: deaths, escapes, rescues (s.24), returns, births and the daily feeding log."""

from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from impounding import services
from impounding.models import (
    TRANSITIONS,
    AgeClass,
    Animal,
    AnimalState,
    CustodyEvent,
    FeedingLog,
    Impoundment,
)
from impounding.services import TransitionNotAllowed, ensure_transition
from kernel.models import Event
from tests.impounding.factories import cow, goat, make_entry, pay

IST = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=IST)

pytestmark = pytest.mark.time_machine(NOW, tick=False)


def ist(month, day, hour=12, minute=0, year=2026):
    return datetime(year, month, day, hour, minute, tzinfo=IST)


@pytest.fixture
def entry(pound, pound_keeper):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 20, 9),
        seized_at=ist(11, 20, 6),
        animals=[cow(), goat()],
    )


@pytest.fixture
def animal(entry):
    return entry.animals.get(number=1)


def custody_events(animal):
    return list(animal.custody_events.values_list("kind", flat=True))


def state_of(animal):
    animal.refresh_from_db()
    return animal.state


# --- the state table ---


@pytest.mark.parametrize("start", list(AnimalState))
@pytest.mark.parametrize("to", list(AnimalState))
def test_state_table_allows_only_its_listed_moves(start, to):
    animal = Animal(impoundment=Impoundment(register_number="P/2026/00001"), number=1, state=start)
    allowed = to in TRANSITIONS.get(start, set())

    if allowed:
        assert ensure_transition(animal, to) == start
    else:
        with pytest.raises(TransitionNotAllowed):
            ensure_transition(animal, to)


def test_released_and_dead_animals_go_nowhere():
    for end in (
        AnimalState.RELEASED_PAID,
        AnimalState.RELEASED_ON_DEPOSIT,
        AnimalState.RELEASED_BY_ORDER,
        AnimalState.DIED,
    ):
        assert end not in TRANSITIONS


# --- death ---


def test_death_ends_custody_with_the_cause_and_an_event(animal, pound_keeper, pound):
    event = services.record_death(
        animal=animal,
        by=pound_keeper,
        at=ist(11, 23, 4),
        cause="Bloat",
        vet_name="Dr. Verma",
        certificate="VC/88",
        carcass_disposal="Buried behind the pound",
    )

    animal.refresh_from_db()
    assert (animal.state, animal.custody_ended_at) == (AnimalState.DIED, ist(11, 23, 4))
    assert (event.kind, event.cause, event.vet_name, event.certificate) == (
        CustodyEvent.Kind.DIED,
        "Bloat",
        "Dr. Verma",
        "VC/88",
    )
    assert (event.recorded_by, event.recorded_at) == (pound_keeper, NOW)
    row = Event.objects.get(action="custody.died")
    assert (row.section, row.by, row.animal, row.chain) == (
        "s.9",
        pound_keeper,
        animal,
        f"pound:{pound.pk}",
    )
    assert row.data["from"] == "impounded" and row.data["to"] == "died"


def test_death_needs_a_cause(animal, pound_keeper):
    with pytest.raises(ValidationError) as exc:
        services.record_death(animal=animal, by=pound_keeper, at=ist(11, 23), cause=" ")

    assert "cause" in exc.value.message_dict
    assert state_of(animal) == AnimalState.IMPOUNDED
    assert custody_events(animal) == []


def test_an_animal_cannot_die_twice(animal, pound_keeper):
    services.record_death(animal=animal, by=pound_keeper, at=ist(11, 23), cause="Old age")

    with pytest.raises(TransitionNotAllowed):
        services.record_death(animal=animal, by=pound_keeper, at=ist(11, 24), cause="Again")

    assert custody_events(animal) == ["died"]
    assert Event.objects.filter(action="custody.died").count() == 1


def test_a_dead_animal_cannot_escape_or_return(animal, pound_keeper):
    services.record_death(animal=animal, by=pound_keeper, at=ist(11, 23), cause="Old age")

    with pytest.raises(TransitionNotAllowed):
        services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 24))
    with pytest.raises(TransitionNotAllowed):
        services.record_return(animal=animal, by=pound_keeper, at=ist(11, 24))

    assert custody_events(animal) == ["died"]


# --- escape, rescue and return ---


def test_escaped_animal_can_return_and_feeding_resumes(animal, pound_keeper):
    services.record_escape(
        animal=animal, by=pound_keeper, at=ist(11, 21, 2), notes="Broke the fence"
    )
    assert state_of(animal) == AnimalState.ESCAPED

    services.record_return(animal=animal, by=pound_keeper, at=ist(11, 22, 15))

    assert state_of(animal) == AnimalState.IMPOUNDED
    assert custody_events(animal) == ["escaped", "returned"]
    assert animal.custody_ended_at is None
    actions = Event.objects.filter(animal=animal).order_by("seq").values_list("action", "section")
    assert list(actions) == [("custody.escaped", "s.9"), ("custody.returned", "s.9")]


def test_rescue_from_custody_is_recorded_under_s24(animal, pound_keeper):
    services.record_escape(
        animal=animal,
        by=pound_keeper,
        at=ist(11, 21, 2),
        rescued=True,
        police_reference="FIR 221/2026",
    )

    assert state_of(animal) == AnimalState.RESCUED
    (event,) = animal.custody_events.all()
    assert (event.kind, event.police_reference) == ("rescued", "FIR 221/2026")
    row = Event.objects.get(action="custody.rescued")
    assert row.section == "s.24"
    assert row.data["police_reference"] == "FIR 221/2026"


def test_rescued_animal_can_be_brought_back(animal, pound_keeper):
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 21), rescued=True)

    services.record_return(animal=animal, by=pound_keeper, at=ist(11, 22))

    assert state_of(animal) == AnimalState.IMPOUNDED


def test_escaped_animal_can_be_found_dead(animal, pound_keeper):
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 21))

    services.record_death(animal=animal, by=pound_keeper, at=ist(11, 22), cause="Road accident")

    animal.refresh_from_db()
    assert (animal.state, animal.custody_ended_at) == (AnimalState.DIED, ist(11, 22))


def test_an_animal_in_the_pound_cannot_return(animal, pound_keeper):
    with pytest.raises(TransitionNotAllowed):
        services.record_return(animal=animal, by=pound_keeper, at=ist(11, 22))

    assert custody_events(animal) == []


def test_an_escaped_animal_cannot_escape_again(animal, pound_keeper):
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 21))

    with pytest.raises(TransitionNotAllowed):
        services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 22), rescued=True)

    assert custody_events(animal) == ["escaped"]


def test_a_released_animal_cannot_escape(animal, pound_keeper, tariffs):
    pay(animal.impoundment, pound_keeper, [animal])

    with pytest.raises(TransitionNotAllowed):
        services.record_escape(animal=animal, by=pound_keeper, at=NOW)


# --- times ---


@pytest.mark.parametrize(
    ("at", "message"),
    [
        (NOW + timedelta(minutes=1), "future"),
        (ist(11, 20, 8), "before the animal came to the pound"),
    ],
)
def test_custody_times_must_fall_between_arrival_and_now(animal, pound_keeper, at, message):
    with pytest.raises(ValidationError, match=message):
        services.record_escape(animal=animal, by=pound_keeper, at=at)

    assert state_of(animal) == AnimalState.IMPOUNDED
    assert custody_events(animal) == []
    assert not Event.objects.filter(action__startswith="custody.").exists()


def test_custody_time_cannot_precede_the_last_event(animal, pound_keeper):
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 22))

    with pytest.raises(ValidationError, match="last recorded event"):
        services.record_return(animal=animal, by=pound_keeper, at=ist(11, 21))

    assert state_of(animal) == AnimalState.ESCAPED


def test_the_present_moment_is_not_the_future(animal, pound_keeper):
    services.record_escape(animal=animal, by=pound_keeper, at=NOW)

    assert state_of(animal) == AnimalState.ESCAPED


@pytest.mark.parametrize("who", ["outsider", "police_officer", "dm_clerk"])
def test_only_this_pounds_keeper_records_custody_events(request, animal, who):
    user = request.getfixturevalue(who)

    with pytest.raises(PermissionDenied):
        services.record_death(animal=animal, by=user, at=ist(11, 22), cause="x")
    with pytest.raises(PermissionDenied):
        services.record_escape(animal=animal, by=user, at=ist(11, 22))
    with pytest.raises(PermissionDenied):
        services.record_birth(dam=animal, by=user, at=ist(11, 22), sex="male", colour="Red")

    assert state_of(animal) == AnimalState.IMPOUNDED
    assert Animal.objects.count() == 2


# --- births ---


def test_calf_is_a_new_animal_numbered_next_and_linked_to_its_dam(entry, animal, pound_keeper):
    calf = services.record_birth(
        dam=animal, by=pound_keeper, at=ist(11, 22, 5), sex="female", colour="Red", marks="Star"
    )

    assert calf.number == 3
    assert calf.reference == f"{entry.register_number}/3"
    assert (calf.dam, calf.born_at, calf.born_in_pound) == (animal, ist(11, 22, 5), True)
    assert (calf.species, calf.age_class, calf.sex, calf.state) == (
        animal.species,
        AgeClass.YOUNG,
        "female",
        AnimalState.IMPOUNDED,
    )
    assert custody_events(calf) == ["born"]
    row = Event.objects.get(action="custody.born")
    assert (row.section, row.animal, row.impoundment) == ("s.9", calf, entry)
    assert row.data["dam"] == animal.reference


def test_second_calf_takes_the_next_number(entry, pound_keeper, animal):
    twin_a = services.record_birth(
        dam=animal, by=pound_keeper, at=ist(11, 22, 5), sex="male", colour="Red"
    )
    twin_b = services.record_birth(
        dam=animal, by=pound_keeper, at=ist(11, 22, 6), sex="female", colour="Red"
    )

    assert (twin_a.number, twin_b.number) == (3, 4)
    assert list(animal.calves.order_by("number")) == [twin_a, twin_b]


def test_birth_to_a_male_is_refused(entry, pound_keeper):
    billy = entry.animals.get(number=2)

    with pytest.raises(ValidationError, match="female"):
        services.record_birth(dam=billy, by=pound_keeper, at=ist(11, 22), sex="male", colour="B")

    assert entry.animals.count() == 2


def test_birth_to_an_animal_out_of_the_pound_is_refused(entry, animal, pound_keeper):
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 21))

    with pytest.raises(ValidationError, match="in the pound"):
        services.record_birth(dam=animal, by=pound_keeper, at=ist(11, 22), sex="male", colour="R")

    assert entry.animals.count() == 2
    assert not Event.objects.filter(action="custody.born").exists()


@pytest.mark.parametrize("at", [NOW + timedelta(hours=1), ist(11, 19)])
def test_birth_time_must_fall_between_arrival_and_now(entry, animal, pound_keeper, at):
    with pytest.raises(ValidationError):
        services.record_birth(dam=animal, by=pound_keeper, at=at, sex="male", colour="Red")

    assert entry.animals.count() == 2


def test_calf_has_its_own_custody_clock(entry, animal, pound_keeper):
    calf = services.record_birth(
        dam=animal, by=pound_keeper, at=ist(11, 22, 5), sex="male", colour="Red"
    )

    with pytest.raises(ValidationError, match="before the animal came"):
        services.record_death(animal=calf, by=pound_keeper, at=ist(11, 21), cause="x")

    services.record_death(animal=calf, by=pound_keeper, at=ist(11, 23), cause="Weak at birth")
    assert state_of(calf) == AnimalState.DIED


# --- the daily feeding log ---


def test_feeding_log_records_the_day_with_an_event(pound, pound_keeper):
    log = services.log_feeding(
        pound=pound,
        by=pound_keeper,
        date=date(2026, 11, 25),
        animals_fed=7,
        fodder="Dry fodder 40 kg, green 20 kg",
        cost=Decimal("640.00"),
    )

    assert (log.pound, log.date, log.animals_fed, log.watered, log.recorded_by) == (
        pound,
        date(2026, 11, 25),
        7,
        True,
        pound_keeper,
    )
    row = Event.objects.get(action="custody.fed")
    assert (row.section, row.pound, row.chain, row.impoundment) == (
        "s.9",
        pound,
        f"pound:{pound.pk}",
        None,
    )
    summary = row.data.pop("_summary")  # the timeline's sentence, shown in the reader's language
    assert row.data.pop("_pack") == {"pack": "central", "version": "2026.1", "section": "s.9"}
    assert summary["args"] == {"count": 7, "date": "25-11-2026"}
    assert row.data == {
        "date": "2026-11-25",
        "animals": 7,
        "fodder": "Dry fodder 40 kg, green 20 kg",
        "watered": True,
        "cost": "640.00",
        "round": 1,
    }


def test_a_later_round_feeds_only_the_animals_not_yet_fed(pound, pound_keeper, entry):
    """20 in the pound and 15 fed: a second round for the 5 that came later."""
    make_entry(pound=pound, by=pound_keeper, arrived_at=ist(11, 24, 18), animals=[cow(), cow()])
    day = date(2026, 11, 24)  # 4 animals in the pound: the entry's 2, and 2 came at 18:00
    services.log_feeding(pound=pound, by=pound_keeper, date=day, animals_fed=2, fodder="Dry")

    with pytest.raises(ValidationError) as exc:
        services.log_feeding(pound=pound, by=pound_keeper, date=day, animals_fed=3, fodder="Green")
    assert exc.value.message_dict["animals_fed"] == [
        "Only 2 animals in the pound that day are not yet recorded as fed."
    ]
    later = services.log_feeding(
        pound=pound, by=pound_keeper, date=day, animals_fed=2, fodder="Green"
    )
    with pytest.raises(ValidationError) as exc:
        services.log_feeding(pound=pound, by=pound_keeper, date=day, animals_fed=1, fodder="More")

    assert exc.value.message_dict["date"] == [
        "Every animal in the pound that day is already recorded as fed."
    ]
    assert later.round == 2
    assert list(FeedingLog.objects.values_list("round", "animals_fed")) == [(1, 2), (2, 2)]
    assert Event.objects.filter(action="custody.fed").count() == 2


def test_each_pound_keeps_its_own_feeding_log(pound, pound_keeper, other_pound, outsider):
    services.log_feeding(
        pound=pound, by=pound_keeper, date=date(2026, 11, 24), animals_fed=7, fodder="Dry"
    )

    services.log_feeding(
        pound=other_pound, by=outsider, date=date(2026, 11, 24), animals_fed=3, fodder="Dry"
    )

    assert FeedingLog.objects.count() == 2


def test_feeding_log_for_a_future_day_is_refused(pound, pound_keeper):
    with pytest.raises(ValidationError) as exc:
        services.log_feeding(
            pound=pound, by=pound_keeper, date=date(2026, 11, 26), animals_fed=7, fodder="Dry"
        )

    assert "date" in exc.value.message_dict
    assert not FeedingLog.objects.exists()
    assert not Event.objects.exists()


def test_feeding_log_of_another_pound_is_refused(other_pound, pound_keeper):
    with pytest.raises(PermissionDenied):
        services.log_feeding(
            pound=other_pound, by=pound_keeper, date=date(2026, 11, 24), animals_fed=1, fodder="x"
        )

    assert not FeedingLog.objects.exists()


def test_goat_and_cow_keep_separate_states(entry, pound_keeper):
    cow_, goat_ = entry.animals.order_by("number")

    services.record_escape(animal=goat_, by=pound_keeper, at=ist(11, 21))

    assert (state_of(cow_), state_of(goat_)) == (AnimalState.IMPOUNDED, AnimalState.ESCAPED)
