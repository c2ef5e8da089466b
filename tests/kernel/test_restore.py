"""A backup put back into an empty database and an empty bucket (`manage.py restore`), run with
the two roles production has; `restore_check` run with them too; checkpoints kept apart per
installation; backups that copy only what changed. Each once failed: the restore check needed
CREATEDB, nothing put the files back, the restored tables belonged to whoever restored them,
nothing ran ANALYZE, and a restored copy or a second database on the bucket was held to another
database's checkpoint and named as cut."""

import io
import re
import shutil
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection

from kernel import anchors, backups
from kernel.events import walk_chains
from kernel.models import Installation
from tests.impounding.factories import cow, make_entry, pay
from tests.kernel.test_backups import jpeg
from tests.kernel.test_deploy_procedure import (
    _env,
    _finish,
    _shell,
    _start,
    _superuser,
    _url,
    fresh,
)
from tests.kernel.test_signed_checkpoints import chain, forge_as_the_owner, signing_key
from tests.kernel.test_stored_files import s3, s3_endpoint

__all__ = ["chain", "fresh", "s3", "s3_endpoint", "signing_key"]  # fixtures used here
PASSWORD = "restore-test"

needs_pg_tools = pytest.mark.skipif(
    not shutil.which("pg_dump"), reason="needs PostgreSQL's client tools"
)


@pytest.mark.postgres
def test_two_databases_on_one_bucket_keep_separate_checkpoints(signing_key, chain):
    first = Installation.current()
    signed, problems = anchors.write_checkpoint()
    assert problems == [] and signed.heads[chain][0] == 5
    # A second database on the same bucket: its own installation, a shorter chain.
    Installation.objects.update(key="b" * 32)
    forge_as_the_owner(chain, cut=2)

    walk = walk_chains()
    assert walk.problems == [] and walk.signed_on is None  # not held to the first's checkpoint
    second, problems = anchors.write_checkpoint()
    assert problems == [] and second.heads[chain][0] == 3
    folders, _files = anchors.storage().listdir(anchors.PREFIX)
    assert sorted(folders) == sorted([first, "b" * 32])
    # The first database, with its chain cut, is still held to its own checkpoint.
    Installation.objects.update(key=first)
    assert [p[2].split(":")[0] for p in walk_chains().problems] == ["tail cut"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@needs_pg_tools
def test_a_backup_copies_only_the_files_that_changed(pound, pound_keeper, tariffs, tmp_path):
    for colour in ("a", "b"):
        photo = SimpleUploadedFile(f"{colour}.jpg", jpeg(), content_type="image/jpeg")
        make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=photo)])
    first = backups.backup(tmp_path / "one")
    assert first["copied"] == len(first["files"]) >= 2

    again = backups.backup(tmp_path / "one")  # over itself: nothing read again
    photo = SimpleUploadedFile("c.jpg", jpeg(), content_type="image/jpeg")
    make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=photo)])
    later = backups.backup(tmp_path / "two", previous=tmp_path / "one")

    assert again["copied"] == 0 and again["files"] == first["files"]
    assert later["copied"] == 1 and len(later["files"]) == len(first["files"]) + 1
    for name, entry in later["files"].items():
        assert (tmp_path / "two" / "files" / name).stat().st_size == entry["size"]


def _manage(argv, env):
    command = [sys.executable, str(Path(django_settings.BASE_DIR) / "manage.py"), *argv]
    return _finish(_start(command, env))


def _roles(name, owner, runtime):
    """README's once-only command on the empty database, then the two roles' passwords."""
    env = _env(DATABASE_URL=_url(connection.settings_dict["USER"], name), DATABASE_MIGRATE_URL="")
    env.setdefault("PGPASSWORD", connection.settings_dict["PASSWORD"] or "")
    code, _out, err = _manage(
        ["db_roles", "--create", "--take-ownership", "--owner", owner, "--runtime", runtime], env
    )
    assert code == 0, err
    with _superuser(name) as admin:
        for role in (owner, runtime):
            admin.execute(f"ALTER ROLE \"{role}\" PASSWORD '{PASSWORD}'")


