import uuid
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from impounding import services
from impounding.models import Animal, AnimalState, CustodyEvent, FeedingLog, Sex
from kernel.models import Event
from tests.impounding.factories import cow, goat, make_entry, pay

IST = ZoneInfo("Asia/Kolkata")
TODAY = date(2026, 3, 15)


def ist(day, hour=10, minute=0):
    return datetime(2026, 3, day, hour, minute, tzinfo=IST)


@pytest.fixture(autouse=True)
def now(time_machine):
    time_machine.move_to(ist(15, 12), tick=False)


@pytest.fixture
def entry(pound, pound_keeper):
    return make_entry(pound=pound, by=pound_keeper, arrived_at=ist(12, 16), animals=[cow()])


@pytest.fixture
def animal(entry):
    return entry.animals.get()


@pytest.fixture
def keeper_client(client, pound_keeper):
    client.force_login(pound_keeper)
    return client


def snapshot():
    """What a custody screen could write: compared before and after a refused request."""
    return (
        list(Animal.objects.order_by("pk").values_list("pk", "state", "custody_ended_at")),
        CustodyEvent.objects.count(),
        FeedingLog.objects.count(),
        Event.objects.count(),
    )


ANIMAL_PAGES = ["animal_death", "animal_escape", "animal_return", "animal_birth"]
ALL_PAGES = [*ANIMAL_PAGES, "feeding_log"]


def url_of(name, animal):
    pk = animal.impoundment.pound_id if name == "feeding_log" else animal.pk
    return reverse(f"impounding:{name}", kwargs={"pk": pk})


def entry_url(animal):
    return reverse("impounding:entry", kwargs={"pk": animal.impoundment_id})


def has_form(response):
    """The action's own form (the page always has the sign-out form too)."""
    body = response.content.decode()
    return 'name="at"' in body or 'name="fodder"' in body


def field_errors(response, field):
    return response.context["form"].errors.get(field, [])


# Who may open the pages ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_PAGES)
@pytest.mark.parametrize("method", ["get", "post"])
def test_custody_page_sends_anonymous_visitor_to_login(client, animal, name, method):
    response = getattr(client, method)(url_of(name, animal))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", ALL_PAGES)
