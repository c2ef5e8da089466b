"""The second factor (docs/decisions/0053-second-factor.md): the roles over money and orders
cannot go past the password alone; a code is asked of whoever has an authenticator; recovery
codes work once; an administrator's reset is recorded and mailed."""

import pytest
from django.urls import reverse
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tasks_db.models import DBTaskResult

from accounts import twofactor
from accounts.actions import Action
from accounts.models import StaffEvent
from accounts.roles import Role
from kernel.models import Event
from tests.accounts.factories import (
    UserFactory,
    confirmed_authenticator,
    password_only_login,
    staff,
    totp_code,
)

REQUIRED = ["magistrate", "dm_clerk", "auditor", "administrator"]
HOME = "/"


@pytest.mark.parametrize("role", REQUIRED)
def test_role_over_money_without_authenticator_is_sent_to_set_one_up(client, role_users, role):
    password_only_login(client, role_users[role])

    response = client.get(HOME)

    assert response.status_code == 302
    assert response["Location"] == f"{reverse('accounts:second_factor_setup')}?next=/"


@pytest.mark.parametrize("role", REQUIRED)
def test_role_over_money_with_authenticator_is_asked_for_its_code(client, role_users, role):
    confirmed_authenticator(role_users[role])
    password_only_login(client, role_users[role])

    response = client.get(HOME)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:second_factor") + "?next=")


@pytest.mark.parametrize("role", REQUIRED)
def test_role_over_money_refused_on_a_post_before_the_code(client, role_users, role):
    password_only_login(client, role_users[role])

    response = client.post(reverse("accounts:api_tokens"), {"name": "x"})

    assert response.status_code == 302
    assert not role_users[role].api_tokens.exists()


def test_pound_keeper_without_authenticator_signs_in_with_the_password(client, pound_keeper):
    password_only_login(client, pound_keeper)

    assert client.get(HOME).status_code == 200


def test_pound_keeper_who_added_an_authenticator_is_asked_for_its_code(client, pound_keeper):
    confirmed_authenticator(pound_keeper)
    password_only_login(client, pound_keeper)

    response = client.get(HOME)

    assert response["Location"].startswith(reverse("accounts:second_factor"))


def test_roles_requiring_the_second_factor_are_the_ones_over_money_and_orders():
    assert {str(r) for r in twofactor.SECOND_FACTOR_ROLES} == {
        Role.MAGISTRATE,
        Role.DM_CLERK,
        Role.AUDITOR,
        Role.ADMINISTRATOR,
    }


def test_public_pages_api_and_sign_out_stay_open_before_the_code(client, magistrate):
    password_only_login(client, magistrate)

    assert client.get(reverse("board")).status_code == 200
    assert client.get("/api/v1/entries/").status_code == 401  # bearer tokens only
    assert client.get(reverse("accounts:session_ping")).status_code == 204
    client.post(reverse("logout"))
    assert "_auth_user_id" not in client.session


def test_setup_page_shows_the_qr_code_and_the_key_as_text(client, magistrate):
    password_only_login(client, magistrate)

    response = client.get(reverse("accounts:second_factor_setup"))

    device = TOTPDevice.objects.get(user=magistrate)
    assert not device.confirmed
    assert "<svg" in response.text
    assert response.context["key"].replace(" ", "") in device.config_url
    # The same pending device, so the same QR code, when the page is shown again.
    client.get(reverse("accounts:second_factor_setup"))
    assert TOTPDevice.objects.filter(user=magistrate).count() == 1


def test_setup_refuses_a_wrong_code_beside_the_field(client, magistrate):
    password_only_login(client, magistrate)
    client.get(reverse("accounts:second_factor_setup"))

    response = client.post(reverse("accounts:second_factor_setup"), {"code": "12345"})

    assert response.status_code == 200
    assert response.context["form"].errors["code"]
    assert 'href="#id_code"' in response.text  # the error summary links to the field
    assert not TOTPDevice.objects.filter(user=magistrate, confirmed=True).exists()


