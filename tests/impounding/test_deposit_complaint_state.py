"""Each deposit's `complaint_state`, the state of the complaints that decide it (ADR 0092), kept
by PostgreSQL's triggers whatever the writer, and equal at every step to the rule the deposit's
own pages read (office.dashboard.complaints_of and complaint_status)."""

from datetime import date
from importlib import import_module
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection

from impounding.models import Complaint, Deposit, complaint_states
from office.dashboard import complaint_status, complaints_of, deposit_queues
from tests.impounding.factories import cow, deposit, goat, make_entry
from tests.impounding.test_deposits import NOW, complain, decide, ist

pytestmark = [pytest.mark.time_machine(NOW, tick=False), pytest.mark.postgres]


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 20, 9),
        seized_at=ist(11, 20, 6),
        animals=[cow(), goat()],
    )


def state(held):
    """The column, and what the rule gives from the complaints themselves."""
    held = Deposit.objects.select_related("release__impoundment").get(pk=held.pk)
    return held.complaint_state, complaint_status(complaints_of(held))


def queue_of(held, today=date(2026, 11, 25)):
    qs, queues = deposit_queues([held.pound_id], today)
    return {key for key, where in queues.items() if qs.filter(where, pk=held.pk).exists()}


def test_the_state_follows_the_complaints_that_decide_the_deposit(entry, pound_keeper, dm_clerk):
    held = deposit(entry, pound_keeper, at=ist(11, 21, 10)).deposit
    assert state(held) == ("none", "none")
    assert queue_of(held) == {"deposits_in_window"}  # the window runs to 30 November
    assert queue_of(held, today=date(2026, 12, 1)) == {"deposits_to_apply"}

    loose = complain(entry, dm_clerk)  # about the seizure: it names no deposit
    assert state(held) == ("pending", "pending")
    assert queue_of(held, today=date(2026, 12, 1)) == {"deposits_in_window"}

    decide(loose, dm_clerk, Complaint.Outcome.DISMISSED)
    assert state(held) == ("dismissed", "dismissed")
    assert queue_of(held) == {"deposits_to_apply"}  # before the window ends: decided

    # A complaint naming the deposit decides it alone: the entry's dismissed one no longer.
    complain(entry, dm_clerk, deposit=held, complainant_name="Ram Lal")
    assert state(held) == ("pending", "pending")
    assert queue_of(held, today=date(2026, 12, 1)) == {"deposits_in_window"}


def test_a_deposit_made_after_a_complaint_takes_its_state(entry, pound_keeper, dm_clerk):
    complain(entry, dm_clerk)
    held = deposit(entry, pound_keeper, at=ist(11, 23, 10)).deposit
    assert state(held) == ("pending", "pending")


def test_an_upheld_complaint_takes_the_deposit_off_both_queues(entry, pound_keeper, dm_clerk):
    held = deposit(entry, pound_keeper, at=ist(11, 21, 10)).deposit
    # The Magistrate's finding is kept even where the deposit stays held (a writer that sets
    # the outcome alone): neither to apply nor waiting in its window.
    named = complain(entry, dm_clerk, deposit=held)
    Complaint.objects.filter(pk=named.pk).update(outcome="upheld", decided_on=date(2026, 11, 24))
    assert state(held) == ("upheld", "upheld")
    assert queue_of(held) == queue_of(held, today=date(2026, 12, 1)) == set()


def test_the_database_keeps_the_state_whatever_the_writer_sends(entry, pound_keeper, dm_clerk):
    held = deposit(entry, pound_keeper, at=ist(11, 21, 10)).deposit
    other = make_entry(pound=entry.pound, by=pound_keeper, arrived_at=ist(11, 22, 9))
    made = complain(entry, dm_clerk)
    # Moved to another entry by a writer that knows nothing of the column: both entries' deposits
    # are worked out again.
    Complaint.objects.filter(pk=made.pk).update(impoundment=other)
    assert state(held) == ("none", "none")
    Complaint.objects.filter(pk=made.pk).update(impoundment=entry)
    assert state(held) == ("pending", "pending")
    Complaint.objects.filter(pk=made.pk).delete()
    assert state(held) == ("none", "none")


def test_the_migration_works_out_the_deposits_made_before_it(entry, pound_keeper, dm_clerk):
    """Migration 0030 fills the state of every deposit some complaint concerns: here the column
    is reset behind the triggers' back (a deposit's update fires none), and its step fills it
    again; `refresh`, the models' path on SQLite, gives the same."""
    fill = import_module("impounding.migrations.0030_deposit_complaint_state")
    held = deposit(entry, pound_keeper, at=ist(11, 21, 10)).deposit
    decide(complain(entry, dm_clerk), dm_clerk, Complaint.Outcome.DISMISSED)
    Deposit.objects.filter(pk=held.pk).update(complaint_state="none")
    with connection.cursor() as cursor:
        schema_editor = SimpleNamespace(
            connection=connection, execute=lambda sql, params=None: cursor.execute(sql)
        )
        fill.forward(apps, schema_editor)
    assert state(held) == ("dismissed", "dismissed")
    Deposit.objects.filter(pk=held.pk).update(complaint_state="none")
    complaint_states.refresh(entry.pk)
    assert state(held) == ("dismissed", "dismissed")
