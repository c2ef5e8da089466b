"""The two clocks of s.14, in Asia/Kolkata calendar days (GCA s.9, docs/domain.md decision 1).

Impounded on day D: claims D+1..D+7, the report is due on D+8. Notice posted on day N: claims
N+1..N+7, the earliest sale is N+8.
"""

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from accounts.models import Counter, IssuedDocument, StaffAssignment
from accounts.roles import Role
from auctions import services
from auctions.clocks import appointed_officer, notice_dates, reports_due, reports_due_counts
from auctions.models import Auction, Notice, Report
from impounding import services as impounding
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from tests.accounts.factories import UserFactory, staff
from tests.auctions.factories import conditions, proclaim, schedule, unclaimed_entry
from tests.impounding.factories import cow, goat, make_entry, pay

IST = ZoneInfo("Asia/Kolkata")


def ist(y, m, d, hh=12, mm=0):
    return datetime(y, m, d, hh, mm, tzinfo=IST)


def fmt(day):
    return day.strftime("%d-%m-%Y")


def written():
    """What a refused step must leave as it found."""
    return (
        Report.objects.count(),
        Notice.objects.count(),
        IssuedDocument.objects.count(),
        Event.objects.count(),
        list(Counter.objects.order_by("key").values_list("key", "value")),
    )


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


# --- The first clock: the report -------------------------------------------------------------


def test_report_refused_on_the_seventh_day_with_the_dates_in_the_message(
    pound, pound_keeper, tariffs
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=7)
    arrival = entry.arrival_date()
    before = written()

    with pytest.raises(ValidationError) as refused:
        services.send_report(entry=entry, by=pound_keeper)

    message = " ".join(refused.value.messages)
    assert f"until the end of {fmt(arrival + timedelta(days=7))}" in message
    assert f"due from {fmt(arrival + timedelta(days=8))}" in message
    assert written() == before
    assert reports_due([pound.pk]) == []


def test_report_due_from_the_eighth_day_and_sent_to_the_nearest_police_station(
    pound, pound_keeper, police_station, tariffs
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=8)
    (row,) = reports_due([pound.pk])
    assert row["entry"] == entry
    assert row["due_on"] == entry.arrival_date() + timedelta(days=8) == timezone.localdate()
    assert row["days_overdue"] == 0

    report = services.send_report(entry=entry, by=pound_keeper)

    assert report.police_station == police_station
    assert report.officer is None
    assert report.due_on == timezone.localdate()
    assert report.days_late == 0
    assert list(report.animals.all()) == list(entry.animals.all())
    doc = IssuedDocument.objects.get(pk=report.document_id)
    assert (doc.kind, doc.number, doc.subject_type, doc.subject_id) == (
        IssuedDocument.Kind.S14_REPORT,
        report.number,
        "auctions.report",
        report.pk,
    )
    event = Event.objects.get(action="s14.reported")
    assert (event.section, event.impoundment_id, event.by) == ("s.14", entry.pk, pound_keeper)
    assert str(police_station) in event.summary
    assert event.data["report"] == report.number
    assert event.data["days_late"] == 0
    assert reports_due([pound.pk]) == []


def test_report_refused_a_second_time(pound, pound_keeper, tariffs):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=9)
    services.send_report(entry=entry, by=pound_keeper)
    before = written()

    with pytest.raises(ValidationError, match="No animal of this entry is left"):
        services.send_report(entry=entry, by=pound_keeper)

    assert written() == before


def test_report_sent_only_by_the_pound_keeper(pound, pound_keeper, police_officer, tariffs):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=9)
    before = written()

    with pytest.raises(PermissionDenied):
        services.send_report(entry=entry, by=police_officer)

    assert written() == before


def test_report_counts_the_days_overdue(pound, pound_keeper, tariffs):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=11)

    (row,) = reports_due([pound.pk])
    report = services.send_report(entry=entry, by=pound_keeper)

    assert row["days_overdue"] == 3
    assert report.days_late == 3
    assert Event.objects.get(action="s14.reported").data["days_late"] == 3


def test_report_list_counts_calendar_days_in_india_not_hours(
    time_machine, pound, pound_keeper, tariffs
):
    # Arrived at 23:50 IST on 1 March: the claim week is 2-8 March, whatever the hour.
    time_machine.move_to(ist(2027, 3, 1, 23, 55))
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(2027, 3, 1, 23, 50))

    time_machine.move_to(ist(2027, 3, 8, 23, 55))
    assert reports_due([pound.pk]) == []
    with pytest.raises(ValidationError, match="due from 09-03-2027"):
        services.send_report(entry=entry, by=pound_keeper)

    # Five minutes past midnight on the 9th: less than 7 x 24 hours plus a day, but due.
    time_machine.move_to(ist(2027, 3, 9, 0, 5))
    (row,) = reports_due([pound.pk])
    report = services.send_report(entry=entry, by=pound_keeper)
    assert row["due_on"] == report.due_on == date(2027, 3, 9)