def test_setup_confirmed_by_a_code_gives_ten_recovery_codes_shown_once(client, magistrate):
    password_only_login(client, magistrate)
    client.get(reverse("accounts:second_factor_setup") + "?next=/office/")
    device = TOTPDevice.objects.get(user=magistrate)

    response = client.post(
        reverse("accounts:second_factor_setup"), {"code": totp_code(device), "next": "/office/"}
    )

    assert response["Location"] == reverse("accounts:second_factor_codes") + "?next=%2Foffice%2F"
    device.refresh_from_db()
    assert device.confirmed
    stored = StaticToken.objects.filter(device__user=magistrate)
    tokens = set(stored.values_list("token", flat=True))
    assert len(tokens) == 10
    codes = client.session["second_factor_recovery_codes"]
    shown = client.get(response["Location"])
    assert all(code in shown.text for code in codes)
    # The database keeps keyed hashes of the codes, never the codes.
    assert {twofactor.stored_recovery_code(code) for code in codes} == tokens
    assert not tokens & set(codes)
    assert client.get(HOME).status_code == 200  # verified by the setting up
    again = client.get(reverse("accounts:second_factor_codes"))
    assert again["Location"] == reverse("accounts:profile")
    assert StaffEvent.objects.filter(
        user=magistrate, action=StaffEvent.Action.FACTOR_SET_UP
    ).exists()


def test_someone_with_the_password_alone_cannot_replace_the_authenticator(client, magistrate):
    confirmed_authenticator(magistrate)
    password_only_login(client, magistrate)

    response = client.get(reverse("accounts:second_factor_setup"))

    assert response["Location"].startswith(reverse("accounts:second_factor"))
    assert TOTPDevice.objects.filter(user=magistrate).count() == 1


def test_the_authenticators_code_lets_the_user_in_and_goes_on_to_next(client, magistrate):
    device = confirmed_authenticator(magistrate)
    password_only_login(client, magistrate)

    response = client.post(
        reverse("accounts:second_factor"), {"code": totp_code(device), "next": "/office/"}
    )

    assert response["Location"] == "/office/"
    assert client.get(HOME).status_code == 200


def test_a_code_is_not_taken_twice(client, magistrate):
    device = confirmed_authenticator(magistrate)
    code = totp_code(device)
    password_only_login(client, magistrate)
    client.post(reverse("accounts:second_factor"), {"code": code})
    client.logout()
    password_only_login(client, magistrate)

    response = client.post(reverse("accounts:second_factor"), {"code": code})

    assert response.status_code == 200
    assert response.context["form"].errors["code"]


def test_a_wrong_code_is_refused_and_counted(client, magistrate):
    device = confirmed_authenticator(magistrate)
    password_only_login(client, magistrate)
    wrong = f"{(int(totp_code(device)) + 1) % 1000000:06d}"

    response = client.post(reverse("accounts:second_factor"), {"code": wrong})

    assert response.status_code == 200
    assert "error-summary" in response.text
    device.refresh_from_db()
    assert device.throttling_failure_count == 1
    assert client.get(HOME).status_code == 302


def test_an_external_next_is_not_followed(client, magistrate):
    device = confirmed_authenticator(magistrate)
    password_only_login(client, magistrate)

    response = client.post(
        reverse("accounts:second_factor"),
        {"code": totp_code(device), "next": "https://evil.example/"},
    )

    assert response["Location"] == "/"


def test_a_recovery_code_works_once(client, magistrate):
    confirmed_authenticator(magistrate)
    code = twofactor.new_recovery_codes(user=magistrate)[0]
    password_only_login(client, magistrate)

    response = client.post(reverse("accounts:second_factor"), {"code": code.upper()})

    assert response["Location"] == "/"
    assert StaticToken.objects.filter(device__user=magistrate).count() == 9
    client.logout()
    password_only_login(client, magistrate)
    again = client.post(reverse("accounts:second_factor"), {"code": code})
    assert again.status_code == 200 and again.context["form"].errors["code"]


def test_new_recovery_codes_replace_the_old(client, magistrate):
    client.force_login(magistrate)
    old = set(twofactor.new_recovery_codes(user=magistrate))

    response = client.post(reverse("accounts:second_factor_new_codes"))

    assert response["Location"] == reverse("accounts:second_factor_codes")
    new = set(StaticToken.objects.filter(device__user=magistrate).values_list("token", flat=True))
    assert len(new) == 10 and not ({twofactor.stored_recovery_code(c) for c in old} & new)


def test_anyone_may_add_an_authenticator_from_the_account_page(client, pound_keeper):
    client.force_login(pound_keeper)

    page = client.get(reverse("accounts:profile"))

    assert reverse("accounts:second_factor_setup") in page.text


# --- An administrator resets a lost factor ----------------------------------------------


