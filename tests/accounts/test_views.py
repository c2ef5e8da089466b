import html
import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from accounts import services
from accounts.models import IssuedDocument, StaffEvent
from accounts.roles import Role
from tests import readpdf
from tests.accounts.factories import PoundFactory, UserFactory

SAME_MESSAGE = "That user name and password do not match an active account."


def _login(client, username, password):
    return client.post(reverse("login"), {"username": username, "password": password})


def test_login_page_is_public(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert b'autocomplete="current-password"' in response.content


def test_login_with_right_password_goes_home(client, pound_keeper):
    response = _login(client, "pound_keeper", "correct-horse-battery")
    assert response.status_code == 302
    assert response["Location"] == reverse("home")


def test_wrong_password_and_unknown_user_get_the_same_message(client, pound_keeper):
    wrong = _login(client, "pound_keeper", "not-the-password")
    unknown = _login(client, "nobody-by-this-name", "not-the-password")
    assert wrong.status_code == unknown.status_code == 200
    assert SAME_MESSAGE in wrong.content.decode()
    assert SAME_MESSAGE in unknown.content.decode()
    strip = lambda r: re.sub(r'value="[^"]*"', "", r.content.decode())  # noqa: E731
    assert strip(wrong) == strip(unknown)


def test_inactive_user_gets_the_same_message(client):
    UserFactory(username="gone", is_active=False)
    response = _login(client, "gone", "correct-horse-battery")
    assert SAME_MESSAGE in response.content.decode()


def test_repeated_failures_lock_out_with_time_to_try_again(client, pound_keeper):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "pound_keeper", "wrong")
    response = _login(client, "pound_keeper", "correct-horse-battery")
    assert response.status_code == 429
    body = response.content.decode()
    assert "Try again after" in body
    expected = timezone.localtime(timezone.now() + settings.AXES_COOLOFF_TIME)
    assert expected.strftime("%d-%m-%Y") in body
    assert "_auth_user_id" not in client.session


def test_lockout_page_reads_the_same_for_an_unknown_user(client):
    for _ in range(settings.AXES_FAILURE_LIMIT + 1):
        response = _login(client, "nobody", "wrong")
    assert response.status_code == 429
    assert "Try again after" in response.content.decode()


def test_session_ends_after_thirty_minutes_idle():
    assert settings.SESSION_COOKIE_AGE == 30 * 60
    # Saved when its last save is a minute old, not on every request (ADR 0067).
    assert settings.SESSION_SAVE_EVERY_REQUEST is False
    assert settings.SESSION_SAVE_SLACK_SECONDS == 60


def test_session_expiry_is_pushed_on_by_each_request(client, pound_keeper):
    client.force_login(pound_keeper)
    client.get(reverse("home"))
    first = client.session.get_expiry_date()
    client.get(reverse("home"))
    assert client.session.get_expiry_date() >= first
    assert first - timezone.now() > timedelta(minutes=29)


def test_logout_requires_post_and_ends_session(client, pound_keeper):
    client.force_login(pound_keeper)
    assert client.get(reverse("logout")).status_code == 405
    client.post(reverse("logout"))
    assert client.get(reverse("home")).status_code == 302


@pytest.mark.parametrize(
    ("fixture", "heading"),
    [
        ("pound_keeper", "Pound-keeper"),
        ("police_officer", "Police officer"),
        ("dm_clerk", "District Magistrate's office"),
        ("magistrate", "District Magistrate"),
        ("auditor", "Auditor"),
        ("administrator", "Administrator"),
    ],
)
def test_each_role_sees_its_home_panel(client, request, fixture, heading, pound):
    user = request.getfixturevalue(fixture)
    client.force_login(user)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    h2s = re.findall(r"<h2[^>]*>(.*?)</h2>", response.content.decode(), re.S)
    assert heading in [html.unescape(h.strip()) for h in h2s]


def test_pound_keeper_home_lists_own_pound_not_others(client, pound_keeper, pound, other_pound):
    client.force_login(pound_keeper)
    body = client.get(reverse("home")).content.decode()
    assert pound.name in body
    assert other_pound.name not in body


def test_home_query_count_is_flat(client, magistrate, district, django_assert_max_num_queries):
    for _ in range(15):
        PoundFactory(district=district)
    client.force_login(magistrate)
    with django_assert_max_num_queries(12):
        client.get(reverse("accounts:jurisdiction"))


def test_language_switch_persists_in_cookie_and_on_account(client, pound_keeper):
    client.force_login(pound_keeper)
    response = client.post(reverse("set_language"), {"language": "hi", "next": "/"})
    assert response.status_code == 302
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "hi"
    pound_keeper.refresh_from_db()
    assert pound_keeper.preferred_language == "hi"
    body = client.get(reverse("home")).content.decode()
    assert 'lang="hi"' in body
    assert "स्वागत" in body


