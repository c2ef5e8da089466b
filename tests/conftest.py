"""Shared fixtures: users named after their roles, in a home district, plus an outsider.

`make test` (or `scripts/test ARGS`) runs the whole check; a bare `pytest` works too, with the
environment below and DATABASE_URL (SQLite when unset). Every test has database access.
"""

import os

# The suite runs with the production settings module but development secrets. Set before Django
# loads (so the settings module is named here, not in pyproject.toml: pytest-django would load it
# before this file); scripts/test exports the same values for its lint stage.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poundadmin.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production-0123456789")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
os.environ.setdefault("POUNDADMIN_READ_DOT_ENV", "false")
os.environ.setdefault("PUBLIC_BASE_URL", "http://127.0.0.1:8000")
# The key that seals the webhooks' secrets (ADR 0060): a fixed test key.
os.environ.setdefault("WEBHOOK_SECRET_KEYS", "dGVzdC1vbmx5LXdlYmhvb2sta2V5LTAxMjM0NTY3ODk=")
# The demo app installed (ADR 0049): the suite also tests seed_demo, seed_scale and their guard.
os.environ.setdefault("DEMO", "true")
# The admin on, for its own tests; its default, off, is tested in a fresh process
# (tests/test_settings.py).
os.environ.setdefault("ADMIN_ENABLED", "true")
# The test client and the live server speak plain HTTP on 127.0.0.1.
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("SECURE_COOKIES", "false")
# Static files come from the finders, unhashed: no collectstatic, no manifest, no staticfiles/.
os.environ.setdefault(
    "STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
)
# Playwright's sync API runs an event loop in the test thread; the ORM calls made by the same
# test are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

import django

django.setup()  # the imports below reach the models

import shutil

import pytest
import time_machine
from django.conf import settings
from django.db import connections
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from accounts.roles import Role
from tests import flush
from tests.accounts.factories import (
    DistrictFactory,
    PoliceStationFactory,
    PoundFactory,
    PoundVillageFactory,
    StateFactory,
    force_login_with_second_factor,
    staff,
)
from tests.impounding.factories import set_tariffs

IN_CI = os.environ.get("CI", "").lower() in ("true", "1")
# No test depends on the machine's speed: Hypothesis neither times each example (its deadline)
# nor fails a test whose inputs came slowly because the other core was busy (a health check).
# A test's own @settings still choose its examples; they inherit these two.
hypothesis_settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("suite")
ON_POSTGRES = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
)
# Seconds before pytest-timeout fails a browser test; the others have pyproject.toml's `timeout`.
# A browser test walks a whole workflow through many pages, and Playwright's own waits are 30 s.
BROWSER_TIMEOUT = 240
# The files marked `slow` as a whole (with every browser test): the Hypothesis state machines,
# Schemathesis over the API, the two app servers and the image. `make test-quick` leaves them out.
SLOW_FILES = {"test_properties.py", "test_schemathesis.py", "test_two_servers.py", "test_image.py"}


def pytest_configure(config):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # whitenoise serves from the finders, looking each file up when asked (as in development),
    # so it neither needs nor warns about a missing staticfiles/.
    settings.WHITENOISE_USE_FINDERS = settings.WHITENOISE_AUTOREFRESH = True
    # The read replica's alias, a mirror of `default` as DATABASE_REPLICA_URL would make it
    # (ADR 0054). The router leaves it alone unless a test sets REPLICA_DATABASE; a test that
    # does declares `databases={"default", "replica"}`.
    if "replica" not in settings.DATABASES:
        mirror = {**settings.DATABASES["default"], "TEST": {"MIRROR": "default"}}
        settings.DATABASES["replica"] = mirror
        vars(connections).pop("settings", None)  # read the aliases again, if read already
    if IN_CI and not ON_POSTGRES:
        raise pytest.UsageError("CI must run the suite on PostgreSQL (DATABASE_URL).")
    if ON_POSTGRES:
        flush.install()  # a transactional test's flush deletes, not truncates (tests/flush.py)


def pytest_collection_modifyitems(config, items):
    skip_pg = pytest.mark.skip(reason="needs PostgreSQL (SQLite fallback in use)")
    skip_browser = pytest.mark.skip(reason="needs /usr/bin/chromium")
    for item in items:
        if "browser" in item.keywords or item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
        if "postgres" in item.keywords and not ON_POSTGRES:
            item.add_marker(skip_pg)
        if "browser" in item.keywords and not CHROMIUM:
            if IN_CI:
                raise pytest.UsageError("CI must run the browser tests: Chromium is missing.")
            item.add_marker(skip_browser)
        if "browser" in item.keywords and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(BROWSER_TIMEOUT))


