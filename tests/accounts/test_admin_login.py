"""The admin has no second public sign-in form: /admin/login/ sends to the app's login, with
its throttles."""

from django.urls import reverse

from tests.accounts.factories import UserFactory, confirmed_authenticator, totp_code


def test_the_admin_login_sends_to_the_apps_login(client):
    response = client.get(reverse("admin:login") + "?next=/admin/")

    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next=/admin/"


def test_the_admin_login_form_signs_nobody_in(client):
    UserFactory(username="root", is_staff=True, is_superuser=True)

    response = client.post(
        reverse("admin:login"), {"username": "root", "password": "correct-horse-battery"}
    )

    assert response.status_code == 302 and "_auth_user_id" not in client.session


def test_a_superuser_signed_in_through_the_app_reaches_the_admin(client):
    root = UserFactory(username="root", is_staff=True, is_superuser=True)
    device = confirmed_authenticator(root)
    client.post(reverse("login"), {"username": "root", "password": "correct-horse-battery"})
    client.post(reverse("accounts:second_factor"), {"code": totp_code(device)})

    assert client.get(reverse("admin:index")).status_code == 200


def test_a_superuser_without_the_second_factor_is_kept_from_the_admin(client):
    root = UserFactory(username="root", is_staff=True, is_superuser=True)
    confirmed_authenticator(root)
    client.post(reverse("login"), {"username": "root", "password": "correct-horse-battery"})

    response = client.get(reverse("admin:index"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:second_factor"))


def test_staff_who_are_not_admin_users_are_refused_not_looped(client, pound_keeper):
    client.force_login(pound_keeper)

    response = client.get(reverse("admin:index"), follow=True)

    assert response.status_code == 403
