"""Personal fields of an event are kept apart from its link (docs/decisions/0010): the link
hashes their salted digest, so erasure under the retention rule deletes the fields and the chain
still verifies, while a change to the fields before erasure is caught."""

import hashlib
import json
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.utils import timezone, translation

from impounding import services
from impounding.actions import Action
from impounding.models import Amendment
from kernel.events import record_event, verify_chain
from kernel.models import Event, EventPersonal, personal_digest
from tests.impounding.factories import make_entry, pay
from tests.kernel.test_events import append_only_trigger_disabled

NAMES = ("Shyam Lal", "Ram Prasad", "Samesi")


def _names_in_links(entry):
    """The names of the public found in the hashed part of the entry's links."""
    text = json.dumps([e.payload() for e in Event.objects.filter(impoundment=entry)], default=str)
    return [name for name in NAMES if name in text]


@pytest.fixture
def released(pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    services.amend_entry(
        entry=entry, by=pound_keeper, reason="Full name", changes={"owner_name": "Shyam Lal Yadav"}
    )
    pay(entry, pound_keeper)
    return entry


def test_the_link_hashes_a_digest_of_the_personal_fields_not_the_fields(released):
    event = Event.objects.get(impoundment=released, action=Action.RELEASE_PAID)
    personal = EventPersonal.objects.get(event=event)

    assert personal.fields["name"] == "Shyam Lal"
    assert event.personal_digest == personal_digest(personal.salt, personal.fields)
    assert event.payload()["personal"] == event.personal_digest
    assert "released to the claimant" in event.summary
    assert _names_in_links(released) == []
    assert "released to Shyam Lal" in event.summary_text  # while the fields exist
    entered = Event.objects.get(impoundment=released, action=Action.REGISTER_ENTERED)
    assert entered.personal["seizer"][0] == "Ram Prasad"
    assert verify_chain() == []


def test_erasure_keeps_the_digest_and_the_chain_verifies(released, settings, time_machine):
    settings.RETENTION_PERSONAL_YEARS = 8
    digests = dict(
        Event.objects.filter(impoundment=released)
        .exclude(personal_digest="")
        .values_list("pk", "personal_digest")
    )
    assert len(digests) >= 3  # the entry, the amendment and the release
    time_machine.move_to(timezone.now() + timedelta(days=365 * 9), tick=False)

    call_command("apply_retention", stdout=StringIO())

    assert not EventPersonal.objects.filter(event__impoundment_id=released.pk).exists()
    assert _names_in_links(released) == []
    amendment = Amendment.objects.get(impoundment=released)
    assert (amendment.old_value, amendment.new_value) == ("[erased]", "[erased]")
    kept = dict(Event.objects.filter(pk__in=digests).values_list("pk", "personal_digest"))
    assert kept == digests
    event = Event.objects.get(impoundment=released, action=Action.RELEASE_PAID)
    assert event.personal == {}
    assert "released to the claimant" in event.summary_text
    with translation.override("hi"):
        assert "दावेदार" in event.summary_text
    # The full walk, from every chain's first link.
    call_command("verify_chain", "--full", stdout=StringIO())
    assert verify_chain() == []


def test_personal_fields_changed_before_erasure_are_caught(released):
    event = Event.objects.get(impoundment=released, action=Action.RELEASE_PAID)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(
            "ALTER TABLE kernel_eventpersonal DISABLE TRIGGER kernel_eventpersonal_no_update"
        )
        cursor.execute(
            "UPDATE kernel_eventpersonal SET fields = %s WHERE event_id = %s",
            [json.dumps({"name": "Someone Else", "agent_authority": ""}), event.pk],
        )
        cursor.execute(
            "ALTER TABLE kernel_eventpersonal ENABLE TRIGGER kernel_eventpersonal_no_update"
        )
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")

    assert verify_chain() == [
        (event.chain, event.seq, "personal fields changed after they were written")
    ]


@pytest.mark.postgres
def test_the_database_refuses_to_change_personal_fields(released):
    personal = EventPersonal.objects.filter(event__impoundment_id=released.pk)
    with pytest.raises(IntegrityError, match="erased"), transaction.atomic():
        personal.update(fields={"name": "Someone Else"})


def test_a_digest_taken_off_its_link_is_caught(released):
    event = Event.objects.get(impoundment=released, action=Action.RELEASE_PAID)
    EventPersonal.objects.filter(event=event).delete()
    with append_only_trigger_disabled() as cursor:
        cursor.execute("UPDATE kernel_event SET personal_digest = '' WHERE id = %s", [event.pk])

    assert verify_chain() == [(event.chain, event.seq, "content changed after it was written")]


def test_links_without_personal_fields_hash_as_before(pound, pound_keeper):
    with transaction.atomic():
        event = record_event(
            action=Action.REGISTER_AMENDED,
            section="s.8",
            summary="fed",
            by=pound_keeper,
            pound=pound,
        )
    assert "personal" not in event.payload() and event.personal_digest == ""
    assert not EventPersonal.objects.filter(event=event).exists()
    # Personal fields put beside a link that never had any are caught.
    EventPersonal.objects.create(event=event, fields={"name": "X"}, salt="00" * 16)
    assert verify_chain() == [
        (event.chain, event.seq, "personal fields added to a link that had none")
    ]


def test_a_link_written_before_personal_fields_were_kept_apart_hashes_as_it_did():
    """The hash of a link as the chain computed it before this change (a fixed vector)."""
    event = Event(
        chain="pound:1",
        seq=1,
        at=datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
        by_id=7,
        action="release.paid",
        section="s.13",
        summary="1 animal(s) released to Shyam Lal",
        district_id=2,
        pound_id=1,
        impoundment_id=3,
        animal_id=None,
        data={"claimant": ["Shyam Lal", "owner", ""]},
        prev_hash="0" * 64,
    )
    old_payload = (
        '{"action":"release.paid","animal":null,"at":"2026-01-02T03:04:05.000006+00:00",'
        '"by":7,"chain":"pound:1","data":{"claimant":["Shyam Lal","owner",""]},"district":2,'
        '"impoundment":3,"pound":1,"prev":"' + "0" * 64 + '","section":"s.13","seq":1,'
        '"summary":"1 animal(s) released to Shyam Lal"}'
    )
    assert event.compute_hash() == hashlib.sha256(old_payload.encode()).hexdigest()