def test_administrator_resets_a_lost_factor_recorded_and_mailed(
    client, administrator, magistrate, django_capture_on_commit_callbacks, mailoutbox
):
    magistrate.email = "dm@example.gov.in"
    magistrate.save()
    confirmed_authenticator(magistrate)
    twofactor.new_recovery_codes(user=magistrate)
    client.force_login(administrator)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("accounts:second_factor_reset", args=[magistrate.pk]))

    assert response["Location"] == reverse("accounts:staff")
    assert not TOTPDevice.objects.filter(user=magistrate).exists()
    assert not StaticDevice.objects.filter(user=magistrate).exists()
    staff_event = StaffEvent.objects.get(user=magistrate, action=StaffEvent.Action.FACTOR_RESET)
    assert staff_event.by == administrator
    event = Event.objects.get(action=Action.SECOND_FACTOR_RESET)
    assert (
        event.by_id == administrator.pk
        and event.district_id == magistrate.assignments.get().district_id
    )
    assert event.data["user"] == magistrate.pk
    task = DBTaskResult.objects.get(task_path="accounts.twofactor.mail_second_factor_reset")
    assert task.args_kwargs["args"] == [magistrate.pk]
    assert twofactor.mail_second_factor_reset.call(magistrate.pk) is True
    assert mailoutbox[0].to == ["dm@example.gov.in"]
    assert "reset" in mailoutbox[0].subject


def test_after_a_reset_the_user_sets_a_new_authenticator_up(client, administrator, magistrate):
    confirmed_authenticator(magistrate)
    twofactor.reset_second_factor(user=magistrate, by=administrator)
    password_only_login(client, magistrate)

    response = client.get(HOME)

    assert response["Location"].startswith(reverse("accounts:second_factor_setup"))


def test_only_an_administrator_resets_and_never_their_own(client, administrator, dm_clerk):
    confirmed_authenticator(dm_clerk)
    confirmed_authenticator(administrator)
    client.force_login(dm_clerk)
    url = reverse("accounts:second_factor_reset", args=[administrator.pk])

    assert client.post(url).status_code == 403
    client.force_login(administrator)
    assert client.post(url).status_code == 403
    assert TOTPDevice.objects.filter(user=administrator).exists()


def test_a_state_administrator_cannot_reset_a_system_wide_administrator(state, administrator):
    state_admin = staff(Role.ADMINISTRATOR, "state_admin", state=state)
    confirmed_authenticator(administrator)

    with pytest.raises(twofactor.PermissionDenied):
        twofactor.reset_second_factor(user=administrator, by=state_admin)

    assert TOTPDevice.objects.filter(user=administrator).exists()


def test_reset_page_asks_first(client, administrator, magistrate):
    confirmed_authenticator(magistrate)
    client.force_login(administrator)

    response = client.get(reverse("accounts:second_factor_reset", args=[magistrate.pk]))

    assert response.status_code == 200
    assert TOTPDevice.objects.filter(user=magistrate).exists()


def test_a_superuser_needs_the_second_factor_too():
    root = UserFactory(is_superuser=True, is_staff=True)

    assert twofactor.must_have_second_factor(root)


# --- The admin is off unless a setting turns it on (tests/test_settings.py) ----------------


def test_staff_page_links_the_admin_only_when_it_is_on(client, administrator, settings):
    client.force_login(administrator)
    settings.ADMIN_ENABLED = False

    off = client.get(reverse("accounts:staff")).text
    settings.ADMIN_ENABLED = True
    on = client.get(reverse("accounts:staff")).text

    assert "/admin/" not in off and "turned off on this server" in off
    assert reverse("admin:accounts_staffassignment_changelist") in on


def test_codes_issued_before_they_were_hashed_are_hashed_by_the_migration_and_still_work(
    magistrate,
):
    import importlib
    from types import SimpleNamespace

    from django.apps import apps
    from django.db import connection

    migration = importlib.import_module("accounts.migrations.0004_recovery_codes_hashed")
    confirmed_authenticator(magistrate)
    device = StaticDevice.objects.create(user=magistrate, name="recovery codes", confirmed=True)
    code = StaticToken.random_token()
    device.token_set.create(token=code)  # as the codes were kept before

    migration.hash_codes(apps, SimpleNamespace(connection=connection))

    assert list(device.token_set.values_list("token", flat=True)) == [
        twofactor.stored_recovery_code(code)
    ]
    assert twofactor.check_code(user=magistrate, code=code) is not None
    assert not device.token_set.exists()
