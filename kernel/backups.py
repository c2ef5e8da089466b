"""Backups: a consistent PostgreSQL dump together with every object in the storage and this
database's signed checkpoints, and a check that a dump restores into a scratch database whose
books and event chain hold (`kernel/restoring.py` puts a backup back).

pg_dump reads one snapshot (its own transaction), so the dump is consistent by itself. Files are
copied after it: a file uploaded in between is in the copy but not in the dump, which is harmless;
no file is ever changed or deleted in place (names are random, documents are kept), so none that
the dump names can be missing from the copy. For the same reason a backup copies only the
objects the previous backup's manifest does not list with the same size and tag (the S3 ETag, or
the file's modification time): the rest are linked from the previous backup, or kept when the
backup is written over the previous one. The copies run on a pool of BACKUP_THREADS threads
(docs/backups.md).
"""

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from pathlib import Path

import psycopg
from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.db import connections
from django.utils import timezone

from . import anchors
from .models import Installation

ROOT = Path(settings.BASE_DIR)
BATCH = 10_000  # objects handed to the pool at a time, so millions never sit in memory at once


def _db(alias="default"):
    db = settings.DATABASES[alias]
    if db["ENGINE"] != "django.db.backends.postgresql":
        raise RuntimeError("Backups need PostgreSQL.")
    return db


def owner_alias():
    """The connection that owns the tables: `owner` (DATABASE_MIGRATE_URL) when set."""
    return "owner" if "owner" in connections.settings else "default"


def pg_env(db):
    env = {**os.environ, "PGHOST": db.get("HOST") or "", "PGPORT": str(db.get("PORT") or "")}
    env["PGUSER"] = db.get("USER") or ""
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = db["PASSWORD"]
    return env


def db_url(db, name=None):
    auth = db.get("USER") or ""
    if db.get("PASSWORD"):
        auth += f":{db['PASSWORD']}"
    host, port = db.get("HOST") or "127.0.0.1", db.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{name or db['NAME']}"


# --- Listing and copying objects -------------------------------------------------------------


def _walk(storage, folder=""):
    folders, files = storage.listdir(folder)
    for name in files:
        yield f"{folder}/{name}" if folder else name
    for sub in folders:
        yield from _walk(storage, f"{folder}/{sub}" if folder else sub)


def listing(storage):
    """(name, size, tag) of every stored object, without reading one: the bucket's own listing
    on S3 (a request a thousand objects, the ETag as tag), the file system's stat otherwise."""
    bucket = getattr(storage, "bucket", None)
    if bucket is not None:
        for summary in bucket.objects.all():
            yield summary.key, summary.size, summary.e_tag.strip('"')
    elif isinstance(storage, FileSystemStorage):
        root = Path(storage.location)
        for folder, _dirs, files in os.walk(root):
            for file in files:
                path = Path(folder) / file
                stat = path.stat()
                yield path.relative_to(root).as_posix(), stat.st_size, str(stat.st_mtime_ns)
    else:
        for name in _walk(storage):
            yield name, storage.size(name), None


def pooled(work, items, threads=None):
    """Run `work` on every item on a pool of threads, a batch at a time; the results in order."""
    items = iter(items)
    with ThreadPoolExecutor(max_workers=threads or settings.BACKUP_THREADS) as pool:
        while batch := list(islice(items, BATCH)):
            yield from pool.map(work, batch)


def _read(storage, name):
    """The object's bytes as a stream: on S3 one GET (the storage's own `open` asks first)."""
    bucket = getattr(storage, "bucket", None)
    if bucket is not None:
        return bucket.meta.client.get_object(Bucket=bucket.name, Key=name)["Body"]
    return storage.open(name, "rb")


