"""`make bench` finds the routes itself (ADR 0064): on a tiny scale set, every route of the URL
map and every operation of the API's schema is either timed for some role or named with the
reason it is not, so a new page cannot be left out of the bench silently."""

import importlib.util
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

# The walk asks every route as seven roles: a few minutes on a loaded 2-core machine.
pytestmark = [pytest.mark.postgres, pytest.mark.timeout(900)]


def _bench_routes():
    path = Path(settings.BASE_DIR) / "scripts" / "bench_routes.py"
    spec = importlib.util.spec_from_file_location("bench_routes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


routes = _bench_routes()


@pytest.fixture(scope="module")
def found(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        call_command("seed_scale", entries=40, pounds=2, districts=1, seed=3, stdout=StringIO())
        try:
            yield routes.discover()
        finally:
            # The module's data is committed; the other tests expect an empty database.
            call_command("flush", verbosity=0, interactive=False)


def test_every_route_is_timed_or_named_with_a_reason(found):
    api, writes = routes.api_routes()
    every = {r.key for r in routes.web_routes()} | {r.key for r in api} | set(writes)
    timed = {row["key"] for row in found.timed}

    neither = every - timed - set(found.untimed)

    assert neither == set()
    assert all(reason.strip() for reason in found.untimed.values())
    assert not timed & set(found.untimed), "a route is timed or has a reason, not both"


def test_each_role_has_its_pages_timed_with_their_query_counts(found):
    timed = {(row["key"], row["role"]): row for row in found.timed}

    for key, role in [
        ("impounding:register", "keeper"),
        ("impounding:today", "keeper"),
        ("office:office", "magistrate"),
        ("office:returns", "clerk"),
        ("impounding:register", "auditor"),
        ("accounts:staff", "administrator"),
        ("board", "public"),
        ("api GET /api/v1/entries/", "keeper"),
        ("api GET /api/v1/entries/{pk}/", "keeper"),
    ]:
        assert (key, role) in timed, (key, role)
        assert timed[key, role]["bytes"] > 0
    assert timed["impounding:register", "keeper"]["queries"] > 0
    assert ("impounding:register", "public") not in timed  # signed in only


def test_a_route_with_an_object_is_timed_with_a_row_from_the_database(found):
    entry = next(r for r in found.timed if (r["key"], r["role"]) == ("impounding:entry", "keeper"))

    assert entry["url"].startswith("/pound/entries/") and entry["url"] != "/pound/entries/<pk>/"
    kinds = {r["label"]: r["kind"] for r in found.timed if r["key"] == "office:monthly_return"}
    assert kinds == {
        "office:monthly_return .pdf": "document",
        "office:monthly_return .csv": "export",
    }


def test_a_forms_post_and_a_missing_row_are_named(found):
    assert "405" in found.untimed["office:prepare"]
    assert "write" in found.untimed["api POST /api/v1/entries/"]
    missing = [reason for reason in found.untimed.values() if "no row" in reason]
    assert missing, "the tiny set holds no webhook, auction or s.16 case"
