"""The event log: every service writes who, when and the section; each pound's events are a hash
chain; the database refuses edits, and `verify_chain` names an edit made behind its back."""

import contextlib
import uuid
from datetime import date, datetime, timedelta
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from impounding import services
from kernel.events import record_event, verify_chain
from kernel.models import GENESIS, ChainHead, Event
from tests.accounts.factories import PoundFactory
from tests.impounding.factories import (
    court_order,
    cow,
    deposit,
    goat,
    make_entry,
    pay,
    set_tariffs,
)

IST = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=IST)


def ist(month, day, hour=12, minute=0):
    return datetime(2026, month, day, hour, minute, tzinfo=IST)


@contextlib.contextmanager
def append_only_trigger_disabled():
    """Tamper as someone with direct database access would: switch the trigger off (on
    PostgreSQL; SQLite has none), edit, switch it back on. Inside the test's transaction."""
    postgres = connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        if postgres:
            # The foreign-key checks of the rows just written are still queued (deferred), and
            # PostgreSQL will not alter a table with queued trigger events: run them now.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("ALTER TABLE kernel_event DISABLE TRIGGER kernel_event_append_only")
        yield cursor
        if postgres:
            cursor.execute("ALTER TABLE kernel_event ENABLE TRIGGER kernel_event_append_only")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")


@pytest.fixture
def chain(pound, pound_keeper, tariffs):
    """A pound chain of five links."""
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])
    for day in (20, 21, 22, 23):
        services.log_feeding(
            pound=pound, by=pound_keeper, date=date(2026, 11, day), animals_fed=2, fodder="Dry"
        )
    assert entry
    return f"pound:{pound.pk}"


def links(name):
    return list(Event.objects.filter(chain=name).order_by("seq"))


@pytest.mark.time_machine(NOW, tick=False)
def test_every_service_writes_an_event_with_who_when_and_section(
    pound, district, pound_keeper, dm_clerk, magistrate
):
    set_tariffs(district, by=dm_clerk)
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 10, 9),
        seized_at=ist(11, 10, 6),
        animals=[cow(), cow(), goat(), cow(), goat()],
    )
    a1, a2, a3, a4, a5 = entry.animals.order_by("number")
    services.amend_entry(entry=entry, by=pound_keeper, reason="Typo", changes={"owner_name": "S"})
    services.log_feeding(
        pound=pound, by=pound_keeper, date=date(2026, 11, 10), animals_fed=5, fodder="Dry"
    )
    services.record_birth(dam=a1, by=pound_keeper, at=ist(11, 11), sex="male", colour="Red")
    services.record_escape(animal=a2, by=pound_keeper, at=ist(11, 11, 13))
    services.record_return(animal=a2, by=pound_keeper, at=ist(11, 12))
    services.record_escape(animal=a3, by=pound_keeper, at=ist(11, 12, 1), rescued=True)
    services.record_death(animal=a3, by=pound_keeper, at=ist(11, 13), cause="Injury")
    pay(entry, pound_keeper, [a1])
    held = deposit(entry, pound_keeper, [a2]).deposit
    complaint = services.record_complaint(
        entry=entry,
        by=dm_clerk,
        deposit=held,
        complainant_name="S",
        mode="written",
        court="DM court",
        filed_on=date(2026, 11, 14),
    )
    services.decide_complaint(
        complaint=complaint, by=magistrate, outcome="dismissed", decided_on=date(2026, 11, 20)
    )
    services.apply_deposit(deposit=held, by=magistrate)
    court_order(entry, pound_keeper, [a4], checker=dm_clerk, order_date=date(2026, 11, 24))
    assert a5.state == "impounded"

    district_chain = [
        (e.action, e.section, e.by.username) for e in links(f"district:{district.pk}")
    ]
    pound_chain = [(e.action, e.section, e.by.username) for e in links(f"pound:{pound.pk}")]

    assert district_chain == [
        ("tariff.fine_scale_recorded", "s.12", "dm_clerk"),
        ("tariff.feeding_order_recorded", "s.5", "dm_clerk"),
    ]
    assert pound_chain == [
        ("register.entered", "s.8", "pound_keeper"),
        ("register.amended", "s.8", "pound_keeper"),
        ("custody.fed", "s.9", "pound_keeper"),
        ("custody.born", "s.9", "pound_keeper"),
        ("custody.escaped", "s.9", "pound_keeper"),
        ("custody.returned", "s.9", "pound_keeper"),
        ("custody.rescued", "s.24", "pound_keeper"),
        ("custody.died", "s.9", "pound_keeper"),
        ("release.paid", "s.13", "pound_keeper"),
        ("release.deposit", "s.15", "pound_keeper"),
        ("complaint.recorded", "s.20", "dm_clerk"),
        ("complaint.dismissed", "s.22", "magistrate"),
        ("deposit.applied", "s.15", "magistrate"),
        ("release.court_order_recorded", "s.19", "pound_keeper"),
        ("release.court_order", "s.19", "dm_clerk"),
    ]
    for event in Event.objects.all():
        assert event.at == NOW
        assert event.district == district
        assert event.summary
    assert Event.objects.filter(pound=pound).count() == len(pound_chain)
    assert Event.objects.filter(pound=pound, impoundment=entry).count() == len(pound_chain) - 1
    assert verify_chain() == []


