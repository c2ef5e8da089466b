"""Migrations say what they do (the reset before the first deployment, ADR 0044): no merge
migrations, no tracker codes in their names, no number used twice in an app. From the first
deployment on, migrations only add."""

import re
from collections import Counter

from django.db.migrations.loader import MigrationLoader

OURS = (
    "kernel",
    "accounts",
    "ledger",
    "rulepacks",
    "impounding",
    "auctions",
    "office",
    "api",
    "webhooks",
)
NAME = re.compile(r"^\d{4}_[a-z][a-z0-9_]*$")
# The tracker's codes once written into names: "h4", "i11", standing alone between underscores.
TRACKER = re.compile(r"(?:^|_)[hi]\d+(?:_|$)")


def _migrations():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return {key: m for key, m in loader.disk_migrations.items() if key[0] in OURS}


def test_each_name_says_what_it_does():
    bad = [
        f"{app}.{name}"
        for app, name in _migrations()
        if not NAME.match(name) or TRACKER.search(name[5:]) or "merge" in name
    ]
    assert bad == []


def test_no_merge_migrations_and_no_number_twice():
    migrations = _migrations()
    merges = [
        f"{app}.{name}"
        for (app, name), m in migrations.items()
        if sum(1 for dep_app, _n in m.dependencies if dep_app == app) > 1
    ]
    numbers = Counter((app, name[:4]) for app, name in migrations)
    assert merges == []
    assert [key for key, count in numbers.items() if count > 1] == []


def test_the_checks_see_a_tracker_code():
    assert TRACKER.search("h4_cache_table") and TRACKER.search("refuse_i11_truncate")
    assert not TRACKER.search("cache_table") and not TRACKER.search("s16_cases")