def test_the_offices_count_of_reports_due_is_the_lists_count(
    time_machine, pound, pound_keeper, tariffs
):
    """The office's overdue board counts in the database what the report list gives entry by
    entry: the day of arrival in India, the claim period of the entry's pack, an entry of two
    animals once, and nothing already reported."""
    time_machine.move_to(ist(2027, 3, 9, 0, 5))
    make_entry(pound=pound, by=pound_keeper, arrived_at=ist(2027, 3, 1, 23, 50))  # due today
    make_entry(pound=pound, by=pound_keeper, arrived_at=ist(2027, 3, 2, 0, 10))  # due tomorrow
    unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=11, animals=[cow(), goat()])
    reported = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    services.send_report(entry=reported, by=pound_keeper)
    today = date(2027, 3, 9)

    rows = reports_due([pound.pk], today)

    assert len(rows) == 2
    assert reports_due_counts([pound.pk], today) == {pound.pk: 2}
    assert reports_due_counts([pound.pk], date(2027, 3, 10)) == {pound.pk: 3}
    assert reports_due_counts([pound.pk], date(2027, 3, 1)) == {}


def test_animal_claimed_in_the_first_week_never_appears(pound, pound_keeper, tariffs):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12, animals=[cow(), goat()])
    claimed_entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    first_cow, the_goat = entry.animals.order_by("number")
    three_days_in = entry.arrived_at + timedelta(days=3)
    pay(entry, pound_keeper, [first_cow], at=three_days_in)
    pay(claimed_entry, pound_keeper, at=three_days_in)

    rows = reports_due([pound.pk])
    report = services.send_report(entry=entry, by=pound_keeper)

    assert [(r["entry"], r["animals"]) for r in rows] == [(entry, [the_goat])]
    assert list(report.animals.all()) == [the_goat]
    with pytest.raises(ValidationError, match="No animal of this entry is left"):
        services.send_report(entry=claimed_entry, by=pound_keeper)


def test_calf_born_after_its_dam_was_reported_goes_under_her_notice(
    pound, pound_keeper, police_officer, district, tariffs
):
    conditions(district)
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    services.send_report(entry=entry, by=pound_keeper, at=timezone.now() - timedelta(days=11))
    dam = entry.animals.get()
    calf = impounding.record_birth(
        dam=dam, by=pound_keeper, at=timezone.now() - timedelta(days=3), sex="male", colour="Red"
    )

    assert reports_due([pound.pk]) == []
    with pytest.raises(ValidationError, match="No animal of this entry is left"):
        services.send_report(entry=entry, by=pound_keeper)
    report = Report.objects.get()
    notice = services.post_notice(
        report=report,
        by=police_officer,
        posted_on=timezone.localdate() - timedelta(days=9),
        posted_at="PS office",
        seizure_place="Canal road",
    )
    proclaim(notice, police_officer)
    auction = schedule(pound, police_officer, [[dam, calf]])
    assert set(auction.lots.get().animals.all()) == {dam, calf}


def test_report_goes_to_the_officer_the_magistrate_appointed_for_the_pound(
    pound, other_pound, pound_keeper, tariffs
):
    appointed = staff(Role.POLICE_OFFICER, "appointed", pound=pound)
    appointed.first_name, appointed.last_name = "Rajesh", "Yadav"
    appointed.save()
    # Neither an officer appointed for another pound nor one whose appointment ended counts.
    staff(Role.POLICE_OFFICER, "elsewhere", pound=other_pound)
    StaffAssignment.objects.create(
        user=UserFactory(username="former"),
        role=Role.POLICE_OFFICER,
        pound=pound,
        valid_from=date(2020, 1, 1),
        valid_to=date(2024, 1, 1),
    )
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=9)

    report = services.send_report(entry=entry, by=pound_keeper)

    assert appointed_officer(pound) == appointed
    assert report.officer == appointed
    assert report.police_station == pound.nearest_police_station
    assert "Rajesh Yadav" in Event.objects.get(action="s14.reported").summary


# --- The second clock: the notice ------------------------------------------------------------


def test_notice_posting_before_the_report_refused(pound, pound_keeper, police_officer, tariffs):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    sent = timezone.now() - timedelta(days=2)
    report = services.send_report(entry=entry, by=pound_keeper, at=sent)
    before = written()

    with pytest.raises(ValidationError) as refused:
        services.post_notice(
            report=report,
            by=police_officer,
            posted_on=timezone.localdate() - timedelta(days=3),
            posted_at="PS office",
            seizure_place="Canal road",
        )

    assert fmt(timezone.localtime(sent).date()) in refused.value.message_dict["posted_on"][0]
    assert written() == before