def test_each_link_holds_the_hash_of_the_one_before(chain):
    events = links(chain)

    assert [e.seq for e in events] == [1, 2, 3, 4, 5]
    assert events[0].prev_hash == GENESIS
    for before, after in zip(events, events[1:], strict=False):
        assert after.prev_hash == before.hash
    for event in events:
        assert event.hash == event.compute_hash()
        assert len(event.hash) == 64
    head = ChainHead.objects.get(chain=chain)
    assert (head.seq, head.hash) == (5, events[-1].hash)


def test_each_pound_and_district_has_its_own_chain(
    pound, pound_keeper, district, other_pound, outsider
):
    make_entry(pound=pound, by=pound_keeper)
    set_tariffs(district)
    make_entry(pound=other_pound, by=outsider)
    make_entry(pound=other_pound, by=outsider)

    heads = dict(ChainHead.objects.values_list("chain", "seq"))

    assert heads == {
        f"pound:{pound.pk}": 1,
        f"district:{district.pk}": 2,
        f"pound:{other_pound.pk}": 2,
    }
    assert verify_chain() == []


def test_verify_chain_is_empty_on_a_good_chain(chain):
    assert verify_chain() == []
    assert verify_chain(chain) == []


def test_verify_chain_command_reports_a_good_chain(chain):
    out = StringIO()

    call_command("verify_chain", stdout=out)

    assert "every link holds" in out.getvalue()
    out = StringIO()
    call_command("verify_chain", chain=chain, stdout=out)
    assert out.getvalue().startswith("1 chain(s), 5 events")


@pytest.mark.django_db(transaction=True)
def test_record_event_refuses_to_run_outside_a_transaction(pound, pound_keeper):
    with pytest.raises(RuntimeError, match="inside the business transaction"):
        record_event(action="x", section="s.8", summary="x", by=pound_keeper, pound=pound)

    assert not Event.objects.exists()


def test_a_new_chain_starts_at_genesis(pound_keeper):
    pound = PoundFactory()
    with transaction.atomic():
        event = record_event(action="test", section="", summary="first", by=None, pound=pound)

    assert (event.seq, event.prev_hash, event.chain) == (1, GENESIS, f"pound:{pound.pk}")


# --- the database refuses edits (PostgreSQL) ---


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE kernel_event SET summary = 'nothing happened' WHERE chain = %s AND seq = 2",
        "DELETE FROM kernel_event WHERE chain = %s AND seq = 5",
    ],
)
def test_database_refuses_to_update_or_delete_an_event(chain, sql):
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(sql, [chain])

    assert len(links(chain)) == 5
    assert links(chain)[1].summary != "nothing happened"
    assert verify_chain() == []