def _download(storage, name, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with contextlib.closing(_read(storage, name)) as source, path.open("wb") as out:
        for chunk in iter(lambda: source.read(1 << 20), b""):
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def _previous(previous):
    """The previous backup's directory and its manifest's files ({} when none)."""
    if previous is None or not (Path(previous) / "manifest.json").exists():
        return None, {}
    files = json.loads((Path(previous) / "manifest.json").read_text()).get("files", {})
    return Path(previous), {k: v for k, v in files.items() if isinstance(v, dict)}


def copy_files(storage, target, previous=None):
    """Copy every object of `storage` into <target>/files. Returns ({name: entry}, copied)."""
    before, known = _previous(previous)
    files = Path(target) / "files"

    def one(item):
        name, size, tag = item
        path, old = files / name, known.get(name)
        if old and old["size"] == size and old.get("tag") == tag and tag is not None:
            kept = before / "files" / name
            if kept.exists() and kept != path:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.unlink(missing_ok=True)
                try:
                    os.link(kept, path)
                except OSError:
                    shutil.copyfile(kept, path)
            if path.exists():
                return name, old, False
        entry = {"size": size, "tag": tag, "sha256": _download(storage, name, path)}
        return name, entry, True

    objects, copied = {}, 0
    for name, entry, fresh in pooled(one, listing(storage)):
        objects[name] = entry
        copied += fresh
    return objects, copied


def copy_checkpoints(target):
    """Copy this database's signed checkpoints into <target>/checkpoints/<installation>/. A
    checkpoint is never changed once signed, so one the target holds whole (it reads as JSON:
    an interrupted copy does not) is not read again: up to 24 are signed a day."""
    store, names = anchors.storage(), anchors.checkpoint_names()
    for name in names:
        if not _whole(Path(target) / name):
            _download(store, name, Path(target) / name)
    return names


def _whole(path):
    try:
        return bool(json.loads(path.read_text()).get("signature"))
    except (OSError, ValueError, AttributeError):
        return False


def backup(target, *, previous=None):
    """Write <target>/database.dump, <target>/files/..., <target>/checkpoints/... and
    <target>/manifest.json. Objects `previous` (a backup directory; by default `target` itself)
    lists unchanged are not read again."""
    db = _db()
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    dump = target / "database.dump"
    subprocess.run(
        ["pg_dump", "--format=custom", "--no-owner", "--file", str(dump), db["NAME"]],
        env=pg_env(db),
        check=True,
        capture_output=True,
    )
    objects, copied = copy_files(default_storage, target, previous or target)
    manifest = {
        "made_at": timezone.now().isoformat(),
        "database": db["NAME"],
        "installation": Installation.current(),
        "dump_sha256": hashlib.sha256(dump.read_bytes()).hexdigest(),
        "files": objects,
        "copied": copied,
        "checkpoints": copy_checkpoints(target),
    }
    (target / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return manifest


# --- restore_check ---------------------------------------------------------------------------


def _manage(argv, url):
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DATABASE_MIGRATE_URL": "",
        "POUNDADMIN_READ_DOT_ENV": "false",
    }
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def _admin(db):
    return psycopg.connect(db_url(db), autocommit=True)


def restore_check(dump, *, keep=False):
    """Restore `dump` into a scratch database, run check_ledger and verify_chain on it (held to
    the backup's own signed checkpoints), drop it (unless `keep`). Runs as the owner role
    (DATABASE_MIGRATE_URL), which `db_roles --create` lets create databases; the runtime role
    never can. Returns (ok, scratch database name, {command: output})."""
    from .restoring import pg_restore  # restoring imports this module

    db = _db(owner_alias())
    scratch = f"restore_check_{uuid.uuid4().hex[:12]}"
    with _admin(db) as conn:
        conn.execute(f'CREATE DATABASE "{scratch}"')
    try:
        pg_restore(dump, {**db, "NAME": scratch})
        url, signed = db_url(db, scratch), str(Path(dump).parent)
        results = {
            "check_ledger": _manage(["check_ledger"], url),
            "verify_chain": _manage(["verify_chain", "--all", "--checkpoints", signed], url),
        }
    finally:
        if not keep:
            with _admin(db) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
    ok = all(r.returncode == 0 for r in results.values())
    outputs = {name: (r.stdout + r.stderr).strip() for name, r in results.items()}
    return ok, scratch, outputs
