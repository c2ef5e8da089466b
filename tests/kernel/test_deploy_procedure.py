"""README.md's production procedure ("Database roles"), run word for word as subprocesses on a
fresh database with two roles, then every documented job as the runtime role on it, and two
`migrate` commands at once (docs/operations.md). Each once hung or failed: the owner's migrate
waited for ever on itself through the runtime role's connection, two migrates at once met on a
duplicate key, and `check_ledger --full` and `apply_retention` were refused DELETE."""

import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

README = Path(settings.BASE_DIR) / "README.md"
# What the README writes, and what each stands for here.
SUPERUSER_URL = "postgres://postgres@db.internal:5432/poundadmin"
OWNER, RUNTIME = "poundadmin_owner", "poundadmin_app"
SECONDS = 180  # each command, far above the 12-25 s a fresh migrate takes on a loaded 2-core box
PASSWORD = "deploy-test"


def readme_commands():
    """The two shell blocks of README.md's "Database roles": once as a superuser (the roles, then
    production's settings), every deploy."""
    section = README.read_text().split("\n## Database roles\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)
    assert len(blocks) == 2, "README's Database roles: the superuser's block, then the deploy's"
    once, deploy = blocks
    assert SUPERUSER_URL in once and OWNER in once and RUNTIME in once
    return once, deploy


def documented_jobs(backups):
    """Every job the deployment runs as the application: each timer's unit's commands (README,
    "In production", the timers' table), as manage.py's arguments; the backup writes into
    `backups`."""
    deploy = Path(settings.BASE_DIR) / "deploy"
    jobs = []
    for timer in sorted(deploy.glob("poundadmin-*.timer")):
        unit = timer.with_suffix(".service").read_text()
        for line in unit.splitlines():
            if line.startswith("ExecStart="):
                job = line.split(" manage.py ", 1)[1].rstrip("'")
                jobs.append(f"backup {backups}" if job.startswith("backup ") else job)
    readme = README.read_text()
    assert all(job.split()[0] in readme for job in jobs), jobs
    needed = {"run_deadlines", "check_ledger --full", "verify_chain --full", "apply_retention"}
    needed |= {"prune_idempotency_keys", "sweep_payments"}  # the retention and payments timers
    needed |= {"send_owner_messages"}  # the owners' messages (ADR 0077)
    assert needed <= set(jobs), jobs
    return list(dict.fromkeys(jobs))


def _url(user, database, password=None):
    s = connection.settings_dict
    secret = f":{password}" if password else ""
    return f"postgres://{user}{secret}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{database}"


def _superuser(database="postgres"):
    s = connection.settings_dict
    return psycopg.connect(
        dbname=database,
        user=s["USER"],
        password=s["PASSWORD"] or None,
        host=s["HOST"] or None,
        port=s["PORT"] or None,
        autocommit=True,
    )


@pytest.fixture
def fresh():
    """An empty database and two role names of its own (roles are cluster-wide)."""
    base = re.sub(r"[^a-z0-9_]", "_", connection.settings_dict["NAME"].lower())[:40]
    name, owner, runtime = f"{base}_fresh", f"{base}_own", f"{base}_app"
    with _superuser() as admin:
        if not admin.execute(
            "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
        ).fetchone()[0]:
            pytest.skip("creating roles and extensions needs a superuser")
        _drop(admin, name, owner, runtime)
        admin.execute(f'CREATE DATABASE "{name}"')
    yield name, owner, runtime
    with _superuser() as admin:
        _drop(admin, name, owner, runtime)


def _drop(admin, name, *roles):
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    for role in roles:
        admin.execute(f'DROP ROLE IF EXISTS "{role}"')


def _env(**urls):
    """The production settings (no demo app) with the given database URLs."""
    return {**os.environ, "DEBUG": "false", "DEMO": "false", **urls}


def _start(argv, env):
    return subprocess.Popen(
        argv,
        env=env,
        cwd=settings.BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, killed whole if it hangs
    )


def _finish(process):
    """Wait for `process` at most SECONDS; a hang kills it with its children and fails."""
    try:
        out, err = process.communicate(timeout=SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"{process.args} did not finish in {SECONDS} s:\n{out[-2000:]}{err[-2000:]}")
    return process.returncode, out, err


def _shell(script, env):
    """Run README lines in bash, `manage.py` being this checkout's, on this interpreter."""
    prelude = f'manage.py() {{ "{sys.executable}" "{settings.BASE_DIR / "manage.py"}" "$@"; }}\n'
    return _finish(_start(["bash", "-euo", "pipefail", "-c", prelude + script], env))


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_readmes_production_commands_finish_with_two_roles(fresh, tmp_path):
    name, owner, runtime = fresh
    once, deploy = (
        block.replace(SUPERUSER_URL, _url(connection.settings_dict["USER"], name))
        .replace(OWNER, owner)
        .replace(RUNTIME, runtime)
        for block in readme_commands()
    )
    superuser = connection.settings_dict["PASSWORD"] or ""
    code, _out, err = _shell(once, _env(PGPASSWORD=superuser))
    assert code == 0, err
    with _superuser(name) as admin:  # production's settings, for every new connection
        assert admin.execute("SHOW jit").fetchone() == ("off",)
        assert admin.execute("SHOW random_page_cost").fetchone() == ("1.1",)
    with _superuser(name) as admin:  # "set each role's password afterwards"
        for role in (owner, runtime):
            admin.execute(f"ALTER ROLE \"{role}\" PASSWORD '{PASSWORD}'")

    code, _out, err = _shell(
        deploy,
        _env(
            DATABASE_URL=_url(runtime, name, PASSWORD),
            DATABASE_MIGRATE_URL=_url(owner, name, PASSWORD),
        ),
    )

    assert code == 0, err
    with _superuser(name) as admin:
        owners = admin.execute(
            "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE nspname = 'public' AND relkind IN ('r', 'S')"
        ).fetchall()
        assert owners == [(owner,)]
        assert admin.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'").fetchone()
        valid = admin.execute(
            "SELECT bool_and(indisvalid) FROM pg_index i JOIN pg_class c ON c.oid = indexrelid "
            "WHERE relname LIKE 'impoundment_%%_trgm'"
        ).fetchone()[0]
        assert valid is True
    with psycopg.connect(_url(runtime, name, PASSWORD)) as app:
        assert app.execute("SELECT count(*) FROM impounding_impoundment").fetchone() == (0,)

    # Every documented job, as the runtime role alone (no owner connection configured).
    media = str(tmp_path / "media")
    runtime_env = _env(DATABASE_URL=_url(runtime, name, PASSWORD), MEDIA_ROOT=media)
    runtime_env.pop("DATABASE_MIGRATE_URL", None)
    # "The app's own connections run without JIT whatever the database says" (README).
    with _superuser(name) as admin:
        admin.execute(f'ALTER DATABASE "{name}" SET jit = on')
    show = "from django.db import connection as c; print(c.cursor().execute('SHOW jit').fetchone())"
    code, out, err = _shell(f"manage.py shell -c {shlex.quote(show)}", runtime_env)
    assert code == 0 and "('off',)" in out, err[-2000:]
    with _superuser(name) as admin:
        admin.execute(f'ALTER DATABASE "{name}" SET jit = off')
    # A document kept by what it says two months ago: the retention job sweeps it (README).
    old_kept = Path(media, "kept", "statement", "ab", "ab12.pdf")
    old_kept.parent.mkdir(parents=True)
    old_kept.write_bytes(b"%PDF-")
    os.utime(old_kept, (0, 0))
    # A delivery report no message claimed, a month old: deleted by the retention job after
    # MESSAGING_EARLY_REPORT_DAYS (README, "Messages to owners", step 5), as the runtime role.
    with psycopg.connect(_url(runtime, name, PASSWORD)) as app:
        app.execute(
            "INSERT INTO messaging_earlyreport (provider, provider_id, delivered, status, "
            "received_at) VALUES ('nic', 'unclaimed-1', true, 'DELIVRD', "
            "now() - interval '30 days')"
        )
    for job in documented_jobs(tmp_path / "backup"):
        code, out, err = _shell(f"manage.py {shlex.join(job.split())}", runtime_env)
        assert code == 0, f"{job} as the runtime role: {out[-1000:]}{err[-2000:]}"
        if job == "apply_retention":
            assert "kept documents 1" in out, out
            assert "lost reports 0" in out, out  # lapsed reports erased (ADR 0079)
            assert "tag lookups 0" in out, out  # the registry's month-old answers (ADR 0078)
            assert "early delivery reports 1" in out, out  # unclaimed reports (ADR 0084)
        if job == "prune_idempotency_keys":  # the runtime role may delete the old keys
            assert "prune_idempotency_keys: keys 0" in out, out
        if job == "sweep_payments":  # nothing was paid online: nothing to ask the gateway
            assert "sweep_payments: 0 payment(s) asked about, 0 settled" in out, out
        if job == "send_owner_messages":  # no auction tomorrow, nothing queued
            assert "0 message(s) tried" in out, out
    assert not old_kept.exists()
    with psycopg.connect(_url(runtime, name, PASSWORD)) as app:
        assert app.execute("SELECT count(*) FROM messaging_earlyreport").fetchone() == (0,)


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_two_migrates_at_once_both_succeed_and_record_each_migration_once(fresh):
    name, _owner, _runtime = fresh
    env = _env(DATABASE_URL=_url(connection.settings_dict["USER"], name))
    env.setdefault("PGPASSWORD", connection.settings_dict["PASSWORD"] or "")
    command = [sys.executable, str(settings.BASE_DIR / "manage.py"), "migrate", "--noinput"]
    both = [_finish(process) for process in [_start(command, env), _start(command, env)]]

    assert [code for code, _out, _err in both] == [0, 0], [err for _c, _o, err in both]
    assert sum("No migrations to apply" in out for _code, out, _err in both) == 1
    with _superuser(name) as admin:
        twice = admin.execute(
            "SELECT app, name FROM django_migrations GROUP BY app, name HAVING count(*) > 1"
        ).fetchall()
    assert twice == []


def test_the_release_unit_runs_the_readmes_deploy_commands():
    unit = (Path(settings.BASE_DIR) / "deploy" / "poundadmin-migrate.service").read_text()
    ran = [
        line.split(" manage.py ", 1)[1].replace(" --noinput", "")
        for line in unit.splitlines()
        if line.startswith("ExecStart=")
    ]
    _once, deploy = readme_commands()
    assert ran == [command.strip().removeprefix("manage.py ") for command in deploy.split("&&")]
