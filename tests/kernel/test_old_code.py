"""The previous release's code on the head's schema: expand, then contract (docs/operations.md,
"Old code on the new schema"; ADR 0062).

During a deployment the release step migrates the database, then the servers restart one by
one: in between, the previous release's code serves requests on the new schema. This test
extracts that release's commit (kernel/releases.py) from the repository's history with
`git archive`, migrates an empty database to the head with the head's code, then runs the old
code there with this virtualenv (tests/kernel/old_code_walk.py, `write`): its own services write
register entries, feeding, a release on payment with its receipt, a court's order, the unclaimed
animals' notices and an auction; its `check_ledger --full` and `verify_chain --full` agree; its
main pages answer. Then the head's code checks and reads what the old code wrote (`read`).

A migration that adds a NOT NULL column without a database default, drops or renames a column
the old code reads, or tightens a rule the old code breaks fails it. It needs the history: a
shallow clone fails here, naming the fix, and fetches nothing.
"""

import io
import json
import os
import re
import subprocess
import sys
import tarfile
from importlib import metadata
from pathlib import Path

import pytest
from django.conf import settings
from django.db.migrations.loader import MigrationLoader

from kernel.releases import RELEASES, previous

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

WALK = Path(__file__).with_name("old_code_walk.py")
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)


def git(*args):
    return subprocess.run(
        ["git", "-C", str(settings.BASE_DIR), *args], capture_output=True, timeout=60
    )


def release_tree(release, into):
    """The release's commit, extracted into `into` from this checkout's history."""
    assert release.commit, (
        f"Release {release.number} records no commit in kernel/releases.py: add the commit its "
        f"tag release-{release.number} names (`git rev-parse release-{release.number}`)."
    )
    found = git("cat-file", "-e", f"{release.commit}^{{commit}}")
    if found.returncode != 0:
        shallow = git("rev-parse", "--is-shallow-repository").stdout.decode().strip()
        pytest.fail(
            f"Release {release.number}'s commit {release.commit} is not in this checkout's "
            f"history ({'a shallow clone' if shallow == 'true' else 'no such commit'}; "
            f"{found.stderr.decode().strip() or 'git found nothing'}). The test fetches nothing: "
            "run it from a full clone (`git clone` without --depth, or `git fetch --unshallow` "
            "once)."
        )
    archive = git("archive", "--format=tar", release.commit)
    assert archive.returncode == 0, archive.stderr.decode()
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def pins_unlike_this_virtualenv(tree):
    """The packages the release's runtime lock pins at a version this virtualenv does not have
    (the walk uses nothing of the development lock but the test client's helpers)."""
    unlike = []
    for name, version in PIN.findall((tree / "requirements.lock").read_text()):
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            unlike.append(f"{name}=={version} (here: {installed or 'missing'})")
    return unlike


def run(args, *, cwd, database, media, python=sys.executable):
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_", "PYTHON")) and key != "MEDIA_ROOT"
    }
    env |= {"DATABASE_URL": database, "MEDIA_ROOT": str(media)}
    done = subprocess.run(
        [python, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, f"{args[:2]} in {cwd}:\n{done.stdout[-4000:]}{done.stderr[-6000:]}"
    return done.stdout


def walk(mode, *, cwd, database, media, python=sys.executable):
    out = run(
        ["-c", WALK.read_text(), mode], cwd=cwd, database=database, media=media, python=python
    )
    return json.loads(next(line for line in out.splitlines() if line.startswith('{"code"')))


def assert_sound(facts, code):
    assert Path(facts["code"]).resolve() == Path(code).resolve(), "another tree's code ran"
    assert facts["check_ledger"]["exit"] == 0, facts["check_ledger"]["output"]
    assert "every balance agrees" in facts["check_ledger"]["output"]
    assert facts["verify_chain"]["exit"] == 0, facts["verify_chain"]["output"]
    assert "every link holds" in facts["verify_chain"]["output"]
    failed = {page: status for page, status in facts["pages"].items() if status != 200}
    assert not failed, failed


def test_the_release_whose_code_serves_during_an_upgrade_records_its_commit():
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    release = previous(graph)
    assert re.fullmatch(r"[0-9a-f]{40}", release.commit), release
    for older in RELEASES[1:]:
        assert older.commit == "" or re.fullmatch(r"[0-9a-f]{40}", older.commit), older.number


def test_the_previous_release_runs_on_the_heads_schema(empty_database, tmp_path):
    release = previous(MigrationLoader(None, ignore_no_migrations=True).graph)
    old = release_tree(release, tmp_path / f"release-{release.number}")
    # The old servers keep their own virtualenv during an upgrade: the old code runs here with
    # this one only while the release's runtime lock is this one's.
    python = os.environ.get("POUNDADMIN_RELEASE_PYTHON")
    unlike = [] if python else pins_unlike_this_virtualenv(old)
    assert not unlike, (
        f"Release {release.number}'s requirements.lock pins packages this virtualenv does not "
        f"have, so its code cannot run with it: {', '.join(unlike)}. Build its virtualenv "
        f"(git worktree add DIR {release.commit}; DIR/scripts/bootstrap dev) and set "
        "POUNDADMIN_RELEASE_PYTHON=DIR/.venv/bin/python (docs/operations.md)."
    )
    media = tmp_path / "media"
    run(["manage.py", "migrate", "--noinput", "-v0"], cwd=settings.BASE_DIR,
        database=empty_database, media=media)  # fmt: skip

    wrote = walk("write", cwd=old, database=empty_database, media=media,
                 python=python or sys.executable)  # fmt: skip
    assert_sound(wrote, old)
    assert wrote["seeded"]["entries"] >= 8 and wrote["seeded"]["unclaimed"] >= 1, wrote["seeded"]

    read = walk("read", cwd=settings.BASE_DIR, database=empty_database, media=media)
    assert_sound(read, settings.BASE_DIR)
    assert read["check_ledger"]["output"] == wrote["check_ledger"]["output"]
    assert read["verify_chain"]["output"] == wrote["verify_chain"]["output"]