def pytest_terminal_summary(terminalreporter):
    _schemathesis_summary(terminalreporter)
    skipped = terminalreporter.stats.get("skipped", [])
    if skipped:
        terminalreporter.section("NOTICE: skipped tests", sep="=", bold=True, yellow=True)
        reasons = {}
        for report in skipped:
            reason = (
                report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            )
            reasons[reason] = reasons.get(reason, 0) + 1
        for reason, count in sorted(reasons.items()):
            terminalreporter.write_line(f"{count:4d} skipped: {reason}")


def _schemathesis_summary(terminalreporter):
    """tests/api/test_schemathesis.py's counts, added up over the tokens (and the workers)."""
    runs = [
        dict(report.user_properties)
        for report in terminalreporter.stats.get("passed", [])
        + terminalreporter.stats.get("failed", [])
        if report.when == "call" and "schemathesis_cases" in dict(report.user_properties)
    ]
    if runs:
        operations = max(r["schemathesis_operations"] for r in runs)
        cases = sum(r["schemathesis_cases"] for r in runs)
        terminalreporter.write_line(
            f"Schemathesis: {operations} operations, {len(runs)} tokens, {cases} cases"
        )


@pytest.fixture(autouse=True)
def force_login_gives_the_second_factor(monkeypatch):
    """`client.force_login(user)` signs in with both factors (tests/accounts/factories.py):
    the tests of the rule use `password_only_login`."""
    monkeypatch.setattr(Client, "force_login", force_login_with_second_factor)


@pytest.fixture(autouse=True)
def enable_db_access_for_all_tests(db):
    pass


@pytest.fixture(autouse=True)
def fresh_rule_packs():
    """Each test reads the rule packs of its own database: a pack kept by id in an earlier
    test (rulepacks.services) may have had that id in a database since flushed."""
    from rulepacks.services import forget_packs

    forget_packs()


@pytest.fixture(autouse=True)
def midday_ist(request):
    """Every test runs at 12:00 IST on today's date, with the clock ticking, so that "two hours
    ago" is still today whenever CI happens to run. A test that takes the `time_machine` fixture
    sets its own clock instead; one marked `real_clock` keeps the real one, because another
    process it starts on the same database (a second app server, a worker) keeps it too."""
    if "time_machine" in request.fixturenames or request.node.get_closest_marker("real_clock"):
        yield
        return
    noon = timezone.localtime().replace(hour=12, minute=0, second=0, microsecond=0)
    with time_machine.travel(noon, tick=True):
        yield


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    """Photos and scans go to a scratch directory, not the checkout's media/."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def tariffs(district):
    """The demo fine scale and feeding rates, in force in the home district."""
    return set_tariffs(district)


@pytest.fixture
def state():
    return StateFactory()


@pytest.fixture
def district(state):
    return DistrictFactory(state=state, code="home", name="Home District", name_hi="गृह ज़िला")


@pytest.fixture
def police_station(district):
    return PoliceStationFactory(district=district)


@pytest.fixture
def pound(district, police_station):
    p = PoundFactory(district=district, nearest_police_station=police_station)
    PoundVillageFactory(pound=p)
    return p


@pytest.fixture
def other_district(state):
    return DistrictFactory(state=state, code="other", name="Other District", name_hi="अन्य ज़िला")


@pytest.fixture
def other_pound(other_district):
    return PoundFactory(district=other_district)


@pytest.fixture
def pound_keeper(pound):
    return staff(Role.POUND_KEEPER, "pound_keeper", pound=pound)


@pytest.fixture
def police_officer(police_station):
    return staff(Role.POLICE_OFFICER, "police_officer", police_station=police_station)


@pytest.fixture
def dm_clerk(district):
    return staff(Role.DM_CLERK, "dm_clerk", district=district)


@pytest.fixture
def magistrate(district):
    return staff(Role.MAGISTRATE, "magistrate", district=district)


@pytest.fixture
def auditor(district):
    return staff(Role.AUDITOR, "auditor", district=district)


@pytest.fixture
def administrator():
    user = staff(Role.ADMINISTRATOR, "administrator")
    user.is_staff = user.is_superuser = True
    user.save()
    return user


@pytest.fixture
def outsider(other_pound):
    """A pound-keeper of another district: everything of the home district is a 404 to him."""
    return staff(Role.POUND_KEEPER, "outsider", pound=other_pound)


@pytest.fixture
def role_users(
    pound_keeper, police_officer, dm_clerk, magistrate, auditor, administrator, outsider
):
    return {
        "pound_keeper": pound_keeper,
        "police_officer": police_officer,
        "dm_clerk": dm_clerk,
        "magistrate": magistrate,
        "auditor": auditor,
        "administrator": administrator,
        "outsider": outsider,
    }
