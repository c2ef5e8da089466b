"""The daily run's queries follow today's work, not the history: at two sizes of history (and
so of open to-dos and held deposits) it makes the same number of queries, a second run creates
and closes nothing, and the summary line is unchanged."""

from datetime import timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import ToDo
from office.deadlines import run, summary
from tests.auctions.factories import conditions
from tests.impounding.factories import cow, deposit, make_entry, pay


def history(pound, keeper, n):
    """n entries: some claimed, some released on a deposit, some still in the pound, unreported
    past their seven days."""
    for i in range(n):
        arrived = timezone.now() - timedelta(days=12 + i)
        entry = make_entry(pound=pound, by=keeper, animals=[cow()], arrived_at=arrived)
        if i % 3 == 1:
            pay(entry, keeper, at=arrived + timedelta(days=1))
        elif i % 3 == 2:
            deposit(entry, keeper, at=arrived + timedelta(days=1))


def queries_of_run():
    run()  # the to-dos of this size of history are created; the next run is a steady day
    with CaptureQueriesContext(connection) as queries:
        done = run()
    return len(queries.captured_queries), done


def test_run_makes_the_same_queries_at_two_sizes(district, pound, pound_keeper, dm_clerk, tariffs):
    conditions(district, by=dm_clerk)
    history(pound, pound_keeper, 5)
    small, done_small = queries_of_run()
    history(pound, pound_keeper, 20)
    large, done_large = queries_of_run()

    assert small == large
    assert done_large["reports_due"] == 9 and done_small["reports_due"] == 2
    assert done_large["todos_created"] == done_large["todos_closed"] == 0
    assert done_large["todos_open"] == ToDo.objects.filter(done_at__isnull=True).count()
    assert summary(done_large).startswith("run_deadlines: reports due 9, notices due 0, ")


def test_the_run_that_opens_and_mails_the_to_dos_makes_the_same_queries_at_two_sizes(
    district,
    pound,
    pound_keeper,
    dm_clerk,
    tariffs,
    django_assert_max_num_queries,
    django_capture_on_commit_callbacks,
):
    """The new to-dos' people are looked up once per role and place, not once per to-do."""
    conditions(district, by=dm_clerk)
    history(pound, pound_keeper, 4)
    with CaptureQueriesContext(connection) as small:
        with django_capture_on_commit_callbacks(execute=True):
            created_small = run()["todos_created"]
    history(pound, pound_keeper, 30)

    with django_assert_max_num_queries(len(small.captured_queries)):
        with django_capture_on_commit_callbacks(execute=True):
            created_large = run()["todos_created"]

    assert created_large > created_small > 0