@pytest.mark.parametrize("role", ["auditor", "police_officer", "dm_clerk", "magistrate"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_custody_page_refused_to_roles_that_do_not_keep_the_pound(
    client, role_users, animal, name, role, method
):
    before = snapshot()
    client.force_login(role_users[role])
    response = getattr(client, method)(
        url_of(name, animal), {"cause": "x", "at": "15-03-2026 09:00"}
    )
    assert response.status_code == 403
    assert snapshot() == before


@pytest.mark.parametrize("name", ALL_PAGES)
@pytest.mark.parametrize("method", ["get", "post"])
def test_custody_page_is_not_found_for_another_districts_keeper(
    client, outsider, animal, name, method
):
    client.force_login(outsider)
    response = getattr(client, method)(url_of(name, animal))
    assert response.status_code == 404


@pytest.mark.parametrize("name", ALL_PAGES)
def test_custody_page_get_shows_the_form_and_changes_nothing(keeper_client, animal, name):
    if name == "animal_return":
        services.record_escape(animal=animal, by=animal.impoundment.recorded_by, at=ist(14))
    before = snapshot()
    response = keeper_client.get(url_of(name, animal))
    assert response.status_code == 200
    assert has_form(response)
    body = response.content.decode()
    if name != "feeding_log":
        assert animal.reference in body
        assert "White" in body  # the animal's description
    assert snapshot() == before


# Death ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["15-03-2026 06:45", "2026-03-15T06:45"])
def test_death_recorded_with_ist_time_in_either_format(keeper_client, animal, typed):
    response = keeper_client.post(
        url_of("animal_death", animal),
        {
            "at": typed,
            "cause": "Bloat",
            "vet_name": "Dr Verma",
            "certificate": "PM-12",
            "carcass_disposal": "Buried at the village ground",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == entry_url(animal)
    animal.refresh_from_db()
    assert animal.state == AnimalState.DIED
    assert animal.custody_ended_at == ist(15, 6, 45)
    event = CustodyEvent.objects.get(animal=animal)
    assert (event.kind, event.cause, event.vet_name, event.certificate) == (
        "died",
        "Bloat",
        "Dr Verma",
        "PM-12",
    )
    audit = Event.objects.get(animal=animal, action="custody.died")
    assert audit.section == "s.9"


def test_death_refused_without_a_cause(keeper_client, animal):
    before = snapshot()
    response = keeper_client.post(url_of("animal_death", animal), {"at": "15-03-2026 06:45"})
    assert response.status_code == 200
    assert field_errors(response, "cause")
    assert 'id="error_1_id_cause"' in response.content.decode()
    assert snapshot() == before


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("15-03-2026 12:30", "cannot be in the future"),
        ("12-03-2026 09:00", "before the animal came to the pound"),
        ("not a time", "Enter the date and the time as day-month-year hours:minutes"),
    ],
)
def test_death_refused_at_an_impossible_time(keeper_client, animal, typed, message):
    before = snapshot()
    response = keeper_client.post(url_of("animal_death", animal), {"at": typed, "cause": "Bloat"})
    assert response.status_code == 200
    assert any(message in e for e in field_errors(response, "at"))
    assert 'id="error_1_id_at"' in response.content.decode()
    assert snapshot() == before


def test_death_of_a_released_animal_is_refused_as_a_form_error(
    keeper_client, animal, pound_keeper, tariffs
):

    pay(animal.impoundment, pound_keeper)
    before = snapshot()
    page = keeper_client.get(url_of("animal_death", animal))
    assert not has_form(page)
    assert "no longer in custody" in page.content.decode()
    response = keeper_client.post(
        url_of("animal_death", animal), {"at": "15-03-2026 11:00", "cause": "Bloat"}
    )
    assert response.status_code == 200
    assert "cannot become" in " ".join(response.context["form"].non_field_errors())
    assert snapshot() == before


# Escape and rescue (s.24) ---------------------------------------------------------------------


def test_escape_recorded_and_feeding_pauses(keeper_client, animal):
    response = keeper_client.post(
        url_of("animal_escape", animal),
        {"kind": "escaped", "at": "14-03-2026 22:10", "notes": "Broke the gate"},
    )
    assert response.status_code == 302
    assert response["Location"] == entry_url(animal)
    animal.refresh_from_db()
    assert animal.state == AnimalState.ESCAPED
    event = CustodyEvent.objects.get(animal=animal)
    assert (event.kind, event.at, event.notes) == ("escaped", ist(14, 22, 10), "Broke the gate")
    assert Event.objects.get(animal=animal, action="custody.escaped").section == "s.9"


def test_rescue_recorded_under_s24_with_the_fir(keeper_client, animal):
    response = keeper_client.post(
        url_of("animal_escape", animal),
        {"kind": "rescued", "at": "15-03-2026 08:00", "police_reference": "FIR 45/2026"},
    )
    assert response.status_code == 302
    animal.refresh_from_db()
    assert animal.state == AnimalState.RESCUED
    event = CustodyEvent.objects.get(animal=animal)
    assert (event.kind, event.police_reference) == ("rescued", "FIR 45/2026")
    assert Event.objects.get(animal=animal, action="custody.rescued").section == "s.24"


def test_escape_refused_without_saying_what_happened(keeper_client, animal):
    before = snapshot()
    response = keeper_client.post(url_of("animal_escape", animal), {"at": "15-03-2026 08:00"})
    assert response.status_code == 200
    assert field_errors(response, "kind")
    assert snapshot() == before


def test_escape_of_an_animal_already_out_is_a_form_error(keeper_client, animal, pound_keeper):
    services.record_escape(animal=animal, by=pound_keeper, at=ist(14))
    before = snapshot()
    response = keeper_client.post(
        url_of("animal_escape", animal), {"kind": "rescued", "at": "15-03-2026 08:00"}
    )
    assert response.status_code == 200
    assert "cannot become" in " ".join(response.context["form"].non_field_errors())
    assert snapshot() == before


# Recapture ------------------------------------------------------------------------------------


def test_return_recorded_for_an_escaped_animal(keeper_client, animal, pound_keeper):
    services.record_escape(animal=animal, by=pound_keeper, at=ist(14))
    response = keeper_client.post(
        url_of("animal_return", animal), {"at": "15-03-2026 09:30", "notes": "Found at the canal"}
    )
    assert response.status_code == 302
    assert response["Location"] == entry_url(animal)
    animal.refresh_from_db()
    assert animal.state == AnimalState.IMPOUNDED
    assert CustodyEvent.objects.filter(animal=animal).latest("at").kind == "returned"
    assert Event.objects.get(animal=animal, action="custody.returned").section == "s.9"


def test_return_of_an_animal_in_the_pound_is_a_form_error(keeper_client, animal):
    page = keeper_client.get(url_of("animal_return", animal))
    assert not has_form(page)
    assert "Only an animal that escaped" in page.content.decode()
    before = snapshot()
    response = keeper_client.post(url_of("animal_return", animal), {"at": "15-03-2026 09:30"})
    assert response.status_code == 200
    errors = response.context["form"].non_field_errors()
    assert "In the pound: it cannot become In the pound" in " ".join(errors)
    assert "cannot become" in response.content.decode()
    assert snapshot() == before


def test_return_before_the_escape_is_refused(keeper_client, animal, pound_keeper):
    services.record_escape(animal=animal, by=pound_keeper, at=ist(14))
    before = snapshot()
    response = keeper_client.post(url_of("animal_return", animal), {"at": "13-03-2026 09:30"})
    assert response.status_code == 200
    assert field_errors(response, "at")
    assert snapshot() == before


# Birth ----------------------------------------------------------------------------------------


def test_birth_enters_the_calf_with_its_dam(keeper_client, animal):
    page = keeper_client.get(url_of("animal_birth", animal))
    assert "no fine and no feeding charge" in page.content.decode()
    response = keeper_client.post(
        url_of("animal_birth", animal),
        {
            "at": "2026-03-15T04:20",
            "sex": "female",
            "colour": "Brown",
            "marks": "White star",
            "idempotency_key": str(uuid.uuid4()),
        },
    )
    assert response.status_code == 302
    assert response["Location"] == entry_url(animal)
    calf = Animal.objects.get(dam=animal)
    assert (calf.number, calf.born_at, calf.sex, calf.colour, calf.species) == (
        2,
        ist(15, 4, 20),
        Sex.FEMALE,
        "Brown",
        animal.species,
    )
    assert CustodyEvent.objects.get(animal=calf).kind == "born"
    assert Event.objects.get(animal=calf, action="custody.born").section == "s.9"
    follow = keeper_client.get(reverse("home"))
    assert f"Calf {calf.reference}, born to {animal.reference}" in follow.content.decode()


def test_birth_to_a_male_animal_is_refused(keeper_client, pound, pound_keeper):
    male = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(12), animals=[goat()])
    animal = male.animals.get()
    assert (
        "Only a female animal" in keeper_client.get(url_of("animal_birth", animal)).content.decode()
    )
    before = snapshot()
    response = keeper_client.post(
        url_of("animal_birth", animal),
        {
            "at": "15-03-2026 04:20",
            "sex": "male",
            "colour": "Black",
            "idempotency_key": uuid.uuid4(),
        },
    )
    assert response.status_code == 200
    assert "Only a female animal" in " ".join(response.context["form"].non_field_errors())
    assert snapshot() == before


def test_birth_refused_without_the_calfs_colour(keeper_client, animal):
    before = snapshot()
    response = keeper_client.post(
        url_of("animal_birth", animal), {"at": "15-03-2026 04:20", "sex": "male"}
    )
    assert field_errors(response, "colour")
    assert snapshot() == before


# Feeding log (s.9) and the missing days (s.27) ------------------------------------------------


FEEDING = {
    "date": "15-03-2026",
    "animals_fed": "1",
    "fodder": "Dry straw 10 kg",
    "watered": "on",
    "cost": "120.50",
    "remarks": "",
}


def feeding():
    """The feeding form as drawn: each drawing has its own key."""
    return FEEDING | {"idempotency_key": str(uuid.uuid4())}


def test_feeding_form_is_prefilled_with_the_animals_in_the_pound(keeper_client, pound, animal):
    response = keeper_client.get(url_of("feeding_log", animal))
    form = response.context["form"]
    assert form.initial == {"date": TODAY, "animals_fed": 1}
    assert 'value="15-03-2026"' in response.content.decode()


def test_feeding_recorded_for_today(keeper_client, pound, animal, pound_keeper):
    response = keeper_client.post(url_of("feeding_log", animal), feeding())
    assert response.status_code == 302
    # Back on the day recorded, at its heading, not at the top of the page.
    assert response["Location"] == (
        reverse("impounding:feeding_log", kwargs={"pk": pound.pk})
        + f"?date={TODAY.isoformat()}#day-heading"
    )
    log = FeedingLog.objects.get(pound=pound)
    assert (log.date, log.animals_fed, log.watered, str(log.cost), log.recorded_by) == (
        TODAY,
        1,
        True,
        "120.50",
        pound_keeper,
    )
    assert Event.objects.get(pound=pound, action="custody.fed").section == "s.9"
    page = keeper_client.get(response["Location"])
    assert "Feeding and watering for 15-03-2026 is recorded." in page.content.decode()
    assert not has_form(page)  # today's record is shown instead


def test_feeding_for_a_day_already_recorded_is_refused(keeper_client, pound, animal):
    keeper_client.post(url_of("feeding_log", animal), feeding())
    response = keeper_client.post(url_of("feeding_log", animal), feeding() | {"fodder": "Again"})
    assert response.status_code == 200
    assert "already recorded" in " ".join(field_errors(response, "date"))
    assert FeedingLog.objects.get().fodder == "Dry straw 10 kg"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"date": "16-03-2026"}, "date"),
        ({"fodder": ""}, "fodder"),
        ({"animals_fed": "-1"}, "animals_fed"),
        ({"cost": "12.345"}, "cost"),
        ({"watered": ""}, "remarks"),  # not watered: the reason must be given
    ],
)
def test_feeding_refused_with_bad_input(keeper_client, animal, change, field):
    before = snapshot()
    data = {k: v for k, v in (feeding() | change).items() if v != "" or k == "fodder"}
    response = keeper_client.post(url_of("feeding_log", animal), data)
    assert response.status_code == 200
    assert field_errors(response, field)
    assert f'id="error_1_id_{field}"' in response.content.decode()
    assert snapshot() == before


