"""Lost-cattle reports matched to the animals that arrive after them (ADR 0079, addendum): the
worker scores the open reports against each animal entered or corrected, by tag and by
description, once a pair, on indexed reads whose number does not grow with the open reports."""

from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from impounding.models import LostMatch, LostNotice, LostReport
from impounding.services import amend_entry
from impounding.tasks import match_lost_reports
from tests.impounding.factories import cow, goat, make_entry
from tests.impounding.test_lost_reports import TAG, confirm, ist, sms_templates  # noqa: F401

TASK = "impounding.tasks.match_lost_reports"


@pytest.fixture(autouse=True)
def now(time_machine):
    time_machine.move_to(ist(15, 12), tick=False)


def open_report(district, n=0, **kw):
    now = timezone.now()
    fields = {
        "reference": f"LT{n:06d}",
        "district": district,
        "state": LostReport.State.OPEN,
        "phone": "9876543210",
        "phone_verified": True,
        "language": "en",
        "species": "cattle",
        "colour": "White",
        "place": "Nigohan",
        "lost_on": date(2026, 3, 12),
        "submitted_at": now - timedelta(days=1),
        "expires_at": now + timedelta(days=29),
    }
    return LostReport.objects.create(**(fields | kw))


def arrive(pound, keeper, capture, **kw):
    """An entry made as any intake makes it (the screen, the field app, the API): the task is
    queued when its transaction commits, and nothing is matched before the worker runs it."""
    with capture(execute=True):
        entry = make_entry(
            pound=pound,
            by=keeper,
            arrived_at=ist(15, 10),
            seized_at=ist(15, 8),
            seizure_place="Nigohan canal",
            **kw,
        )
    return entry


def run_queued():
    """What the worker does: each queued task of this kind, run."""
    found = 0
    for row in DBTaskResult.objects.filter(task_path=TASK).order_by("enqueued_at"):
        found += match_lost_reports.call(*row.args_kwargs["args"])
    return found


@pytest.mark.usefixtures("sms_templates")
def test_a_report_by_tag_filed_before_the_cow_finds_her_when_she_arrives(
    client,
    district,
    pound,
    pound_keeper,
    tariffs,
    django_capture_on_commit_callbacks,
):
    report = open_report(district, ear_tag=TAG, colour="Black")
    entry = arrive(
        pound, pound_keeper, django_capture_on_commit_callbacks, animals=[cow(ear_tag=TAG), goat()]
    )
    assert not LostMatch.objects.exists()  # not on the request's path
    assert DBTaskResult.objects.filter(task_path=TASK).count() == 1
    run_queued()
    match = LostMatch.objects.get()
    assert match.report == report and match.by_tag and match.score == 100
    assert match.animal.impoundment_id == entry.pk and match.animal.ear_tag == TAG
    # The keeper sees it on the entry and decides as for a report filed later; the owner is told.
    confirm(client, pound_keeper, match)
    match.refresh_from_db()
    assert match.state == LostMatch.State.CONFIRMED
    assert LostNotice.objects.filter(report=report, kind=LostNotice.Kind.MATCH).count() == 1
    assert LostReport.objects.get(pk=report.pk).state == LostReport.State.FOUND


def test_a_report_by_description_finds_her_and_the_keeper_sees_the_candidate(
    client, district, pound, pound_keeper, tariffs, django_capture_on_commit_callbacks
):
    report = open_report(district, colour="white cow")
    entry = arrive(
        pound,
        pound_keeper,
        django_capture_on_commit_callbacks,
        animals=[cow(colour="White with brown patches"), goat()],
    )
    run_queued()
    match = LostMatch.objects.get()  # the goat is not among them
    assert match.report == report and not match.by_tag and match.animal.species == "cattle"
    assert match.score == 100  # species, colour, place, seized within three days
    client.force_login(pound_keeper)
    page = client.get(reverse("impounding:entry", args=[entry.pk])).content.decode()
    assert report.reference in page
    listed = client.get(reverse("impounding:lost_matches")).content.decode()
    assert report.reference in listed


