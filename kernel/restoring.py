"""Putting a backup (`kernel/backups.py`) back into an empty database and an empty bucket, run
as the owner role (README.md, "Database roles"; docs/backups.md).

The tables are restored by the owner, so the owner owns them and the runtime role owns nothing;
the runtime role's grants are set afresh (`kernel/dbroles.py`); ANALYZE gives the planner its
statistics, which pg_restore does not carry (an export on an unanalysed copy ran for minutes
instead of seconds); the files and this database's signed checkpoints go back into the storage;
and the books and every chain are checked, the chains against the backup's own checkpoints.
"""

import json
import subprocess
import tempfile
from pathlib import Path

from django.core.files import File
from django.core.files.storage import FileSystemStorage, default_storage
from django.core.management import call_command
from django.db import connections, transaction

from . import anchors, dbroles
from .backups import listing, owner_alias, pg_env, pooled


class RestoreRefused(Exception):
    """The backup cannot go where it was asked to: the database is not empty, or it is
    incomplete."""


def pg_restore(dump, db):
    """Restore `dump` into the database `db` names, as `db`'s role, which then owns every table.
    The extensions are left out of the dump's list (only a superuser may create or comment on
    them: `db_roles --create` made them) and created here only where they are missing and the
    role may (a scratch database it owns); the privileges are set afresh afterwards."""
    env = pg_env(db)
    with tempfile.NamedTemporaryFile("w", suffix=".list") as entries:
        listed = subprocess.run(
            ["pg_restore", "--list", str(dump)], env=env, check=True, capture_output=True
        ).stdout.decode()
        entries.write("\n".join(e for e in listed.splitlines() if " EXTENSION " not in e))
        entries.flush()
        for name in dbroles.EXTENSIONS:
            subprocess.run(
                ["psql", "-qc", f'CREATE EXTENSION IF NOT EXISTS "{name}"', db["NAME"]],
                env=env,
                check=True,
                capture_output=True,
            )
        subprocess.run(
            ["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error"]
            + ["--use-list", entries.name, "--dbname", db["NAME"], str(dump)],
            env=env,
            check=True,
            capture_output=True,
        )


def _tables(connection):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')"
        )
        return cursor.fetchone()[0]


def restore_database(source, *, runtime):
    """pg_restore, the runtime role's grants and ANALYZE, on the owner's connection."""
    using = owner_alias()
    connection = connections[using]
    if _tables(connection):
        raise RestoreRefused(f"database {connection.settings_dict['NAME']} is not empty")
    pg_restore(Path(source) / "database.dump", connection.settings_dict)
    with transaction.atomic(using=using), connection.cursor() as cursor:
        for statement in dbroles.runtime_grants_sql(runtime=runtime, connection=connection):
            cursor.execute(statement)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return dbroles.owned_by(runtime, using=using)


def put_files(source, storage=None):
    """Upload <source>/files into the storage, on a pool of threads; objects it already holds
    with the same size are left (a restore stopped half-way runs again). Returns the count
    uploaded."""
    storage = storage or default_storage
    root = Path(source) / "files"
    names = json.loads((Path(source) / "manifest.json").read_text())["files"]
    held = {name: size for name, size, _tag in listing(storage)}

    def one(name):
        path = root / name
        if not path.exists():
            raise RestoreRefused(f"{name} is in the manifest but not in the backup")
        if held.get(name) == path.stat().st_size:
            return 0
        with path.open("rb") as handle:
            saved = storage.save(name, File(handle, name=name))
        if saved != name:
            raise RestoreRefused(f"{name} was stored as {saved}")
        return 1

    return sum(pooled(one, names))


def put_checkpoints(source):
    """This database's signed checkpoints, from the backup into the checkpoints' storage (the
    same objects as the files' when the checkpoints have no storage of their own)."""
    backed, store, done = FileSystemStorage(location=str(source)), anchors.storage(), 0
    for name in anchors.checkpoint_names(backed):
        if not store.exists(name):
            with backed.open(name, "rb") as handle:
                store.save(name, File(handle, name=name))
            done += 1
    return done


def check(source, out):
    """check_ledger and verify_chain --all on the restored database, the chains held to the
    backup's own checkpoints. True when both pass."""
    ok = True
    for argv in (["check_ledger"], ["verify_chain", "--all", "--checkpoints", str(source)]):
        try:
            call_command(*argv, stdout=out, stderr=out)
        except SystemExit as stop:
            ok = ok and not stop.code
    return ok
