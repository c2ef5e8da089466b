"""A database with data from the previous release's schema upgrades to the head
(docs/operations.md, "Releases"; kernel/releases.py).

tests/kernel/upgrade_scenario.py runs in a process of its own on an empty database of the
test's: it migrates to the previous release, fills the register, a release on payment with its
receipt, the ledger and the event chain through that schema's models, migrates to the head with
`manage.py migrate`, runs `check_ledger --full` and `verify_chain --full`, and reads the main
pages of the pound and the office."""

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db.migrations.loader import MigrationLoader

from kernel.releases import APPS, RELEASES, head, previous
from tests.test_migrations import OURS

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


def test_the_releases_name_migrations_that_exist_in_order():
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    assert set(APPS) == set(OURS)
    numbers = [release.number for release in RELEASES]
    assert numbers == sorted(set(numbers))
    for older, newer in zip(RELEASES, RELEASES[1:], strict=False):
        assert set(older.migrations) <= set(newer.migrations) <= set(APPS)
        for node in newer.nodes():
            assert node in graph.nodes, f"release {newer.number}: {node} is no migration"
        for node in older.nodes():
            assert node in graph.forwards_plan((node[0], newer.migrations[node[0]]))
    # An app added since the newest release (rulepacks) is not in it yet; every app it names
    # still exists.
    assert set(RELEASES[-1].migrations) <= set(head(graph)), "the newest release's apps exist"
    assert previous(graph) is not None


def test_the_previous_release_is_the_newest_behind_the_head():
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    newest = RELEASES[-1]
    if newest.migrations == head(graph):
        assert previous(graph) == RELEASES[-2]
    else:
        assert previous(graph) == newest  # migrations added since the last release


def test_a_database_of_the_previous_release_upgrades_with_its_data(empty_database):
    env = {key: value for key, value in os.environ.items() if not key.startswith("DATABASE_")}
    env |= {"DATABASE_URL": empty_database}
    done = subprocess.run(
        [sys.executable, "-m", "tests.kernel.upgrade_scenario"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{done.stdout[-4000:]}{done.stderr[-6000:]}"
    facts = json.loads(done.stdout.splitlines()[-1])
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    assert facts["release"] == previous(graph).number
    assert facts["entries"] == 3
    assert facts["check_ledger"]["exit"] == 0, facts["check_ledger"]["output"]
    assert facts["verify_chain"]["exit"] == 0, facts["verify_chain"]["output"]
    assert "every balance agrees" in facts["check_ledger"]["output"]
    assert "4 events: every link holds" in facts["verify_chain"]["output"]
    for page, (status, _shows) in facts["pages"].items():
        assert status == 200, page
    # The upgraded register, and the released entry's money, read as today's code shows them.
    assert facts["pages"]["impounding:register"][1] and facts["pages"]["impounding:entry"][1]
    assert facts["pages"]["office:money_trail"][1]
