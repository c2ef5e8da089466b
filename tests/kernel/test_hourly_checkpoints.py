"""Hourly signed checkpoints (docs/decisions/0058-hourly-checkpoints.md): a cut of the links an
hour back is named by verify_chain; several checkpoints a day, named by their time, the old
day-named ones still read, by the chains, the backups and the restores; nothing new signed when
no head has moved; and /verify/ shows every chain's signed head from one row."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from kernel import anchors
from kernel.backups import copy_checkpoints
from kernel.events import verify_chain
from kernel.models import ChainHead, PublishedCheckpoint
from tests.kernel.test_chain_checkpoints import feed
from tests.kernel.test_events import links
from tests.kernel.test_signed_checkpoints import chain, forge_as_the_owner, signed, signing_key

__all__ = ["chain", "signed", "signing_key"]  # fixtures used here


def test_a_tail_cut_an_hour_back_is_named(signed, chain, pound, pound_keeper):
    """The last hour's links (6 and 7) are signed on the hour; cutting them afterwards, with the
    head stepped back, is named against that signature, not passed as the day's first."""
    feed(pound, pound_keeper, 24)
    feed(pound, pound_keeper, 25)
    hourly, problems = anchors.write_checkpoint(at=timezone.now() + timedelta(hours=1))
    assert problems == [] and hourly.heads[chain][0] == 7

    forge_as_the_owner(chain, cut=2)

    expected = (
        chain,
        6,
        f"tail cut: the checkpoint signed at {hourly.when} holds links to 7, "
        "the chain now ends at 5",
    )
    assert verify_chain() == [expected]
    assert verify_chain(incremental=True) == [expected]


def test_the_sign_command_signs_each_hour_and_nothing_new_when_no_head_moved(
    signing_key, chain, pound, pound_keeper
):
    for _ in range(2):
        call_command("sign_checkpoint", stdout=StringIO())
    assert len(anchors.checkpoint_names()) == 1  # no head moved: the latest still covers all

    feed(pound, pound_keeper, 24)
    out = StringIO()
    call_command("sign_checkpoint", stdout=out)

    names = anchors.checkpoint_names()
    assert len(names) == 2 and "Checkpoint signed at" in out.getvalue()
    assert anchors.latest_checkpoint().heads[chain][0] == 6


def test_without_a_key_the_sign_command_signs_nothing_and_says_so(chain):
    err = StringIO()
    call_command("sign_checkpoint", stdout=StringIO(), stderr=err)  # no SystemExit
    assert "nothing signed" in err.getvalue()
    assert anchors.checkpoint_names() == []


def day_named(checkpoint_day, heads, key):
    """A checkpoint as the daily run wrote them before, version 1, named by its day."""
    body = {
        "version": 1,
        "date": checkpoint_day.isoformat(),
        "issued_at": timezone.now().isoformat(timespec="seconds"),
        "key_id": anchors.key_id(key.public_key()),
        "chains": {name: {"seq": seq, "hash": digest} for name, (seq, digest) in heads.items()},
    }
    made = anchors.SignedCheckpoint(body=body, signature=key.sign(anchors._canonical(body)))
    name = anchors.file_name(checkpoint_day)
    anchors.storage().save(name, ContentFile(made.to_file().encode()))
    return made


def test_old_day_named_checkpoints_still_read(signing_key, chain, pound, pound_keeper, tmp_path):
    heads = {h.chain: (h.seq, h.hash) for h in ChainHead.objects.all()}
    old = day_named(timezone.localdate() - timedelta(days=1), heads, anchors.signing_key())

    assert anchors.latest_checkpoint() == old
    assert old.base_name == f"{old.body['date']}.json"
    forge_as_the_owner(chain, cut=1)
    assert [p[2].split(":")[0] for p in verify_chain()] == ["tail cut"]


