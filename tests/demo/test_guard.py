"""`seed_demo` writes its users (and their printed password) only on a development or demo install,
and only on a database of its own; the demo app itself is installed only there (ADR 0049)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import override_settings

from accounts.models import State
from accounts.scoping import system_actor
from demo import guard
from demo import staff as demo
from tests.accounts.factories import UserFactory

ROOT = Path(__file__).resolve().parents[2]
User = get_user_model()

pytestmark = pytest.mark.django_db


@override_settings(DEBUG=False, DEMO=False)
def test_seed_demo_refuses_a_production_install_and_writes_nothing():
    with pytest.raises(CommandError, match="production install .DEBUG is off and DEMO is not"):
        call_command("seed_demo")
    assert not User.objects.exists() and not State.objects.exists()


@override_settings(DEBUG=False, DEMO=False)
def test_seed_scale_refuses_a_production_install():
    with pytest.raises(CommandError, match="production install"):
        call_command("seed_scale", entries=10)
    assert not User.objects.exists()


@pytest.mark.parametrize("switch", [{"DEBUG": True, "DEMO": False}, {"DEBUG": False, "DEMO": True}])
def test_either_switch_allows_the_demo_on_an_empty_database(switch):
    with override_settings(**switch):
        guard.check()


@override_settings(DEMO=True)
def test_seed_demo_refuses_a_database_with_a_user_of_its_own():
    UserFactory(username="r.sharma")

    with pytest.raises(CommandError, match=r"not the demo's \(user r\.sharma\)"):
        call_command("seed_demo")
    assert User.objects.count() == 1 and not State.objects.exists()


@override_settings(DEMO=True)
def test_a_real_admin_is_not_taken_for_the_demos():
    UserFactory(username="admin", email="collector@example.gov.in")

    with pytest.raises(CommandError, match="user admin"):
        call_command("seed_demo")


@override_settings(DEMO=True)
def test_seed_demo_refuses_a_database_with_a_district_of_its_own(district):
    with pytest.raises(guard.SeedRefused, match="district home") as refused:
        guard.check()
    assert "an empty database" in str(refused.value)


@override_settings(DEMO=True)
def test_a_refusal_lists_five_names_and_counts_the_rest():
    for n in range(7):
        UserFactory(username=f"clerk{n}")

    with pytest.raises(guard.SeedRefused, match="clerk4 and 2 more"):
        guard.check()


@override_settings(DEMO=True)
def test_the_demo_and_the_daily_runs_user_may_be_seeded_again():
    demo.seed_all()
    system_actor()

    guard.check()  # `make run` seeds on every start


def _manage(*args, **env):
    base = dict(os.environ, POUNDADMIN_READ_DOT_ENV="false", DEBUG="false")
    base.update(
        SECRET_KEY="p" * 30 + "Qz9!kL2#mN4$vB6^xC8&" + "r" * 20,
        ALLOWED_HOSTS="pounds.example.gov.in",
        PUBLIC_BASE_URL="https://pounds.example.gov.in",
    )
    base.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_production_install_has_no_demo_commands():
    result = _manage("seed_demo", DEMO="false")

    assert result.returncode != 0
    assert "Unknown command: 'seed_demo'" in result.stderr
    assert not User.objects.exists()


def test_demo_true_installs_the_demo_app_with_debug_off():
    result = _manage("help", "seed_demo", DEMO="true")

    assert result.returncode == 0, result.stderr
    assert "Refused unless DEBUG is on or DEMO=true" in result.stdout