def test_an_expired_a_lapsed_or_a_found_report_finds_nothing(
    district, pound, pound_keeper, tariffs, django_capture_on_commit_callbacks
):
    now = timezone.now()
    open_report(district, 1, ear_tag=TAG, expires_at=now - timedelta(minutes=1))  # not lapsed yet
    open_report(district, 2, ear_tag=TAG, state=LostReport.State.LAPSED)
    open_report(district, 3, ear_tag=TAG, state=LostReport.State.FOUND)
    open_report(district, 4, state=LostReport.State.DRAFT, submitted_at=None)
    arrive(pound, pound_keeper, django_capture_on_commit_callbacks, animals=[cow(ear_tag=TAG)])
    assert run_queued() == 0
    assert not LostMatch.objects.exists()


def test_the_task_run_twice_records_each_candidate_once(
    district, pound, pound_keeper, tariffs, django_capture_on_commit_callbacks
):
    open_report(district, 1, ear_tag=TAG)
    open_report(district, 2, colour="white")
    entry = arrive(
        pound, pound_keeper, django_capture_on_commit_callbacks, animals=[cow(ear_tag=TAG)]
    )
    run_queued()
    run_queued()
    ids = [a.pk for a in entry.animals.all()]
    match_lost_reports.call(ids)
    assert LostMatch.objects.count() == 2
    assert sorted(LostMatch.objects.values_list("report__reference", flat=True)) == [
        "LT000001",
        "LT000002",
    ]


def test_another_districts_report_matches_by_tag_only(
    other_district, pound, pound_keeper, tariffs, django_capture_on_commit_callbacks
):
    by_tag = open_report(other_district, 1, ear_tag=TAG, colour="Black")
    open_report(other_district, 2, colour="white")  # described, but lost elsewhere
    arrive(pound, pound_keeper, django_capture_on_commit_callbacks, animals=[cow(ear_tag=TAG)])
    run_queued()
    assert list(LostMatch.objects.values_list("report", flat=True)) == [by_tag.pk]


def test_a_report_lost_after_the_seizure_is_no_candidate(
    district, pound, pound_keeper, tariffs, django_capture_on_commit_callbacks
):
    open_report(district, lost_on=date(2026, 3, 15), colour="white")
    with django_capture_on_commit_callbacks(execute=True):
        make_entry(pound=pound, by=pound_keeper, arrived_at=ist(14, 10), seized_at=ist(14, 8))
    run_queued()
    assert not LostMatch.objects.exists()


def test_a_corrected_tag_is_matched_on_the_worker(
    district, pound, pound_keeper, tariffs, django_capture_on_commit_callbacks
):
    report = open_report(district, ear_tag=TAG, colour="Black", place="Elsewhere")
    entry = arrive(pound, pound_keeper, django_capture_on_commit_callbacks, animals=[cow()])
    assert run_queued() == 0
    animal = entry.animals.get()
    DBTaskResult.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        amend_entry(
            entry=entry,
            by=pound_keeper,
            reason="Tag misread",
            changes={"ear_tag": TAG},
            animal=animal,
        )
    assert not LostMatch.objects.exists()
    run_queued()
    assert LostMatch.objects.get().report == report


def test_a_correction_the_reports_are_not_scored_on_queues_nothing(
    district, pound, pound_keeper, tariffs, django_capture_on_commit_callbacks
):
    entry = arrive(pound, pound_keeper, django_capture_on_commit_callbacks, animals=[cow()])
    DBTaskResult.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        amend_entry(entry=entry, by=pound_keeper, reason="Typo", changes={"seizer_name": "Ram"})
    assert not DBTaskResult.objects.filter(task_path=TASK).exists()


def test_the_worker_reads_a_fixed_number_of_queries_however_many_reports_are_open(
    district, pound, pound_keeper, tariffs, django_capture_on_commit_callbacks
):
    def queries_with(n_reports):
        LostMatch.objects.all().delete()
        LostReport.objects.all().delete()
        for n in range(n_reports):
            open_report(district, n, ear_tag=TAG if n % 2 else "", colour="white")
        with CaptureQueriesContext(connection) as queries:
            match_lost_reports.call(ids)
        return len(queries), LostMatch.objects.count()

    entry = arrive(
        pound, pound_keeper, django_capture_on_commit_callbacks, animals=[cow(ear_tag=TAG), cow()]
    )
    ids = [a.pk for a in entry.animals.all()]
    few, found_few = queries_with(2)
    many, found_many = queries_with(12)
    assert found_many > found_few
    assert many == few
