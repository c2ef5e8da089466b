"""The daily run on each district's own clock (ADR 0080): a training district's moved day
decides its to-dos and its s.17 transfers, a real district's stay on real today, and moving
the training clock runs the training district's day at once, for it alone."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import ToDo
from accounts.roles import Role
from accounts.training import move_clock
from kernel.events import verify_chain
from ledger.checks import run_checks
from office.deadlines import run
from office.district_days import district_days
from office.models import SurplusDeposit
from tests.accounts.factories import DistrictFactory, staff
from tests.auctions.factories import conditions
from tests.auctions.test_training import t_officer, t_pound, trainer, training  # noqa: F401
from tests.impounding.factories import cow, make_entry
from tests.office.factories import received_surplus


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def t_keeper(t_pound):  # noqa: F811
    return staff(Role.POUND_KEEPER, "t_keeper", pound=t_pound)


def _open(entry):
    return ToDo.objects.filter(key=f"report_due:{entry.pk}", done_at__isnull=True).exists()


def test_moving_the_clock_runs_the_training_day_alone_and_the_daily_run_keeps_each_day(
    pound,
    pound_keeper,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,
    trainer,  # noqa: F811
):
    ago = timezone.now() - timedelta(days=1)
    fresh = make_entry(pound=pound, by=pound_keeper, animals=[cow()], arrived_at=ago)
    old = make_entry(
        pound=pound, by=pound_keeper, animals=[cow()], arrived_at=ago - timedelta(days=9)
    )
    trainee = make_entry(pound=t_pound, by=t_keeper, animals=[cow()], arrived_at=ago)
    run()
    assert _open(old) and not _open(fresh) and not _open(trainee)
    move_clock(training, by=trainer, seen=timedelta(0), days=7)
    # The move ran the training district's day: its report is due; the real ones are as they were.
    assert _open(trainee) and _open(old) and not _open(fresh)
    run()  # the daily run: each district on its own day
    assert _open(trainee) and _open(old) and not _open(fresh)
    due = ToDo.objects.get(key=f"report_due:{trainee.pk}").due_on
    assert due <= timezone.localdate() + timedelta(days=7)


def test_the_training_day_transfers_its_surplus_after_three_months_and_no_real_one(
    pound,
    pound_keeper,
    police_officer,
    dm_clerk,
    tariffs,
    training,  # noqa: F811
    t_pound,  # noqa: F811
    t_keeper,
    t_officer,  # noqa: F811
    trainer,  # noqa: F811
):
    conditions(pound.district)
    real = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    t_clerk = staff(Role.DM_CLERK, "t_clerk", district=training)
    trainee = received_surplus(t_pound, t_keeper, t_officer, t_clerk)
    move_clock(training, by=trainer, seen=timedelta(0), days=100)
    trainee.refresh_from_db()
    assert trainee.status == SurplusDeposit.Status.TRANSFERRED
    run()
    real.refresh_from_db()
    assert real.status == SurplusDeposit.Status.HELD


def test_the_days_of_the_run_cost_one_query_whatever_the_training_districts(
    state,
    training,  # noqa: F811
    django_assert_num_queries,
):
    other = DistrictFactory(state=state, code="tr2", training=True)
    other.clock_offset = timedelta(days=30)
    other.save(update_fields=["clock_offset"])
    with django_assert_num_queries(1):
        days = district_days()
    today = timezone.localdate()
    assert days == [
        (today, ()),
        (today, (training.pk,)),
        (today + timedelta(days=30), (other.pk,)),
    ]
    assert district_days(district=other) == [(today + timedelta(days=30), (other.pk,))]