def _backup_on_s3(pound, pound_keeper, target):
    photo = SimpleUploadedFile("cow.jpg", jpeg(), content_type="image/jpeg")
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(photo=photo)])
    pay(entry, pound_keeper)
    signed, problems = anchors.write_checkpoint()
    assert signed is not None and problems == []
    call_command("backup", str(target), stdout=io.StringIO())
    return entry.animals.get().photo.name, signed


def documented_restore(source, runtime):
    """docs/backups.md's restore command, for this backup and this runtime role."""
    text = (Path(django_settings.BASE_DIR) / "docs" / "backups.md").read_text()
    (block,) = re.findall(r"^ *```sh\n(.*?)^ *```$", text, re.S | re.M)
    assert "/srv/backups/poundadmin" in block and "poundadmin_app" in block
    return block.replace("/srv/backups/poundadmin", str(source)).replace("poundadmin_app", runtime)


def _production_env(name, owner, runtime, endpoint, bucket):
    """The two roles' URLs, as /etc/poundadmin/env has them, and an empty bucket."""
    return _env(
        DATABASE_URL=_url(runtime, name, PASSWORD),
        DATABASE_MIGRATE_URL=_url(owner, name, PASSWORD),
        S3_BUCKET=bucket,
        S3_ENDPOINT_URL=endpoint,
        S3_REGION="us-east-1",
        S3_ACCESS_KEY_ID="testing",
        S3_SECRET_ACCESS_KEY="testing",
        CHECKPOINT_SIGNING_KEY_FILE=django_settings.CHECKPOINT_SIGNING_KEY_FILE,
    )


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(900)
@needs_pg_tools
def test_a_backup_restores_into_an_empty_database_and_bucket_with_two_roles(
    fresh, s3, s3_endpoint, signing_key, pound, pound_keeper, tariffs, tmp_path
):
    name, owner, runtime = fresh
    client, _source_bucket = s3
    photo, signed = _backup_on_s3(pound, pound_keeper, tmp_path / "b")
    _roles(name, owner, runtime)
    empty = f"{name.replace('_', '-')}-restored"[:63]
    client.create_bucket(Bucket=empty)
    env = _production_env(name, owner, runtime, s3_endpoint, empty)

    code, out, err = _shell(documented_restore(tmp_path / "b", runtime), env)

    assert code == 0, out + err
    assert out.rstrip().endswith("restored and its checks pass.")
    assert f"holds the checkpoint signed on {signed.day:%Y-%m-%d}" in out  # the backup's own
    keys = {o["Key"] for o in client.list_objects_v2(Bucket=empty)["Contents"]}
    installation = Installation.current()
    assert photo in keys and f"{anchors.folder(installation)}/{signed.base_name}" in keys
    with _superuser(name) as admin:
        owners = admin.execute(
            "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE nspname = 'public' AND relkind IN ('r', 'S')"
        ).fetchall()
        assert owners == [(owner,)]
        grants = admin.execute(
            "SELECT has_table_privilege(%s, 'kernel_event', 'INSERT'), "
            "has_table_privilege(%s, 'kernel_event', 'UPDATE'), "
            "has_table_privilege(%s, 'impounding_impoundment', 'UPDATE')",
            [runtime] * 3,
        ).fetchone()
        assert grants == (True, False, True)
        unanalysed = admin.execute(
            "SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NULL"
        ).fetchall()
        assert unanalysed == []
        assert admin.execute("SELECT key FROM kernel_installation").fetchall() == [(installation,)]

    # restore_check, with the same two roles: the owner makes the scratch database.
    code, out, err = _manage(["restore_check", str(tmp_path / "b" / "database.dump")], env)

    assert code == 0, out + err
    assert out.rstrip().endswith("restores and its checks pass.")
    with _superuser() as admin:
        assert admin.execute(
            "SELECT rolcreatedb FROM pg_roles WHERE rolname = %s", [runtime]
        ).fetchone() == (False,)
