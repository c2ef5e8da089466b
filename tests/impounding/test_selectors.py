from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from impounding import selectors, services
from impounding.models import Sex
from tests.impounding.factories import cow, goat, make_entry

IST = ZoneInfo("Asia/Kolkata")
TODAY = date(2026, 3, 15)


def ist(day, hour=10, minute=0):
    return datetime(2026, 3, day, hour, minute, tzinfo=IST)


@pytest.fixture(autouse=True)
def now(time_machine):
    time_machine.move_to(ist(15, 12), tick=False)


def feed(pound, by, day):
    return services.log_feeding(pound=pound, by=by, date=day, animals_fed=1, fodder="Straw 10 kg")


def test_animals_in_custody_counted_from_the_day_of_arrival(pound, pound_keeper):
    make_entry(pound=pound, by=pound_keeper, arrived_at=ist(12, 23, 30), animals=[cow(), goat()])
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 11)) == 0
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 12)) == 2
    assert selectors.animals_in_custody_on(pound, TODAY) == 2


def test_animals_in_custody_uses_ist_days_not_utc(pound, pound_keeper):
    # 00:30 IST on the 13th is still the 12th in UTC.
    make_entry(pound=pound, by=pound_keeper, arrived_at=ist(13, 0, 30))
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 12)) == 0
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 13)) == 1


def test_animal_out_of_the_pound_is_not_counted_while_out(pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(10))
    animal = entry.animals.get()
    services.record_escape(animal=animal, by=pound_keeper, at=ist(11, 9))
    services.record_return(animal=animal, by=pound_keeper, at=ist(13, 18))
    counts = selectors.custody_counts(pound, date(2026, 3, 10), TODAY)
    assert [counts[date(2026, 3, d)] for d in range(10, 16)] == [1, 1, 0, 1, 1, 1]


def test_rescued_animal_not_yet_back_is_not_counted(pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(12))
    services.record_escape(animal=entry.animals.get(), by=pound_keeper, at=ist(13), rescued=True)
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 13)) == 1
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 14)) == 0


def test_dead_animal_is_counted_until_the_day_of_death(pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(12))
    services.record_death(animal=entry.animals.get(), by=pound_keeper, at=ist(13, 6), cause="Old")
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 13)) == 1
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 14)) == 0


def test_calf_is_counted_from_its_birth(pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(12))
    dam = entry.animals.get()
    services.record_birth(dam=dam, by=pound_keeper, at=ist(14, 5), sex=Sex.MALE, colour="Brown")
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 13)) == 1
    assert selectors.animals_in_custody_on(pound, date(2026, 3, 14)) == 2


def test_other_pounds_animals_are_not_counted(pound, pound_keeper, other_pound, outsider):
    make_entry(pound=other_pound, by=outsider, arrived_at=ist(12))
    assert selectors.animals_in_custody_on(pound, TODAY) == 0


def test_missing_feeding_days_are_the_custody_days_without_a_record(pound, pound_keeper):
    make_entry(pound=pound, by=pound_keeper, arrived_at=ist(12, 16))
    feed(pound, pound_keeper, date(2026, 3, 13))
    missing = selectors.missing_feeding_days(pound, date(2026, 3, 9), TODAY)
    assert missing == [date(2026, 3, 12), date(2026, 3, 14), TODAY]


def test_no_missing_feeding_days_when_the_pound_was_empty(pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(5))
    services.record_death(animal=entry.animals.get(), by=pound_keeper, at=ist(5, 11), cause="Old")
    feed(pound, pound_keeper, date(2026, 3, 5))
    assert selectors.missing_feeding_days(pound, date(2026, 3, 1), TODAY) == []


def test_missing_feeding_days_runs_a_few_queries_whatever_the_numbers(pound, pound_keeper):
    for day in (3, 8, 12):
        entry = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(day), animals=[cow()] * 3)
        services.record_escape(animal=entry.animals.first(), by=pound_keeper, at=ist(day, 11))
    feed(pound, pound_keeper, date(2026, 3, 13))
    with CaptureQueriesContext(connection) as queries:
        missing = selectors.missing_feeding_days(pound, TODAY - timedelta(days=6), TODAY)
    assert len(queries) <= 4
    assert len(missing) == 6


def test_feeding_days_lists_each_day_newest_first_with_its_record(pound, pound_keeper):
    make_entry(pound=pound, by=pound_keeper, arrived_at=ist(13))
    log = feed(pound, pound_keeper, date(2026, 3, 14))
    rows = selectors.feeding_days(pound, date(2026, 3, 12), TODAY)
    assert [(r.date.day, r.in_custody, r.log, r.missing) for r in rows] == [
        (15, 1, None, True),
        (14, 1, log, False),
        (13, 1, None, True),
        (12, 0, None, False),
    ]
