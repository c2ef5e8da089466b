"""verify_chain at a State's volume: a sound run leaves a checkpoint at each chain's head, and the
next run walks only the links written since. `verify_chain --full` still walks every link, and
holds each chain to its checkpoint."""

from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command

from impounding import services
from kernel.events import verify_chain, walk_chains
from kernel.models import ChainCheckpoint, ChainHead, Event
from tests.impounding.factories import cow, make_entry
from tests.kernel.test_events import append_only_trigger_disabled, links


@pytest.fixture
def chain(pound, pound_keeper, tariffs):
    """A pound chain of five links, found sound once: its checkpoint is at link 5."""
    make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])
    for day in (20, 21, 22, 23):
        feed(pound, pound_keeper, day)
    name = f"pound:{pound.pk}"
    assert verify_chain() == []
    return name


def feed(pound, keeper, day):
    services.log_feeding(
        pound=pound, by=keeper, date=date(2026, 11, day), animals_fed=2, fodder="Dry"
    )


def two_more_links(pound, keeper):
    feed(pound, keeper, 24)
    feed(pound, keeper, 25)


def checkpoint(name):
    return ChainCheckpoint.objects.filter(chain=name).values_list("seq", "hash").first()


def rehash(cursor, event):
    """Rewrite a link as someone who knows the hashing would: its content and its own hash."""
    event.hash = event.compute_hash()
    cursor.execute(
        "UPDATE kernel_event SET summary = %s, prev_hash = %s, hash = %s WHERE id = %s",
        [event.summary, event.prev_hash, event.hash, event.pk],
    )


def test_a_sound_run_moves_the_checkpoint_to_the_head(chain):
    head = ChainHead.objects.get(chain=chain)

    assert checkpoint(chain) == (5, head.hash)


def test_incremental_run_reads_only_the_links_since_the_checkpoint(chain, pound, pound_keeper):
    two_more_links(pound, pound_keeper)

    walk = walk_chains(chain=chain, incremental=True)

    assert walk.problems == []
    # The checkpoint's own link, held to its recorded hash, and the two new ones.
    assert walk.walked == 3
    assert (walk.chains, walk.events) == (1, 7)
    assert checkpoint(chain) == (7, links(chain)[-1].hash)
    assert walk_chains(chain=chain, incremental=True).walked == 1
    assert walk_chains(chain=chain).walked == 7


def test_incremental_run_catches_a_change_after_the_checkpoint(chain, pound, pound_keeper):
    two_more_links(pound, pound_keeper)
    with append_only_trigger_disabled() as cursor:
        cursor.execute(
            "UPDATE kernel_event SET summary = 'x' WHERE chain = %s AND seq = 6", [chain]
        )

    assert verify_chain(incremental=True) == [(chain, 6, "content changed after it was written")]
    assert checkpoint(chain)[0] == 5


def test_incremental_run_catches_a_missing_link_and_a_head_that_does_not_match(
    chain, pound, pound_keeper
):
    two_more_links(pound, pound_keeper)
    with append_only_trigger_disabled() as cursor:
        cursor.execute("DELETE FROM kernel_event WHERE chain = %s AND seq = 6", [chain])

    assert verify_chain(incremental=True) == [(chain, 6, "missing link")]

    with append_only_trigger_disabled() as cursor:
        cursor.execute("DELETE FROM kernel_event WHERE chain = %s AND seq = 7", [chain])

    assert verify_chain(incremental=True) == [(chain, 6, "links after this one are missing")]


def test_rehash_before_the_checkpoint_is_caught_by_the_full_walk(chain):
    forged = links(chain)[1]
    forged.summary = "forged"
    with append_only_trigger_disabled() as cursor:
        rehash(cursor, forged)

    assert verify_chain(incremental=True) == []
    assert verify_chain() == [(chain, 3, "does not follow the link before it")]


def test_chain_rewritten_from_its_start_is_caught_by_its_checkpoint(chain):
    events = links(chain)
    events[1].summary = "forged"
    with append_only_trigger_disabled() as cursor:
        for before, event in zip(events, events[1:], strict=False):
            event.prev_hash = before.hash
            rehash(cursor, event)
    ChainHead.objects.filter(chain=chain).update(hash=events[-1].hash)

    problem = [(chain, 5, "is not the link found sound at the checkpoint")]
    assert verify_chain() == problem
    assert verify_chain(incremental=True) == problem


def test_deleted_checkpoint_link_is_caught(chain):
    with append_only_trigger_disabled() as cursor:
        cursor.execute("DELETE FROM kernel_event WHERE chain = %s AND seq = 5", [chain])
    before = links(chain)[-1]
    # The head moved back too, so the chain looks whole without its checkpoint.
    ChainHead.objects.filter(chain=chain).update(seq=before.seq, hash=before.hash)

    problem = [(chain, 5, "links after this one are missing")]
    assert verify_chain() == problem
    assert verify_chain(incremental=True) == problem


def test_link_written_past_the_head_is_caught(chain):
    last = links(chain)[-1]
    extra = Event(
        chain=chain,
        seq=6,
        action=last.action,
        summary="written behind the application's back",
        district_id=last.district_id,
        pound_id=last.pound_id,
        prev_hash=last.hash,
        at=last.at,
    )
    extra.hash = extra.compute_hash()
    extra.save(force_insert=True)

    assert verify_chain(incremental=True) == [(chain, 6, "links after this one are missing")]
    assert verify_chain() == [(chain, 6, "links after this one are missing")]


def test_command_says_which_walk_it_made(chain, pound, pound_keeper):
    two_more_links(pound, pound_keeper)
    out = StringIO()

    call_command("verify_chain", chain=chain, stdout=out)

    assert out.getvalue().strip() == (
        "1 chain(s), 7 events: every link holds "
        "(incremental, from the last checkpoints: 3 links read); no signed checkpoint yet"
    )
    out = StringIO()
    call_command("verify_chain", chain=chain, full=True, stdout=out)
    assert out.getvalue().strip() == (
        "1 chain(s), 7 events: every link holds (full walk: 7 links read); no signed checkpoint yet"
    )


def test_command_full_walk_names_a_rehash_the_incremental_run_passes(chain):
    forged = links(chain)[1]
    forged.summary = "forged"
    with append_only_trigger_disabled() as cursor:
        rehash(cursor, forged)
    out, err = StringIO(), StringIO()

    call_command("verify_chain", stdout=out)
    with pytest.raises(SystemExit) as exc:
        call_command("verify_chain", "--full", stdout=out, stderr=err)

    assert exc.value.code == 1
    assert f"BROKEN: chain {chain}, link 3: does not follow the link before it" in err.getvalue()