# --- tampering behind the application's back is detected ---


def test_edited_summary_breaks_the_chain_at_that_link(chain):
    with append_only_trigger_disabled() as cursor:
        cursor.execute(
            "UPDATE kernel_event SET summary = 'Fed 20 animals' WHERE chain = %s AND seq = 3",
            [chain],
        )

    assert verify_chain() == [(chain, 3, "content changed after it was written")]
    assert verify_chain(chain) == [(chain, 3, "content changed after it was written")]


def test_verify_chain_command_exits_non_zero_and_names_the_broken_link(chain):
    with append_only_trigger_disabled() as cursor:
        cursor.execute(
            "UPDATE kernel_event SET summary = 'x' WHERE chain = %s AND seq = 2", [chain]
        )
    out, err = StringIO(), StringIO()

    with pytest.raises(SystemExit) as exc:
        call_command("verify_chain", stdout=out, stderr=err)

    assert exc.value.code == 1
    assert f"BROKEN: chain {chain}, link 2" in err.getvalue()
    assert "every link holds" not in out.getvalue()


def test_rehashed_edit_breaks_the_next_link(chain):
    forged = links(chain)[1]
    forged.summary = "forged"
    forged.hash = forged.compute_hash()
    with append_only_trigger_disabled() as cursor:
        cursor.execute(
            "UPDATE kernel_event SET summary = %s, hash = %s WHERE id = %s",
            [forged.summary, forged.hash, forged.pk],
        )

    assert verify_chain(chain) == [(chain, 3, "does not follow the link before it")]


def test_deleted_link_is_reported_missing(chain):
    with append_only_trigger_disabled() as cursor:
        cursor.execute("DELETE FROM kernel_event WHERE chain = %s AND seq = 4", [chain])

    assert verify_chain(chain) == [(chain, 4, "missing link")]


def test_deleted_last_link_is_reported(chain):
    with append_only_trigger_disabled() as cursor:
        cursor.execute("DELETE FROM kernel_event WHERE chain = %s AND seq = 5", [chain])

    assert verify_chain(chain) == [(chain, 5, "links after this one are missing")]


def test_changed_time_or_author_breaks_the_chain(chain, police_officer):
    with append_only_trigger_disabled() as cursor:
        cursor.execute(
            "UPDATE kernel_event SET at = at + interval '1 minute' WHERE chain = %s AND seq = 1"
            if connection.vendor == "postgresql"
            else "UPDATE kernel_event SET by_id = %s WHERE chain = %s AND seq = 1",
            [chain] if connection.vendor == "postgresql" else [police_officer.pk, chain],
        )

    assert verify_chain(chain) == [(chain, 1, "content changed after it was written")]


def test_a_correct_chain_is_unaffected_by_a_broken_one(chain, other_pound, outsider):
    make_entry(pound=other_pound, by=outsider)
    with append_only_trigger_disabled() as cursor:
        cursor.execute(
            "UPDATE kernel_event SET summary = 'x' WHERE chain = %s AND seq = 1", [chain]
        )

    assert verify_chain(f"pound:{other_pound.pk}") == []
    assert [p[0] for p in verify_chain()] == [chain]


def test_summary_is_cut_to_fit(pound):
    with transaction.atomic():
        event = record_event(action="x", section="", summary="y" * 400, by=None, pound=pound)

    assert len(event.summary) == 300
    assert verify_chain() == []


def test_event_data_survives_the_round_trip(pound, pound_keeper, tariffs):
    key = uuid.uuid4()
    entry = make_entry(pound=pound, by=pound_keeper, arrived_at=NOW - timedelta(days=400))
    pay(entry, pound_keeper, key=key)

    assert verify_chain() == []
    assert Event.objects.get(action="release.paid").data["fines"] == "20000.00"
