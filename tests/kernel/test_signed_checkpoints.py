"""Signed checkpoints: the chain heads signed with a key the database never holds, stored
outside it. Whoever can write the tables can rehash a chain, or cut its tail and step the head
back, and the chain holds together again; `verify_chain` still names each, from the signed
checkpoint. The daily run writes one a day, and the paper returns print it."""

import json
from datetime import date
from io import StringIO

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from kernel import anchors
from kernel.events import verify_chain
from kernel.models import ChainCheckpoint, ChainHead
from office.deadlines import run, summary
from tests.impounding.factories import cow, make_entry
from tests.kernel.test_chain_checkpoints import feed, rehash
from tests.kernel.test_events import append_only_trigger_disabled, links
from tests.readpdf import text as pdf_text


@pytest.fixture
def signing_key(settings, tmp_path):
    out = StringIO()
    call_command("checkpoint_key", str(tmp_path / "checkpoint.pem"), stdout=out)
    lines = dict(line.split("=", 1) for line in out.getvalue().splitlines() if "=" in line)
    settings.CHECKPOINT_SIGNING_KEY_FILE = lines["CHECKPOINT_SIGNING_KEY_FILE"]
    return lines["CHECKPOINT_PUBLIC_KEY"]


@pytest.fixture
def signed(signing_key, chain):
    """The five-link chain, its checkpoint signed at link 5."""
    checkpoint, problems = anchors.write_checkpoint()
    assert problems == [] and checkpoint.heads[chain][0] == 5
    return checkpoint


@pytest.fixture
def chain(pound, pound_keeper, tariffs):
    make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])
    for day in (20, 21, 22, 23):
        feed(pound, pound_keeper, day)
    return f"pound:{pound.pk}"


def stored(checkpoint):
    with anchors.storage().open(name_of(checkpoint)) as handle:
        return json.loads(handle.read())


def name_of(checkpoint):
    return f"{anchors.folder()}/{checkpoint.base_name}"


def forge_as_the_owner(chain, *, rehash_from=None, cut=0):
    """What someone who can write the tables does: rehash the chain from an edited link, or cut
    its last links, and then move the head and the database's own checkpoint to match."""
    events = links(chain)
    with append_only_trigger_disabled() as cursor:
        if rehash_from:
            events[rehash_from - 1].summary = "forged"
            for before, event in zip([None, *events], events, strict=False):
                if event.seq >= rehash_from:
                    event.prev_hash = before.hash if before else event.prev_hash
                    rehash(cursor, event)
        if cut:
            cursor.execute(
                "DELETE FROM kernel_event WHERE chain = %s AND seq > %s",
                [chain, len(events) - cut],
            )
            events = events[:-cut]
    last = events[-1]
    ChainHead.objects.filter(chain=chain).update(seq=last.seq, hash=last.hash)
    ChainCheckpoint.objects.filter(chain=chain).update(seq=last.seq, hash=last.hash)


def test_checkpoint_is_signed_and_stored_outside_the_database(signed, signing_key, chain):
    body = stored(signed)

    assert body["chains"][chain] == {"seq": 5, "hash": links(chain)[-1].hash}
    assert body["key_id"] == signed.key_id and len(body["signature"]) == 88
    assert anchors.latest_checkpoint() == signed
    # The key is nowhere in the database: not in any text column of any table.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM kernel_event WHERE data::text LIKE %s",
            ["%PRIVATE KEY%"],
        )
        assert cursor.fetchone()[0] == 0


@pytest.mark.postgres
def test_a_rehashed_chain_is_named_as_rehashed(signed, chain):
    forge_as_the_owner(chain, rehash_from=3)

    expected = [
        (
            chain,
            5,
            f"rehashed: link 5 is not the link the checkpoint signed at {signed.when} holds",
        )
    ]
    assert verify_chain() == expected
    assert verify_chain(incremental=True) == expected


@pytest.mark.postgres
def test_a_cut_tail_is_named_as_cut(signed, chain):
    forge_as_the_owner(chain, cut=3)

    expected = [
        (
            chain,
            3,
            f"tail cut: the checkpoint signed at {signed.when} holds links to 5, "
            "the chain now ends at 2",
        )
    ]
    assert verify_chain() == expected
    assert verify_chain(incremental=True) == expected
    out, err = StringIO(), StringIO()
    with pytest.raises(SystemExit):
        call_command("verify_chain", stdout=out, stderr=err)
    assert f"BROKEN: chain {chain}, link 3: tail cut" in err.getvalue()


def test_a_sound_chain_holds_its_signed_checkpoint(signed, chain, pound, pound_keeper):
    feed(pound, pound_keeper, 24)
    out = StringIO()

    call_command("verify_chain", stdout=out)

    assert verify_chain() == []
    assert f"every chain holds the checkpoint signed on {signed.when}" in out.getvalue()


def test_an_edited_checkpoint_file_does_not_verify(signed, chain):
    body = stored(signed)
    body["chains"][chain]["seq"] = 2
    store = anchors.storage()
    store.delete(name_of(signed))
    store.save(name_of(signed), ContentFile(json.dumps(body).encode()))

    (problem,) = verify_chain()
    assert problem[0] == "checkpoints" and "signature does not verify" in problem[2]


