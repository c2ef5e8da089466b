"""Service tokens (docs/decisions/0041): made by the administrator for a role and a jurisdiction
with an expiry date; scoped by the same grants as a member of staff in that role; refused once
expired or revoked; their account cannot sign in."""

import re
from datetime import datetime, time, timedelta

import pytest
import time_machine
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken, StaffAssignment, StaffEvent, User
from accounts.roles import Permission, Role
from accounts.scoping import has_permission
from accounts.services import create_api_token, create_service_token, revoke_service_token
from tests.accounts.factories import PoundFactory, staff
from tests.impounding.factories import make_entry

ENTRIES = "/api/v1/entries/"
PAGE = "accounts:service_tokens"


def service_token(by, role, days=30, **place):
    token, secret = create_service_token(
        by=by,
        name="State dashboard",
        role=role,
        expires_on=timezone.localdate() + timedelta(days=days),
        **place,
    )
    return token, {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def _problem(response, status):
    assert response.status_code == status
    assert response["Content-Type"] == "application/problem+json"
    return response.json()


def test_district_token_sees_its_district_and_another_is_404(
    client, administrator, district, pound, other_pound, pound_keeper, outsider
):
    own = make_entry(pound=pound, by=pound_keeper)
    theirs = make_entry(pound=other_pound, by=outsider)
    _token, headers = service_token(administrator, Role.DM_CLERK, district=district)

    listed = client.get(ENTRIES, **headers).json()["results"]

    assert [e["id"] for e in listed] == [own.pk]
    assert client.get(f"{ENTRIES}{own.pk}/", **headers).status_code == 200
    _problem(client.get(f"{ENTRIES}{theirs.pk}/", **headers), 404)


def test_police_token_reads_what_a_police_officer_reads_on_the_screens(
    client, administrator, district, pound, pound_keeper
):
    """Pound-scoped police: another pound of the same district is a 404 to the token, as the
    register screen is to an officer appointed to the same pound; and no ledger, no entries."""
    next_door = PoundFactory(district=district)
    own = make_entry(pound=pound, by=pound_keeper)
    neighbours = make_entry(pound=next_door, by=staff(Role.POUND_KEEPER, pound=next_door))
    token, headers = service_token(administrator, Role.POLICE_OFFICER, pound=pound)
    officer = staff(Role.POLICE_OFFICER, "officer_of_the_pound", pound=pound)
    client.force_login(officer)

    for entry, status in ((own, 200), (neighbours, 404)):
        screen = client.get(reverse("impounding:entry", args=[entry.pk]))
        api = client.get(f"{ENTRIES}{entry.pk}/", **headers)
        assert (screen.status_code, api.status_code) == (status, status)
    account = token.user
    assert not has_permission(account, Permission.VIEW_LEDGER)
    assert not has_permission(account, Permission.RECORD_IMPOUNDMENT, pound)
    assert has_permission(account, Permission.HANDLE_UNCLAIMED, pound)


def test_token_is_refused_after_its_expiry_date(client, administrator, district):
    token, headers = service_token(administrator, Role.AUDITOR, days=3, district=district)
    last_day = timezone.localdate() + timedelta(days=3)
    assert token.last_day == last_day
    day_starts = timezone.make_aware(datetime.combine(last_day, time.min))
    with time_machine.travel(day_starts + timedelta(hours=23, minutes=59)):
        assert client.get(ENTRIES, **headers).status_code == 200
    with time_machine.travel(day_starts + timedelta(days=1, seconds=1)):
        body = _problem(client.get(ENTRIES, **headers), 401)
    assert body["title"] == "The token is not valid."


def test_revoked_token_is_401_and_the_account_ends(client, administrator, district):
    token, headers = service_token(administrator, Role.AUDITOR, district=district)
    assert client.get(ENTRIES, **headers).status_code == 200

    revoke_service_token(token=token, by=administrator)
    revoke_service_token(token=token, by=administrator)  # again: nothing more happens

    _problem(client.get(ENTRIES, **headers), 401)
    account = User.objects.get(pk=token.user_id)
    assert not account.is_active
    assert StaffAssignment.objects.get(user=account).valid_to == timezone.localdate()
    actions = list(StaffEvent.objects.filter(user=account).values_list("action", "by"))
    assert sorted(actions) == sorted(
        [
            ("assigned", administrator.pk),
            ("token_created", administrator.pk),
            ("token_revoked", administrator.pk),
            ("ended", administrator.pk),
        ]
    )


def test_service_account_cannot_sign_in_even_given_a_password(client, administrator, district):
    token, _headers = service_token(administrator, Role.AUDITOR, district=district)
    account = token.user
    assert account.is_service_account and not account.has_usable_password()
    login = reverse("login")
    client.post(login, {"username": account.username, "password": ""})
    assert "_auth_user_id" not in client.session
    account.set_password("a long password 1")
    account.save()
    response = client.post(login, {"username": account.username, "password": "a long password 1"})
    assert response.status_code == 200  # the form again, with its error
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("user", ["pound_keeper", "dm_clerk", "magistrate", "auditor", "outsider"])
def test_only_the_administrator_opens_the_page(client, role_users, user):
    client.force_login(role_users[user])
    assert client.get(reverse(PAGE)).status_code == 403


def test_page_makes_a_token_shows_its_secret_once_and_lists_it(client, administrator, district):
    client.force_login(administrator)
    form = {
        "name": "Treasury e-challan",
        "role": Role.DM_CLERK,
        "district": district.pk,
        "expires_on": (timezone.localdate() + timedelta(days=90)).isoformat(),
        "rate_per_minute": "30",
        "idempotency_key": "0b8e3a55-3c1a-4f6b-9a55-1d0ad2d1c0a1",
    }
    first = client.post(reverse(PAGE), form)
    again = client.post(reverse(PAGE), form)

    assert first.status_code == 200 and "pa_" in first.content.decode()
    assert again.status_code == 302
    token = ApiToken.objects.get()
    assert token.user.is_service_account and token.rate_per_minute == 30
    assert token.user.assignments.get().district == district
    listing = client.get(reverse(PAGE)).content.decode()
    assert "Treasury e-challan" in listing and token.hint in listing
    assert token.digest not in listing and "pa_" not in listing.replace(token.hint, "")


def test_page_shows_errors_for_a_bad_form(client, administrator, district, pound):
    client.force_login(administrator)
    form = {
        "name": "Dashboard",
        "role": Role.POUND_KEEPER,
        "district": district.pk,  # a pound-keeper is appointed to a pound
        "expires_on": timezone.localdate().isoformat(),  # not after today
        "idempotency_key": "0b8e3a55-3c1a-4f6b-9a55-1d0ad2d1c0a2",
    }
    response = client.post(reverse(PAGE), form)
    assert response.status_code == 200
    assert "The expiry date must be after today." in response.content.decode()
    assert "data-error-summary" in response.content.decode()
    form["expires_on"] = (timezone.localdate() + timedelta(days=10)).isoformat()
    response = client.post(reverse(PAGE), form)
    assert "A Pound-keeper is assigned to a Pound." in response.content.decode()
    form["pound"] = pound.pk
    response = client.post(reverse(PAGE), form)
    assert "Choose one jurisdiction" in response.content.decode()
    assert not ApiToken.objects.exists() and not User.objects.filter(is_service_account=True)


def test_service_refuses_administrator_role_long_expiry_and_other_states(
    administrator, district, state
):
    today = timezone.localdate()
    with pytest.raises(ValidationError) as refused:
        create_service_token(
            by=administrator,
            name="x",
            role=Role.ADMINISTRATOR,
            expires_on=today + timedelta(days=400),
            district=district,
        )
    assert set(refused.value.message_dict) == {"role", "expires_on"}
    clerk = staff(Role.DM_CLERK, district=district)
    with pytest.raises(PermissionDenied):
        create_service_token(
            by=clerk,
            name="x",
            role=Role.AUDITOR,
            expires_on=today + timedelta(days=5),
            district=district,
        )


def test_page_revokes_by_post_only(client, administrator, district):
    token, headers = service_token(administrator, Role.AUDITOR, district=district)
    client.force_login(administrator)
    url = reverse("accounts:service_token_revoke", args=[token.pk])
    assert client.get(url).status_code == 405
    assert client.post(url).status_code == 302
    assert ApiToken.objects.get().revoked_at is not None
    _problem(client.get(ENTRIES, **headers), 401)


def test_personal_token_is_not_revoked_on_the_service_page(client, administrator, pound_keeper):
    personal, _secret = create_api_token(user=pound_keeper, name="mine")
    client.force_login(administrator)
    url = reverse("accounts:service_token_revoke", args=[personal.pk])
    assert client.post(url).status_code == 404
    assert ApiToken.objects.get().revoked_at is None


def test_admin_lists_tokens_read_only_without_their_digest(client, administrator, district):
    token, _headers = service_token(administrator, Role.AUDITOR, district=district)
    client.force_login(administrator)
    listing = client.get(reverse("admin:accounts_apitoken_changelist"))
    page = client.get(reverse("admin:accounts_apitoken_change", args=[token.pk]))
    assert listing.status_code == 200 and token.hint in listing.content.decode()
    assert token.digest not in listing.content.decode() + page.content.decode()
    assert client.get(reverse("admin:accounts_apitoken_add")).status_code == 403


def test_office_home_counts_people_not_the_service_accounts(client, administrator, district):
    client.force_login(administrator)
    before = client.get(reverse("home")).context
    service_token(administrator, Role.DM_CLERK, district=district)
    after = client.get(reverse("home")).context
    assert (after["staff_count"], after["assignment_count"]) == (
        before["staff_count"],
        before["assignment_count"],
    )
    page = client.get(reverse("home")).content.decode()
    assert reverse("webhooks:list") in page and reverse(PAGE) in page


def test_police_token_for_a_police_station_reads_its_pounds(
    client, administrator, pound, police_station, pound_keeper, other_pound, outsider
):
    """The police's CCTNS is appointed as an officer is: to a police station, and reads the
    entries of the pounds the station serves; another district's is a 404."""
    own = make_entry(pound=pound, by=pound_keeper)
    theirs = make_entry(pound=other_pound, by=outsider)
    client.force_login(administrator)
    form = {
        "name": "CCTNS",
        "role": Role.POLICE_OFFICER,
        "police_station": police_station.pk,
        "expires_on": (timezone.localdate() + timedelta(days=90)).isoformat(),
        "idempotency_key": "0b8e3a55-3c1a-4f6b-9a55-1d0ad2d1c0a9",
    }
    page = client.post(reverse(PAGE), form).content.decode()
    secret = max(re.findall(r"pa_[A-Za-z0-9_-]+", page), key=len)  # shown once
    client.logout()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}

    assert ApiToken.objects.get().user.assignments.get().police_station == police_station
    assert client.get(f"{ENTRIES}{own.pk}/", **headers).status_code == 200
    _problem(client.get(f"{ENTRIES}{theirs.pk}/", **headers), 404)
