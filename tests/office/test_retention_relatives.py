"""The retention rule for declared relatives (s.19, docs/retention.md): a member of staff who
left the service (every appointment ended) more than `RETENTION_RELATIVES_YEARS` ago loses her
declaration; one still serving, or gone more recently, keeps hers; each erasure is a staff
event, and a second run finds nothing to do."""

from datetime import date, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts import services
from accounts.models import DeclaredRelative, StaffEvent
from accounts.roles import Role
from accounts.scoping import system_actor
from office.retention import apply_retention
from tests.accounts.factories import staff


def declare(user, name):
    return services.declare_relative(user=user, by=user, name=name, relation="sibling")


def left_on(user, day):
    user.assignments.update(valid_from=date(2010, 1, 1), valid_to=day)


@pytest.fixture
def period(settings):
    settings.RETENTION_RELATIVES_YEARS = 3
    return 3


def test_a_departed_staff_members_declaration_is_erased_after_the_period(pound, period):
    today = timezone.localdate()
    long_gone = staff(Role.POUND_KEEPER, "long-gone", pound=pound)
    recently_gone = staff(Role.POUND_KEEPER, "recently-gone", pound=pound)
    serving = staff(Role.POUND_KEEPER, "serving", pound=pound)
    for user in (long_gone, recently_gone, serving):
        declare(user, f"Brother of {user.username}")
        declare(user, f"Sister of {user.username}")
    left_on(long_gone, today - timedelta(days=365 * period + 2))
    left_on(recently_gone, today - timedelta(days=365 * period - 30))

    out = StringIO()
    call_command("apply_retention", stdout=out)

    assert "declared relatives 2" in out.getvalue()
    kept = set(DeclaredRelative.objects.values_list("user__username", flat=True))
    assert kept == {"recently-gone", "serving"}
    event = StaffEvent.objects.get(action=StaffEvent.Action.RELATIVES_ERASED)
    assert (event.user, event.by) == (long_gone, system_actor())
    assert "DPDP" in event.note

    assert apply_retention(by=system_actor())["declared_relatives"] == 0
    assert StaffEvent.objects.filter(action=StaffEvent.Action.RELATIVES_ERASED).count() == 1


def test_one_appointment_still_in_force_keeps_the_declaration(pound, district, period):
    user = staff(Role.POUND_KEEPER, "moved", pound=pound)
    left_on(user, date(2015, 1, 1))
    user.assignments.create(role=Role.DM_CLERK, district=district, valid_from=date(2015, 1, 2))
    declare(user, "Brother of moved")

    assert apply_retention(by=system_actor())["declared_relatives"] == 0
    assert DeclaredRelative.objects.count() == 1


def test_the_period_is_the_states_setting(pound, settings):
    user = staff(Role.POUND_KEEPER, "gone", pound=pound)
    declare(user, "Brother of gone")
    left_on(user, timezone.localdate() - timedelta(days=365 * 5))

    settings.RETENTION_RELATIVES_YEARS = 6
    assert apply_retention(by=system_actor())["declared_relatives"] == 0
    settings.RETENTION_RELATIVES_YEARS = 4
    assert apply_retention(by=system_actor())["declared_relatives"] == 1