def test_a_verifying_machine_needs_only_the_public_key(signed, signing_key, settings, chain):
    settings.CHECKPOINT_SIGNING_KEY_FILE = ""
    settings.CHECKPOINT_PUBLIC_KEY = signing_key

    assert anchors.signing_key() is None
    assert anchors.latest_checkpoint() == signed


@pytest.mark.postgres
def test_no_checkpoint_is_signed_over_a_rehashed_chain(signed, chain):
    forge_as_the_owner(chain, rehash_from=4)

    checkpoint, problems = anchors.write_checkpoint()

    assert checkpoint is None
    assert problems and problems[0][2].startswith("rehashed: link 5")


@pytest.mark.postgres
def test_a_checkpoint_signs_only_a_chain_sound_since_the_last(signed, chain, pound, pound_keeper):
    feed(pound, pound_keeper, 24)
    with append_only_trigger_disabled() as cursor:
        cursor.execute(
            "UPDATE kernel_event SET summary = 'x' WHERE chain = %s AND seq = 6", [chain]
        )

    checkpoint, problems = anchors.write_checkpoint()

    assert checkpoint is None
    assert problems == [(chain, 6, "content changed after it was written")]


def _reads(monkeypatch):
    """The links each chain's walk reads, as {chain: links} (the walks are counted, not timed)."""
    from kernel import events

    reads, walk = {}, events._walk

    def counting(name, *args, **kwargs):
        problem, last, read = walk(name, *args, **kwargs)
        reads[name] = reads.get(name, 0) + read
        return problem, last, read

    monkeypatch.setattr(events, "_walk", counting)
    return reads


def test_the_first_checkpoint_walks_from_the_last_verified_link(
    signing_key, chain, pound, pound_keeper, monkeypatch
):
    """No signed checkpoint yet: the first walks each chain from where verify_chain last found
    it sound, so the daily run's checkpoint reads the day's links, not the whole log (ADR 0020)."""
    assert verify_chain() == []  # yesterday's run: the chain sound to link 5
    feed(pound, pound_keeper, 24)
    feed(pound, pound_keeper, 25)  # today's two links
    reads = _reads(monkeypatch)

    checkpoint, problems = anchors.write_checkpoint()

    assert problems == [] and checkpoint.heads[chain][0] == 7
    assert reads[chain] == 3  # link 5 (the anchor), 6 and 7; not 1 to 4


def test_the_first_checkpoint_with_full_walks_every_link(signing_key, chain, monkeypatch):
    assert verify_chain() == []
    reads = _reads(monkeypatch)

    out = StringIO()
    call_command("sign_checkpoint", "--full", stdout=out)

    assert reads[chain] == 5
    assert "Checkpoint signed at" in out.getvalue()
    assert anchors.latest_checkpoint().heads[chain][0] == 5


@pytest.mark.postgres
def test_the_first_checkpoint_refuses_a_link_changed_since_the_last_verified(
    signing_key, chain, pound, pound_keeper
):
    assert verify_chain() == []
    feed(pound, pound_keeper, 24)
    with append_only_trigger_disabled() as cursor:
        cursor.execute(
            "UPDATE kernel_event SET summary = 'x' WHERE chain = %s AND seq = 6", [chain]
        )

    checkpoint, problems = anchors.write_checkpoint()

    assert checkpoint is None
    assert problems == [(chain, 6, "content changed after it was written")]


def test_a_later_checkpoint_walks_from_the_signed_link(
    signed, chain, pound, pound_keeper, monkeypatch
):
    feed(pound, pound_keeper, 24)
    reads = _reads(monkeypatch)

    checkpoint, problems = anchors.write_checkpoint()

    assert problems == [] and checkpoint.heads[chain][0] == 6
    assert reads[chain] == 2  # the signed link 5, and 6


def test_the_daily_run_signs_and_a_second_run_signs_nothing_new(signing_key, chain):
    first, second = run(), run()

    assert "checkpoint signed 1, checkpoint refused 0" in summary(first)
    assert second["checkpoint_signed"] == 1  # the latest, found again: no head has moved
    _dirs, files = anchors.storage().listdir(anchors.folder())
    assert len(files) == 1 and files[0].startswith(f"{timezone.localdate().isoformat()}T")


def test_without_a_key_the_daily_run_signs_nothing(chain):
    assert run()["checkpoint_signed"] == 0
    assert anchors.latest_checkpoint() is None


def test_cash_book_and_monthly_return_print_the_signed_checkpoint(
    signed, client, pound, pound_keeper, tmp_path
):
    client.force_login(pound_keeper)
    day = date(2026, 11, 1)
    urls = [
        reverse("office:cash_book", args=[pound.pk, day.isoformat(), "pdf"]),
        reverse("office:monthly_return", args=[pound.pk, 2026, 10, "pdf"]),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        text = "".join(pdf_text(response.content).split())
        assert "Signedcheckpointoftheeventlog" in text
        assert signed.digest in text
        assert signed.signature_text in text
