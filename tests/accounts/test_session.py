"""An ended session says so on the login page, and a typing user's session is kept alive
(ADR 0031). The browser side is in tests/browser/test_usability.py."""

from django.conf import settings
from django.urls import reverse


def test_a_page_opened_after_the_session_ended_goes_to_login_saying_why(client):
    client.cookies[settings.SESSION_COOKIE_NAME] = "a-session-the-server-has-ended"

    response = client.get("/pound/register/new/")

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/pound/register/new/&expired=1"
    page = client.get(response["Location"]).content.decode()
    assert 'id="session-ended"' in page
    assert f"nothing was done for {settings.SESSION_COOKIE_AGE // 60} minutes" in page


def test_a_first_visit_goes_to_login_without_the_session_message(client):
    response = client.get("/pound/register/new/")

    assert response["Location"] == "/login/?next=/pound/register/new/"
    assert 'id="session-ended"' not in client.get(response["Location"]).content.decode()


def test_ping_moves_the_end_of_the_session(client, pound_keeper):
    client.force_login(pound_keeper)
    before = client.session.get_expiry_date()

    response = client.get(reverse("accounts:session_ping"))

    assert response.status_code == 204
    assert client.session.get_expiry_date() >= before
    page = client.get("/").content.decode()
    assert 'id="session-warning"' in page and f'data-idle="{settings.SESSION_COOKIE_AGE}"' in page
