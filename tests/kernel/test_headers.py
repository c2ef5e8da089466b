"""Headers on every response, and the session's absolute lifetime (issue 11)."""

import time

from django.urls import reverse

from kernel.login import SIGNED_IN_AT


def test_signed_in_pages_are_never_stored(client, pound_keeper):
    client.force_login(pound_keeper)

    response = client.get(reverse("impounding:today"))

    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


def test_every_response_says_the_camera_is_for_this_site_only(client):
    response = client.get(reverse("board"))

    assert response["Permissions-Policy"].startswith("camera=(self), microphone=()")
    assert "no-store" not in response.get("Cache-Control", "")  # the public board may be kept


def test_a_session_ends_twelve_hours_after_sign_in_however_busy(client, pound_keeper):
    client.force_login(pound_keeper)
    assert client.get(reverse("impounding:today")).status_code == 200
    session = client.session
    session[SIGNED_IN_AT] = int(time.time()) - 12 * 60 * 60 - 1
    session.save()

    response = client.get(reverse("impounding:today"))

    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert client.get(reverse("impounding:today")).status_code == 302  # signed out