def test_language_choice_follows_user_to_a_new_device(client, pound_keeper):
    pound_keeper.preferred_language = "hi"
    pound_keeper.save()
    response = _login(client, "pound_keeper", "correct-horse-battery")
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "hi"


def test_language_switch_refuses_offsite_redirect(client):
    response = client.post(
        reverse("set_language"), {"language": "hi", "next": "https://evil.example/"}
    )
    assert response["Location"] == "/"


def test_appointment_card_is_a_pdf_and_registered(client, pound_keeper):
    client.force_login(pound_keeper)
    assignment = pound_keeper.assignments.get()
    response = client.get(reverse("accounts:appointment_card", args=[assignment.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    document = IssuedDocument.objects.get()
    assert document.kind == IssuedDocument.Kind.APPOINTMENT_CARD
    assert StaffEvent.objects.filter(action=StaffEvent.Action.CARD_ISSUED).count() == 1


def test_second_download_reuses_the_same_card(client, pound_keeper):
    client.force_login(pound_keeper)
    url = reverse("accounts:appointment_card", args=[pound_keeper.assignments.get().pk])
    client.get(url)
    client.get(url)
    assert IssuedDocument.objects.count() == 1


def test_someone_elses_appointment_card_is_404(client, pound_keeper, police_officer):
    client.force_login(police_officer)
    url = reverse("accounts:appointment_card", args=[pound_keeper.assignments.get().pk])
    assert client.get(url).status_code == 404


def test_administrator_may_download_any_card(client, administrator, pound_keeper):
    client.force_login(administrator)
    url = reverse("accounts:appointment_card", args=[pound_keeper.assignments.get().pk])
    assert client.get(url).status_code == 200


def _card(client, user):
    client.force_login(user)
    client.get(reverse("accounts:appointment_card", args=[user.assignments.get().pk]))
    client.logout()
    return IssuedDocument.objects.get(subject_id=user.assignments.get().pk)


def test_verify_page_shows_document_without_personal_data(client, pound_keeper, district):
    # A name no page shows otherwise: the factory's random surname may be a word of the page
    # ("English", on the language buttons).
    pound_keeper.first_name, pound_keeper.last_name = "Bhagirathi", "Zutshiwala"
    pound_keeper.save(update_fields=["first_name", "last_name"])
    document = _card(client, pound_keeper)
    response = client.get(reverse("verify", args=[document.token]))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Valid." in body
    assert document.number in body
    assert district.dm_office_name in body
    assert pound_keeper.first_name not in body
    assert pound_keeper.last_name not in body
    assert pound_keeper.username not in body


def test_verify_page_shows_card_no_longer_valid_after_appointment_ends(client, pound_keeper):
    document = _card(client, pound_keeper)
    yesterday = timezone.localdate() - timedelta(days=1)
    services.end_assignment(
        assignment=pound_keeper.assignments.get(), by=None, on=yesterday, reason="Transferred"
    )
    body = client.get(reverse("verify", args=[document.token])).content.decode()
    assert "No longer valid." in body


@pytest.mark.parametrize("token", ["short", "../../etc/passwd", "x" * 200])
def test_bad_verification_token_is_plain_not_found(client, token):
    response = client.get(f"/verify/{token}/")
    assert response.status_code == 404
    assert "Not found" in response.content.decode()


def test_unknown_verification_code_says_no_document_has_it_and_what_to_do(client):
    response = client.get(f"/verify/{'A' * 22}/")

    body = response.content.decode()
    assert response.status_code == 404
    assert "No document has this code" in body and "What to do" in body
    assert "jurisdiction" not in body  # the public has none


def test_staff_page_only_for_administrator(client, administrator, pound_keeper):
    client.force_login(pound_keeper)
    assert client.get(reverse("accounts:staff")).status_code == 403
    client.force_login(administrator)
    response = client.get(reverse("accounts:staff"))
    assert response.status_code == 200
    assert "pound_keeper" in response.content.decode()


def test_pdftotext_reads_the_card(client, pound_keeper, tmp_path):
    client.force_login(pound_keeper)
    pdf = client.get(
        reverse("accounts:appointment_card", args=[pound_keeper.assignments.get().pk])
    ).content
    text = readpdf.text(pdf)
    assert "Appointment card" in text
    assert pound_keeper.get_full_name() in text
    assert str(Role.POUND_KEEPER.label) in text
    assert "/verify/" in text
    fonts = readpdf.fonts(pdf)
    embedded = set(fonts)
    assert {
        "Noto-Sans",
        "Noto-Sans-Bold",
        "Noto-Sans-Devanagari",
        "Noto-Sans-Devanagari-Bold",
    } <= embedded, fonts