def test_old_and_new_names_sort_in_time_and_both_are_backed_up(
    signing_key, chain, pound, pound_keeper, tmp_path
):
    heads = {h.chain: (h.seq, h.hash) for h in ChainHead.objects.all()}
    old = day_named(timezone.localdate(), heads, anchors.signing_key())
    feed(pound, pound_keeper, 24)
    new, problems = anchors.write_checkpoint()
    assert problems == [] and new.base_name.startswith(old.body["date"] + "T")

    assert [n.rsplit("/", 1)[1] for n in anchors.checkpoint_names()] == [
        old.base_name,
        new.base_name,
    ]
    assert anchors.latest_checkpoint() == new
    assert sorted(
        ["2026-12-05.json", "2026-12-04T235959.000000+0530.json", "2026-12-04.json"],
        key=anchors.order,
    ) == ["2026-12-04.json", "2026-12-04T235959.000000+0530.json", "2026-12-05.json"]

    copied = copy_checkpoints(tmp_path)

    backed = FileSystemStorage(location=str(tmp_path))
    assert anchors.checkpoint_names(backed) == copied
    assert anchors.latest_checkpoint(backed) == new


def test_a_backup_reads_again_only_the_checkpoints_it_lacks(
    signed, chain, pound, pound_keeper, tmp_path, monkeypatch
):
    from kernel import backups

    feed(pound, pound_keeper, 24)
    anchors.write_checkpoint()
    copy_checkpoints(tmp_path)
    first, second = anchors.checkpoint_names()
    (tmp_path / second).write_text('{"chains": {')  # an interrupted copy
    feed(pound, pound_keeper, 25)
    anchors.write_checkpoint()
    read, download = [], backups._download

    def spy(store, name, path):
        read.append(name)
        return download(store, name, path)

    monkeypatch.setattr(backups, "_download", spy)

    copy_checkpoints(tmp_path)

    assert read == anchors.checkpoint_names()[1:]  # not the first, held whole
    assert anchors.latest_checkpoint(FileSystemStorage(location=str(tmp_path))) is not None


def test_an_older_checkpoint_copied_under_a_later_name_is_named(signed, chain, pound, pound_keeper):
    """Someone who can write the storage, but holds no key, puts the early checkpoint under a
    name later than the true latest, to hold the chains to the early one."""
    feed(pound, pound_keeper, 24)
    anchors.write_checkpoint()
    later = anchors.file_name(timezone.now() + timedelta(hours=2))
    anchors.storage().save(later, ContentFile(signed.to_file().encode()))

    (problem,) = verify_chain()
    assert problem[0] == "checkpoints" and "not its own" in problem[2]


def test_the_verify_page_shows_every_chains_signed_head(
    signed, signing_key, chain, pound, client, django_assert_max_num_queries
):
    with django_assert_max_num_queries(2):  # the published row and the pounds' names
        response = client.get(reverse("signed_heads"))

    assert response.status_code == 200
    page = response.content.decode()
    seq, digest = signed.heads[chain]
    assert pound.name in page and chain in page and digest in page
    assert signed.signature_text in page and signed.digest in page
    assert signing_key in page  # the public key, to check a kept copy with
    download = client.get(reverse("signed_checkpoint"))
    assert download.status_code == 200
    assert json.loads(download.content)["signature"] == signed.signature_text
    assert anchors.SignedCheckpoint.from_file(download.content.decode()) == signed


def test_the_verify_page_follows_the_latest_checkpoint(signed, chain, pound, pound_keeper, client):
    feed(pound, pound_keeper, 24)
    later, _problems = anchors.write_checkpoint()

    page = client.get(reverse("signed_heads")).content.decode()

    assert PublishedCheckpoint.objects.get().name == later.base_name
    assert links(chain)[-1].hash in page and later.when in page


def test_before_any_checkpoint_the_verify_page_says_so(client, db):
    response = client.get(reverse("signed_heads"))
    assert response.status_code == 200
    assert "No checkpoint has been signed yet." in response.content.decode()
    assert client.get(reverse("signed_checkpoint")).status_code == 404


@pytest.mark.parametrize("name", ["2026-12-04.json", "2026-12-04T120000.000000+0530.json"])
def test_a_checkpoints_name_orders_by_its_day_then_its_time(name):
    assert anchors.order(f"checkpoints/x/{name}")[0] == "2026-12-04"
