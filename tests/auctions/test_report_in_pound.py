"""A s.14 report's count of its animals still in the pound (`Report.in_pound`, ADR 0094): the
database keeps it as animals are reported and as they leave or come back, whatever the writer,
and the officer's lists, the API's report states and the daily run read the open reports by it."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from auctions import selectors, services
from auctions.models import Report
from auctions.selectors import AWAITING, CLOSED, in_state, with_state
from impounding.models import Animal, AnimalState
from office.deadlines import notices_to_post
from office.district_days import Day
from tests.auctions.factories import unclaimed_entry
from tests.impounding.factories import cow, goat, pay
from tests.impounding.test_concurrency import race


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=10, animals=[cow(), goat()])


@pytest.fixture
def report(entry, pound_keeper):
    return services.send_report(entry=entry, by=pound_keeper, at=timezone.now() - timedelta(days=1))


def in_pound(report):
    report.refresh_from_db(fields=["in_pound"])
    return report.in_pound


def recounted():
    """{report id: its animals in the pound, counted from the links}: what the kept count must
    equal."""
    counted = Report.objects.annotate(
        n=Count("animals", filter=Q(animals__state=AnimalState.IMPOUNDED))
    )
    return {r.pk: r.n for r in counted}


def listed(officer):
    (awaiting,) = selectors.officer_sections(officer, only=AWAITING)
    return [r.pk for r in awaiting.rows], awaiting.count


def test_a_report_counts_its_animals_until_the_last_leaves_the_list(
    entry, report, pound_keeper, police_officer
):
    assert in_pound(report) == 2
    assert listed(police_officer) == ([report.pk], 1)
    first, second = entry.animals.order_by("number")

    pay(entry, pound_keeper, animals=[first])
    assert in_pound(report) == 1
    assert listed(police_officer) == ([report.pk], 1)

    pay(entry, pound_keeper, animals=[second])
    assert in_pound(report) == 0
    assert listed(police_officer) == ([], 0)
    today = timezone.localdate()
    assert list(in_state(with_state(Report.objects.all()), CLOSED, today)) == [report]
    assert not in_state(with_state(Report.objects.all()), AWAITING, today).exists()
    assert recounted() == {report.pk: 0}


def test_any_writer_moving_an_animal_out_and_back_keeps_the_count(report, entry):
    """An app server of the previous release, the admin or a bulk update: the triggers count
    every change of state into or out of the pound, and none that stays on one side."""
    moved = entry.animals.filter(species="goat")  # not `goat`, the factory imported above
    moved.update(state=AnimalState.ESCAPED)
    assert in_pound(report) == 1
    moved.update(state=AnimalState.RESCUED)
    assert in_pound(report) == 1  # out of the pound to out of the pound: no change
    moved.update(state=AnimalState.IMPOUNDED)
    assert in_pound(report) == 2
    moved.update(marks="Cut ear")  # not the state: no change
    assert recounted() == {report.pk: 2}


def test_links_added_and_removed_by_any_writer_are_counted(report, entry):
    animals = list(entry.animals.all())
    report.animals.remove(animals[0])
    assert in_pound(report) == 1
    Animal.objects.filter(pk=animals[0].pk).update(state=AnimalState.ESCAPED)
    report.animals.add(animals[0])  # an animal out of the pound adds nothing
    assert in_pound(report) == 1
    report.animals.clear()
    assert in_pound(report) == 0
    assert recounted() == {report.pk: 0}


def test_the_daily_run_asks_for_a_notice_only_while_an_animal_is_in_the_pound(
    report, entry, pound_keeper
):
    day = Day(today=timezone.localdate(), actor=pound_keeper)
    assert [due.condition for due in notices_to_post(day)] == [report.pk]
    pay(entry, pound_keeper)
    assert list(notices_to_post(day)) == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_animals_of_one_report_leaving_at_once_leave_it_closed(pound, pound_keeper, tariffs):
    """Two transactions each take one animal of a report out of the pound, the second before
    the first commits: each trigger takes one off under the report row's lock, so the second
    counts on the first's result, where a recount by the second's snapshot would leave 1."""
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=10, animals=[cow(), cow()])
    report = services.send_report(entry=entry, by=pound_keeper)
    first, second = entry.animals.order_by("number")
    updated = threading.Event()

    def leave_first_and_wait():
        with transaction.atomic():
            Animal.objects.filter(pk=first.pk).update(state=AnimalState.ESCAPED)
            updated.set()
            _wait_until_another_waits_for_a_lock()

    def leave_second():
        assert updated.wait(timeout=30)
        with transaction.atomic():
            Animal.objects.filter(pk=second.pk).update(state=AnimalState.ESCAPED)

    _results, errors = race(leave_first_and_wait, leave_second)

    assert errors == [None, None]
    assert in_pound(report) == 0
    assert recounted() == {report.pk: 0}


def _wait_until_another_waits_for_a_lock():
    with connection.cursor() as cursor:
        for _ in range(600):
            cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")  # live, not cached
            if cursor.fetchone()[0]:
                return
            cursor.execute("SELECT pg_sleep(0.05)")
    raise AssertionError("the second transaction never waited for the report's row")


def test_a_part_release_leaves_the_count_of_what_is_still_in_the_pound(
    entry, report, pound_keeper, police_officer
):
    pay(entry, pound_keeper, animals=[entry.animals.get(species="goat")])
    assert recounted() == {report.pk: 1}
    (row,) = selectors.officer_sections(police_officer, only=AWAITING)[0].rows
    assert (row.in_pound, row.animal_count) == (1, 2)  # "1 animal in the pound (of 2 reported)"
