"""The weekly walk (`verify_chain --full`, ADR 0067) reads the last month's links, not the whole
history: it starts at the link the latest signed checkpoint a month old holds, whose signature
binds every link before it. `--all` walks every link from the first, on demand."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.utils import timezone

from kernel import anchors
from kernel.events import walk_chains
from tests.kernel.test_chain_checkpoints import two_more_links
from tests.kernel.test_events import append_only_trigger_disabled, links
from tests.kernel.test_signed_checkpoints import chain, forge_as_the_owner, signing_key

__all__ = ["chain", "signing_key"]  # fixtures used here


@pytest.fixture
def month_old(signing_key, chain, pound, pound_keeper):
    """The five-link chain signed 40 days ago at link 5, two links since, signed this hour."""
    old, problems = anchors.write_checkpoint(at=timezone.now() - timedelta(days=40))
    assert problems == [] and old.heads[chain][0] == 5
    two_more_links(pound, pound_keeper)
    latest, problems = anchors.write_checkpoint()
    assert problems == [] and latest.heads[chain][0] == 7
    return old


def run(*args, chain):
    out, err = StringIO(), StringIO()
    try:
        call_command("verify_chain", *args, chain=chain, stdout=out, stderr=err)
    except SystemExit as stop:
        return stop.code, out.getvalue() + err.getvalue()
    return 0, out.getvalue()


def test_the_weekly_walk_reads_from_the_month_old_checkpoint(month_old, chain):
    code, said = run("--full", chain=chain)

    assert code == 0
    assert f"(full walk from the checkpoint signed at {month_old.when}: 3 links read)" in said
    assert "(full walk: 7 links read)" in run("--all", chain=chain)[1]


def test_without_a_month_old_checkpoint_the_weekly_walk_reads_every_link(signing_key, chain):
    recent, problems = anchors.write_checkpoint(at=timezone.now() - timedelta(days=20))
    assert problems == [] and recent is not None

    assert "(full walk: 5 links read)" in run("--full", chain=chain)[1]


def test_a_link_changed_within_the_month_is_named(month_old, chain):
    assert run(chain=chain)[0] == 0  # the daily walk: sound to link 7
    edited = links(chain)[5]  # link 6, written after the month-old checkpoint
    with append_only_trigger_disabled() as cursor:
        cursor.execute("UPDATE kernel_event SET summary = 'forged' WHERE id = %s", [edited.pk])

    assert run(chain=chain)[0] == 0  # the daily walk starts past it
    code, said = run("--full", chain=chain)
    assert code == 1
    assert f"BROKEN: chain {chain}, link 6: content changed after it was written" in said


@pytest.mark.postgres
def test_a_chain_rehashed_from_before_the_month_is_named(month_old, chain):
    forge_as_the_owner(chain, rehash_from=3)

    code, said = run("--full", chain=chain)

    assert code == 1 and f"BROKEN: chain {chain}, link " in said and "rehashed" in said


def test_a_link_changed_before_the_month_is_left_to_the_walk_of_every_link(month_old, chain):
    """The price of the shorter walk: a link older than the month-old checkpoint, changed in
    place without rehashing, was walked by the weekly runs of its month and is bound by the
    signed hashes, but is read again only by `--all`."""
    edited = links(chain)[1]
    with append_only_trigger_disabled() as cursor:
        cursor.execute("UPDATE kernel_event SET summary = 'forged' WHERE id = %s", [edited.pk])

    assert run("--full", chain=chain)[0] == 0
    code, said = run("--all", chain=chain)
    assert code == 1
    assert f"BROKEN: chain {chain}, link 2: content changed after it was written" in said


def test_a_month_old_checkpoint_that_does_not_verify_is_named(month_old, chain):
    name = f"{anchors.folder()}/{month_old.base_name}"
    with anchors.storage().open(name) as handle:
        body = json.loads(handle.read())
    body["chains"][chain]["seq"] = 7
    anchors.storage().delete(name)
    anchors.storage().save(name, ContentFile(json.dumps(body).encode()))

    walk = walk_chains(chain=chain, since_month=True)

    problem = f"{name}: its signature does not verify; the file was changed"
    assert [p[2] for p in walk.problems] == [problem]
    assert walk.walked == 7  # from the first link, then


def test_a_checkpoint_is_as_old_as_its_name_says():
    """A day-named checkpoint (version 1) counts from the end of its day."""
    day_named = anchors._issued("checkpoints/x/2026-10-01.json")
    timed = anchors._issued("checkpoints/x/2026-10-01T193000.123456+0530.json")

    assert timezone.localtime(day_named).isoformat() == "2026-10-02T00:00:00+05:30"
    assert timezone.localtime(timed).isoformat() == "2026-10-01T19:30:00.123456+05:30"