def test_feeding_not_watered_recorded_with_the_reason(keeper_client, pound, animal):
    data = feeding() | {"remarks": "Hand pump broken; water carted at 18:00"}
    del data["watered"]
    response = keeper_client.post(url_of("feeding_log", animal), data)
    assert response.status_code == 302
    assert FeedingLog.objects.get().watered is False


def test_feeding_log_flags_the_days_without_a_record(keeper_client, pound, animal, pound_keeper):
    # Arrived on the 12th; fed on the 13th only.
    services.log_feeding(
        pound=pound, by=pound_keeper, date=date(2026, 3, 13), animals_fed=1, fodder="Straw"
    )
    response = keeper_client.get(url_of("feeding_log", animal))
    assert [row.date for row in response.context["missing"]] == [
        date(2026, 3, 14),
        date(2026, 3, 12),
    ]
    body = response.content.decode()
    assert "2 days without a feeding record" in body
    assert body.count("Missing (s.27)") == 2
    assert body.count("Not yet recorded") == 1  # today
    assert body.count("No animals") == 30 - 4
    assert 'href="?date=2026-03-14#day-heading"' in body  # lands on the form
    assert '<a class="alert-link" href="#missing-days">2 days without a feeding record</a>' in body


def test_feeding_log_puts_todays_form_first_and_the_missing_days_below_it(
    keeper_client, pound, animal
):
    """On a phone the form comes first: above it one line counts the days with no record and
    links to their list, which comes after the form."""
    body = keeper_client.get(url_of("feeding_log", animal)).content.decode()
    count = body.index('id="missing-count"')
    form = body.index('name="fodder"')
    listed = body.index('id="missing-days"')
    assert count < form < listed
    assert body.count("Missing (s.27)") == 3  # the list holds every day, below the form
    assert body[:form].count("Record it") == 0
    assert body.count('href="?date=2026-03-13#day-heading"') == 2  # the list's and the table's


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "3 days without a feeding record"),
        ("hi", "चारा-पानी के अभिलेख के बिना 3 दिन"),
        ("mr", "चाऱ्याची नोंद नसलेले 3 दिवस"),
        ("ta", "தீவனப் பதிவு இல்லாத 3 நாட்கள்"),
    ],
)
def test_the_missing_days_line_is_counted_in_the_language(keeper_client, animal, language, line):
    keeper_client.cookies["django_language"] = language
    response = keeper_client.get(url_of("feeding_log", animal), HTTP_ACCEPT_LANGUAGE=language)
    body = response.content.decode()
    top = body[body.index('id="missing-count"') : body.index('name="fodder"')]
    assert line in top


