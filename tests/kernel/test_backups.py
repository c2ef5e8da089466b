"""`manage.py backup` writes a consistent dump and every stored file; `manage.py restore_check`
restores the dump into a scratch database and runs check_ledger and verify_chain on it."""

import io
import json
import shutil
import uuid
from types import SimpleNamespace

import psycopg
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.utils import timezone
from PIL import Image

from kernel import anchors, backups
from tests.impounding.factories import cow, make_entry, pay
from tests.kernel.test_signed_checkpoints import signing_key

__all__ = ["signing_key"]  # a fixture used here

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not shutil.which("pg_dump"), reason="needs PostgreSQL's client tools"),
]


def jpeg():
    out = io.BytesIO()
    Image.new("RGB", (32, 32), "green").save(out, format="JPEG")
    return out.getvalue()


def scratch_databases():
    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres") as conn:
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'restore_check_%'")
        return {r[0] for r in rows}


@pytest.fixture
def scratch_name(monkeypatch):
    """The name restore_check will give its scratch database. Other workers may restore at the
    same time, so a test looks for its own scratch database, not at the set of them."""
    token = uuid.uuid4().hex
    asked = []

    def uuid4():
        asked.append(token)
        return SimpleNamespace(hex=token)

    monkeypatch.setattr(backups, "uuid", SimpleNamespace(uuid4=uuid4))
    yield f"restore_check_{token[:12]}"
    assert asked, "restore_check named its scratch database some other way"


def test_a_backup_restores_and_its_books_and_chain_hold(
    pound, pound_keeper, tariffs, tmp_path, scratch_name
):
    photo = SimpleUploadedFile("cow.jpg", jpeg(), content_type="image/jpeg")
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=photo)])
    pay(entry, pound_keeper)
    out = io.StringIO()

    call_command("backup", str(tmp_path / "b"), stdout=out)

    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    name = entry.animals.get().photo.name
    assert name in manifest["files"]
    assert (tmp_path / "b" / "files" / name).read_bytes().startswith(b"\xff\xd8")
    assert out.getvalue().startswith("backup: database ")
    checked = io.StringIO()
    call_command("restore_check", str(tmp_path / "b" / "database.dump"), stdout=checked)
    lines = checked.getvalue().splitlines()
    assert lines[-1].endswith("restores and its checks pass.")
    assert scratch_name not in scratch_databases()  # the scratch database is dropped


def test_restore_check_fails_on_a_dump_that_is_not_one(tmp_path, scratch_name):
    bad = tmp_path / "database.dump"
    bad.write_bytes(b"not a dump")

    with pytest.raises(CommandError, match="does not restore"):
        call_command("restore_check", str(bad), stdout=io.StringIO())

    assert scratch_name not in scratch_databases()


def test_restore_check_holds_the_copy_to_the_backups_own_checkpoints(
    signing_key, pound, pound_keeper, tariffs, tmp_path, scratch_name, monkeypatch
):
    """The live database signs on after the dump; the restored copy, which ends where the dump
    does, is held to the checkpoints in the backup, not named as cut by the later one."""
    monkeypatch.setenv("CHECKPOINT_PUBLIC_KEY", signing_key)  # for the checks' processes
    make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    assert anchors.write_checkpoint()[1] == []
    call_command("backup", str(tmp_path / "b"), stdout=io.StringIO())
    make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    later, problems = anchors.write_checkpoint()
    assert problems == [] and later is not None

    checked = io.StringIO()
    call_command("restore_check", str(tmp_path / "b" / "database.dump"), stdout=checked)

    assert checked.getvalue().splitlines()[-1].endswith("restores and its checks pass.")
    assert f"signed on {timezone.localdate():%Y-%m-%d}" in checked.getvalue()


def test_restore_refuses_a_database_that_is_not_empty(tmp_path):
    with pytest.raises(CommandError, match="is not empty"):
        call_command("restore", str(tmp_path), stdout=io.StringIO())
