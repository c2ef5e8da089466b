"""An ended session says so on the login page, and a typing user's session is kept alive
(ADR 0031), without a write of the session row on every request (ADR 0067). The browser side
is in tests/browser/test_usability.py."""

from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.services import create_api_token


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


def _session_writes(captured):
    return [
        q["sql"]
        for q in captured.captured_queries
        if "django_session" in q["sql"] and q["sql"].lstrip().startswith(("UPDATE", "INSERT"))
    ]


def test_a_busy_user_writes_the_session_at_most_once_in_the_slack(
    client, pound_keeper, time_machine
):
    """A signed-in page does not write the session row on every request (ADR 0067): within
    SESSION_SAVE_SLACK_SECONDS of the last save, requests only read it."""
    time_machine.move_to("2026-12-04 10:00:00+05:30", tick=False)
    client.force_login(pound_keeper)
    slack = settings.SESSION_SAVE_SLACK_SECONDS
    assert 0 < slack <= 60
    with CaptureQueriesContext(connection) as captured:
        for _ in range(10):
            assert client.get(reverse("impounding:today")).status_code == 200
            time_machine.shift(slack / 20)
    assert len(_session_writes(captured)) <= 1

    time_machine.shift(slack)
    with CaptureQueriesContext(connection) as captured:
        client.get(reverse("impounding:today"))
        client.get(reverse("impounding:today"))
    assert len(_session_writes(captured)) == 1  # the slack has passed: the end moves on, once


def test_the_idle_limit_still_signs_out_within_the_slack(client, pound_keeper, time_machine):
    """The session ends at most the slack before SESSION_COOKIE_AGE after the last request,
    never after it."""
    time_machine.move_to("2026-12-04 10:00:00+05:30", tick=False)
    age, slack = settings.SESSION_COOKIE_AGE, settings.SESSION_SAVE_SLACK_SECONDS
    client.force_login(pound_keeper)
    page = reverse("impounding:today")
    assert client.get(page).status_code == 200  # saved now: ends at age from here
    time_machine.shift(slack // 2)
    assert client.get(page).status_code == 200  # within the slack: not saved
    time_machine.shift(age - slack // 2 + 1)  # age since the save, age - slack/2 since the page

    response = client.get(page)

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next={page}&expired=1"


def test_a_request_past_the_slack_keeps_the_session_alive(client, pound_keeper, time_machine):
    time_machine.move_to("2026-12-04 10:00:00+05:30", tick=False)
    age, slack = settings.SESSION_COOKIE_AGE, settings.SESSION_SAVE_SLACK_SECONDS
    client.force_login(pound_keeper)
    page = reverse("impounding:today")
    for _ in range(3):  # a request every age - 1 seconds keeps the user in, however long
        assert client.get(page).status_code == 200
        time_machine.shift(age - 1)
    assert age - 1 > slack
    assert client.get(page).status_code == 200


def test_an_api_call_with_a_token_stores_no_session(client, pound_keeper):
    _token, secret = create_api_token(user=pound_keeper, name="load")

    response = client.get("/api/v1/entries/", HTTP_AUTHORIZATION=f"Bearer {secret}")

    assert response.status_code == 200
    assert settings.SESSION_COOKIE_NAME not in response.cookies
    assert not Session.objects.exists()