def test_feeding_log_offers_a_later_round_for_animals_that_came_after(
    keeper_client, pound, animal, pound_keeper
):
    services.log_feeding(pound=pound, by=pound_keeper, date=TODAY, animals_fed=1, fodder="Dry")
    make_entry(pound=pound, by=pound_keeper, arrived_at=ist(15, 11), animals=[cow(), cow()])

    page = keeper_client.get(url_of("feeding_log", animal))

    body = page.content.decode()
    assert 'id="later-round"' in body and "2 animals in the pound that day are not" in body
    assert page.context["form"].initial["animals_fed"] == 2
    response = keeper_client.post(
        url_of("feeding_log", animal), feeding() | {"animals_fed": "2", "fodder": "Green"}
    )
    assert response.status_code == 302
    assert list(FeedingLog.objects.values_list("round", "animals_fed")) == [(1, 1), (2, 2)]
    page = keeper_client.get(response["Location"])
    assert "Round 2" in page.content.decode() and not has_form(page)


def test_feeding_log_for_a_chosen_past_day(keeper_client, pound, animal):
    response = keeper_client.get(url_of("feeding_log", animal), {"date": "2026-03-14"})
    assert response.context["form"].initial == {"date": date(2026, 3, 14), "animals_fed": 1}
    assert "Record for 14-03-2026" in response.content.decode()
    response = keeper_client.post(url_of("feeding_log", animal), feeding() | {"date": "14-03-2026"})
    assert response.status_code == 302
    assert FeedingLog.objects.get().date == date(2026, 3, 14)


def test_feeding_log_for_a_day_before_the_listed_month(keeper_client, pound, animal):
    response = keeper_client.get(url_of("feeding_log", animal), {"date": "2026-01-05"})
    assert response.context["form"].initial == {"date": date(2026, 1, 5), "animals_fed": 0}


@pytest.mark.parametrize("asked", ["2026-04-01", "nonsense"])
def test_feeding_log_for_a_future_or_bad_day_shows_today(keeper_client, animal, asked):
    response = keeper_client.get(url_of("feeding_log", animal), {"date": asked})
    assert response.context["form"].initial["date"] == TODAY


def test_feeding_log_page_query_count_does_not_grow_with_animals(keeper_client, pound, animal):
    def count():
        with CaptureQueriesContext(connection) as queries:
            assert keeper_client.get(url_of("feeding_log", animal)).status_code == 200
        return len(queries)

    first = count()
    keeper = animal.impoundment.recorded_by
    for day in (13, 14):
        make_entry(pound=pound, by=keeper, arrived_at=ist(day), animals=[cow(), goat()])
        services.log_feeding(
            pound=pound, by=keeper, date=date(2026, 3, day), animals_fed=3, fodder="Straw"
        )
    assert count() == first
