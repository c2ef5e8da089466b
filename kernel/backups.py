"""Backups: a consistent PostgreSQL dump together with every object in the storage, and a check
that a dump restores into a scratch database whose books and event chain hold.

pg_dump reads one snapshot (its own transaction), so the dump is consistent by itself. Files are
copied after it: a file uploaded in between is in the copy but not in the dump, which is harmless;
no file is ever changed or deleted in place (names are random, documents are kept), so none that
the dump names can be missing from the copy.
"""

import hashlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
from django.conf import settings
from django.core.files.storage import default_storage
from django.utils import timezone

ROOT = Path(settings.BASE_DIR)


def _db():
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        raise RuntimeError("Backups need PostgreSQL.")
    return db


def _pg_env(db):
    env = {**os.environ, "PGHOST": db.get("HOST") or "", "PGPORT": str(db.get("PORT") or "")}
    env["PGUSER"] = db.get("USER") or ""
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = db["PASSWORD"]
    return env


def _walk(storage, folder=""):
    folders, files = storage.listdir(folder)
    for name in files:
        yield f"{folder}/{name}" if folder else name
    for sub in folders:
        yield from _walk(storage, f"{folder}/{sub}" if folder else sub)


def backup(target):
    """Write <target>/database.dump, <target>/files/... and <target>/manifest.json."""
    db = _db()
    target = Path(target)
    (target / "files").mkdir(parents=True, exist_ok=True)
    dump = target / "database.dump"
    subprocess.run(
        ["pg_dump", "--format=custom", "--no-owner", "--file", str(dump), db["NAME"]],
        env=_pg_env(db),
        check=True,
        capture_output=True,
    )
    objects = {}
    for name in sorted(_walk(default_storage)):
        path = target / "files" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        with default_storage.open(name, "rb") as source, path.open("wb") as out:
            for chunk in iter(lambda: source.read(1 << 20), b""):
                digest.update(chunk)
                out.write(chunk)
        objects[name] = digest.hexdigest()
    manifest = {
        "made_at": timezone.now().isoformat(),
        "database": db["NAME"],
        "dump_sha256": hashlib.sha256(dump.read_bytes()).hexdigest(),
        "files": objects,
    }
    (target / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return manifest


def _admin_conninfo(db):
    return psycopg.conninfo.make_conninfo(
        host=db.get("HOST") or None,
        port=db.get("PORT") or None,
        user=db.get("USER") or None,
        password=db.get("PASSWORD") or None,
        dbname="postgres",
    )


def _manage(command, url):
    env = {**os.environ, "DATABASE_URL": url, "POUNDADMIN_READ_DOT_ENV": "false"}
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def restore_check(dump, *, keep=False):
    """Restore `dump` into a scratch database, run check_ledger and verify_chain on it, drop
    it (unless `keep`). Returns (ok, scratch database name, {command: output})."""
    db = _db()
    scratch = f"restore_check_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_admin_conninfo(db), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{scratch}"')
    try:
        subprocess.run(
            ["pg_restore", "--no-owner", "--exit-on-error", "--dbname", scratch, str(dump)],
            env=_pg_env(db),
            check=True,
            capture_output=True,
        )
        auth = db.get("USER") or ""
        if db.get("PASSWORD"):
            auth += f":{db['PASSWORD']}"
        url = (
            f"postgres://{auth}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{scratch}"
        )
        results = {name: _manage(name, url) for name in ("check_ledger", "verify_chain")}
    finally:
        if not keep:
            with psycopg.connect(_admin_conninfo(db), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
    ok = all(r.returncode == 0 for r in results.values())
    outputs = {name: (r.stdout + r.stderr).strip() for name, r in results.items()}
    return ok, scratch, outputs
