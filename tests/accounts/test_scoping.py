from datetime import date, timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts import services
from accounts.models import District, Pound
from accounts.roles import Permission, Role
from accounts.scoping import has_permission, visible_district_ids, visible_pound_ids
from tests.accounts.factories import PoundFactory, UserFactory, staff


def test_pound_keeper_sees_only_own_pound(pound_keeper, pound, other_pound):
    assert list(Pound.objects.for_user(pound_keeper)) == [pound]


def test_pound_keeper_may_record_at_own_pound_only(pound_keeper, pound, other_pound):
    assert has_permission(pound_keeper, Permission.RECORD_IMPOUNDMENT, pound)
    assert not has_permission(pound_keeper, Permission.RECORD_IMPOUNDMENT, other_pound)


def test_pound_keeper_may_not_manage_tariffs(pound_keeper, district):
    assert not has_permission(pound_keeper, Permission.MANAGE_TARIFFS, district)


def test_police_officer_sees_pounds_whose_nearest_station_is_his(police_officer, pound, district):
    elsewhere = PoundFactory(district=district)  # another station in the same district
    visible = set(Pound.objects.for_user(police_officer))
    assert pound in visible
    assert elsewhere not in visible


def test_dm_appointed_officer_for_named_pound(pound, district):
    named = PoundFactory(district=district)
    officer = staff(Role.POLICE_OFFICER, "appointed", pound=named)
    assert list(Pound.objects.for_user(officer)) == [named]
    assert has_permission(officer, Permission.HANDLE_UNCLAIMED, named)
    assert not has_permission(officer, Permission.HANDLE_UNCLAIMED, pound)


def test_magistrate_sees_every_pound_of_district_only(magistrate, pound, other_pound):
    assert list(Pound.objects.for_user(magistrate)) == [pound]
    assert has_permission(magistrate, Permission.APPROVE, pound)
    assert not has_permission(magistrate, Permission.APPROVE, other_pound)


def test_clerk_prepares_but_does_not_approve(dm_clerk, pound):
    assert has_permission(dm_clerk, Permission.PREPARE_ORDERS, pound)
    assert not has_permission(dm_clerk, Permission.APPROVE, pound)


def test_state_auditor_reads_every_district_but_changes_nothing(state, pound, other_pound):
    auditor = staff(Role.AUDITOR, "state_auditor", state=state)
    assert set(Pound.objects.for_user(auditor)) == {pound, other_pound}
    assert has_permission(auditor, Permission.VIEW_RECORDS, other_pound)
    for perm in (
        Permission.RECORD_IMPOUNDMENT,
        Permission.RELEASE_ANIMAL,
        Permission.APPROVE,
        Permission.RECORD_PAYMENT,
        Permission.MANAGE_TARIFFS,
    ):
        assert not has_permission(auditor, perm, pound)


def test_administrator_manages_staff_but_sees_no_records(administrator, pound):
    assert has_permission(administrator, Permission.MANAGE_STAFF)
    assert not has_permission(administrator, Permission.VIEW_RECORDS, pound)


def test_district_ids_for_pound_keeper_are_his_pounds_districts(pound_keeper, district):
    assert visible_district_ids(pound_keeper) == [district.pk]
    assert list(District.objects.for_user(pound_keeper)) == [district]


def test_ended_assignment_grants_nothing(pound, pound_keeper):
    assignment = pound_keeper.assignments.get()
    services.end_assignment(
        assignment=assignment,
        by=None,
        on=timezone.localdate() - timedelta(days=1),
        reason="Transferred",
    )
    assert not has_permission(pound_keeper, Permission.RECORD_IMPOUNDMENT, pound)
    assert visible_pound_ids(pound_keeper) == []


def test_future_assignment_grants_nothing_yet(pound):
    user = staff(Role.POUND_KEEPER, "future", pound=pound)
    user.assignments.update(valid_from=timezone.localdate() + timedelta(days=3))
    assert not has_permission(user, Permission.VIEW_RECORDS, pound)


def test_inactive_user_has_no_permissions(pound_keeper, pound):
    pound_keeper.is_active = False
    pound_keeper.save()
    assert not has_permission(pound_keeper, Permission.VIEW_RECORDS, pound)


def test_anonymous_user_has_no_permissions(pound):
    assert not has_permission(AnonymousUser(), Permission.VIEW_RECORDS, pound)


def test_grants_are_computed_once_per_request(pound_keeper, pound, django_assert_num_queries):
    has_permission(pound_keeper, Permission.VIEW_RECORDS, pound)
    with django_assert_num_queries(0):
        for _ in range(5):
            has_permission(pound_keeper, Permission.RECORD_IMPOUNDMENT, pound)


def test_permission_check_refuses_objects_without_jurisdiction(pound_keeper):
    with pytest.raises(TypeError):
        has_permission(pound_keeper, Permission.VIEW_RECORDS, object())


def test_assignment_scope_must_fit_role(pound, district):
    with pytest.raises(ValidationError):
        services.assign_role(
            user=UserFactory(),
            role=Role.POUND_KEEPER,
            by=None,
            valid_from=date(2025, 1, 1),
            district=district,
        )
    with pytest.raises(ValidationError):
        services.assign_role(
            user=UserFactory(),
            role=Role.MAGISTRATE,
            by=None,
            valid_from=date(2025, 1, 1),
            pound=pound,
        )