def test_notice_dated_in_the_future_refused(pound, pound_keeper, police_officer, tariffs):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    report = services.send_report(entry=entry, by=pound_keeper)
    before = written()

    with pytest.raises(ValidationError) as refused:
        services.post_notice(
            report=report,
            by=police_officer,
            posted_on=timezone.localdate() + timedelta(days=1),
            posted_at="PS office",
            seizure_place="Canal road",
        )

    assert "posted_on" in refused.value.message_dict
    assert written() == before


def test_notice_posted_only_by_the_officer_and_only_once(
    pound, pound_keeper, police_officer, tariffs
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    report = services.send_report(entry=entry, by=pound_keeper)
    today = timezone.localdate()
    with pytest.raises(PermissionDenied):
        services.post_notice(
            report=report,
            by=pound_keeper,
            posted_on=today,
            posted_at="PS",
            seizure_place="Canal road",
        )
    services.post_notice(
        report=report,
        by=police_officer,
        posted_on=today,
        posted_at="PS",
        seizure_place="Canal road",
    )
    before = written()

    with pytest.raises(ValidationError, match="already recorded"):
        services.post_notice(
            report=report,
            by=police_officer,
            posted_on=today,
            posted_at="PS",
            seizure_place="Canal road",
        )

    assert written() == before


def test_notice_posted_late_is_lawful_and_the_sale_clock_runs_from_the_posting(
    pound, pound_keeper, police_officer, district, tariffs
):
    conditions(district)
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    report = services.send_report(
        entry=entry, by=pound_keeper, at=timezone.now() - timedelta(days=11)
    )
    posted_on = timezone.localdate() - timedelta(days=5)

    notice = services.post_notice(
        report=report,
        by=police_officer,
        posted_on=posted_on,
        posted_at="PS office",
        seizure_place="Canal road",
    )
    proclaim(notice, police_officer)

    event = Event.objects.get(action="s14.notice_posted")
    assert (event.section, event.impoundment_id) == ("s.14", entry.pk)
    assert event.data["days_after_report"] == 6
    assert event.data["posted_on"] == posted_on.isoformat()
    assert notice.last_day_to_claim == posted_on + timedelta(days=7)
    assert notice.earliest_sale == posted_on + timedelta(days=8)
    doc = IssuedDocument.objects.get(pk=notice.document_id)
    assert (doc.kind, doc.subject_id) == (IssuedDocument.Kind.S14_NOTICE, notice.pk)
    # Not from the report: the eighth day after the posting.
    with pytest.raises(ValidationError, match=fmt(notice.earliest_sale)):
        schedule(pound, police_officer, [entry.animals.all()])
    auction = schedule(
        pound,
        police_officer,
        [entry.animals.all()],
        when=timezone.now() + timedelta(days=3),
    )
    assert auction.status == Auction.Status.SCHEDULED


@pytest.mark.parametrize(
    ("posted_on", "last_day", "earliest"),
    [
        (date(2027, 1, 25), date(2027, 2, 1), date(2027, 2, 2)),  # a month end
        (date(2027, 2, 21), date(2027, 2, 28), date(2027, 3, 1)),  # February, common year
        (date(2028, 2, 21), date(2028, 2, 28), date(2028, 2, 29)),  # leap day is a sale day
        (date(2028, 2, 22), date(2028, 2, 29), date(2028, 3, 1)),  # leap day is a claim day
        (date(2027, 12, 26), date(2028, 1, 2), date(2028, 1, 3)),  # the year turns
        (date(2027, 4, 23), date(2027, 4, 30), date(2027, 5, 1)),  # a 30-day month
    ],
)
def test_notice_dates_are_n_plus_7_to_claim_and_n_plus_8_to_sell(
    time_machine,
    pound,
    pound_keeper,
    police_officer,
    district,
    tariffs,
    posted_on,
    last_day,
    earliest,
):
    conditions(district)
    time_machine.move_to(ist(posted_on.year, posted_on.month, posted_on.day))
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=timezone.now() - timedelta(days=12))
    report = services.send_report(entry=entry, by=pound_keeper)

    notice = services.post_notice(
        report=report,
        by=police_officer,
        posted_on=posted_on,
        posted_at="PS office",
        seizure_place="Canal road",
    )
    proclaim(notice, police_officer)

    assert notice_dates(posted_on, entry=entry) == (last_day, earliest)
    assert (notice.last_day_to_claim, notice.earliest_sale) == (last_day, earliest)
    data = Event.objects.get(action="s14.notice_posted").data
    assert (data["last_day"], data["earliest_sale"]) == (last_day.isoformat(), earliest.isoformat())
    # On the last day to claim a sale is still refused; on the next day it may be held.
    time_machine.move_to(ist(last_day.year, last_day.month, last_day.day, 9))
    with pytest.raises(ValidationError, match=fmt(earliest)):
        schedule(pound, police_officer, [entry.animals.all()], when=timezone.now())
    at_ten = ist(earliest.year, earliest.month, earliest.day, 10)
    assert schedule(pound, police_officer, [entry.animals.all()], when=at_ten).pk
