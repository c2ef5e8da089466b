"""The releases, each marked by the last migration of every app of the project it ships
(docs/operations.md, "Releases"). Cutting a release adds an entry here, in the same commit as
its tag `release-N`; the upgrade test (tests/kernel/test_upgrade.py) migrates a fresh database
to the previous release's migrations, fills it through the models of that schema, and migrates
it to the head. The next commit records the release's own commit in its entry: the old-code
test (tests/kernel/test_old_code.py) runs that commit's code on the head's schema.

An app missing from an entry did not exist in that release.
"""

from dataclasses import dataclass

# The apps whose migrations the project writes, in the order of the floors.
APPS = (
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


@dataclass(frozen=True)
class Release:
    number: int
    note: str
    migrations: dict[str, str]
    # The commit the release deployed (its tag's); empty for release 0, never deployed.
    commit: str = ""

    def nodes(self):
        return sorted(self.migrations.items())


RELEASES = (
    Release(
        0,
        "The migrations as reset before the first deployment (ADR 0044); never deployed, kept "
        "as the schema the first upgrade test starts from.",
        {
            "kernel": "0003_cache_table",
            "accounts": "0001_initial",
            "ledger": "0002_append_only_books",
            "impounding": "0003_register_search_trigrams",
            "auctions": "0002_animal_ends_recorded",
            "office": "0001_initial",
            "api": "0001_initial",
        },
    ),
    Release(
        1,
        "The first deployment.",
        {
            "kernel": "0006_installation",
            "accounts": "0002_staffevent_second_factor",
            "ledger": "0002_append_only_books",
            "impounding": "0009_feeding_log_once_per_form_key",
            "auctions": "0006_proclamation_once_per_form_key",
            "office": "0002_surplus_claim_once_per_form_key",
            "api": "0002_webhooks_moved_to_their_own_app",
            "webhooks": "0001_initial",
        },
        commit="f1d2055e24734ba71d03834749416cc744323d1e",
    ),
)


def head(graph):
    """{app: last migration} of the project's apps in a migration graph (the code's head)."""
    return {app: name for app, name in graph.leaf_nodes() if app in APPS}


def previous(graph):
    """The release an upgrade to the code's head starts from: the newest release behind the
    head (the last one cut, once a migration is added after it; the one before, while the head
    is the newest release itself)."""
    now = head(graph)
    behind = [release for release in RELEASES if release.migrations != now]
    return behind[-1] if behind else None
