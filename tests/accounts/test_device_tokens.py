"""Device tokens (ADR 0074): a paired phone's own token, bound to one pound, serving the field
app's calls only, with a sliding expiry; the district administrator lists and revokes them."""

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from accounts.apitokens import ApiToken
from accounts.device_tokens import pair_device
from accounts.models import StaffEvent
from accounts.roles import Role
from accounts.services import DEVICE_SYNC_RESOLUTION, create_api_token
from tests.accounts.factories import staff
from tests.api.conftest import bearer
from tests.impounding.factories import cow, make_entry

REFERENCE = "/api/v1/field/reference/"


def paired(user, label="Pound phone"):
    return pair_device(user=user, label=label, idempotency_key=uuid.uuid4())


def sync(client, secret, pound):
    return client.get(REFERENCE, {"pound": pound.pk}, HTTP_AUTHORIZATION=f"Bearer {secret}")


@pytest.fixture
def district_admin(district):
    return staff(Role.ADMINISTRATOR, "district_admin", district=district)


# --- Kind, pound and sliding expiry ------------------------------------------------------------


def test_pairing_makes_a_device_token_of_the_keepers_pound(pound_keeper, pound, settings):
    token, secret = paired(pound_keeper)
    assert token.kind == ApiToken.Kind.DEVICE and token.pound == pound
    assert token.name == "Pound phone" and secret.startswith("pa_")
    assert token.expires_at - token.created_at == timedelta(days=settings.FIELD_DEVICE_IDLE_DAYS)
    assert StaffEvent.objects.filter(
        user=pound_keeper, action=StaffEvent.Action.TOKEN_CREATED
    ).exists()


def test_a_personal_token_stays_personal(pound_keeper):
    token, _secret = create_api_token(user=pound_keeper, name="script")
    assert token.kind == ApiToken.Kind.PERSONAL and token.pound is None


def test_a_token_idle_61_days_is_refused_and_one_used_at_day_59_lives_on(
    client, pound_keeper, pound
):
    _token, idle = paired(pound_keeper, "Idle phone")
    _token, busy = paired(pound_keeper, "Busy phone")
    start = timezone.now()
    with time_machine.travel(start + timedelta(days=59)):
        assert sync(client, busy, pound).status_code == 200
    with time_machine.travel(start + timedelta(days=61)):
        assert sync(client, idle, pound).status_code == 401
        assert sync(client, busy, pound).status_code == 200  # its expiry moved on at day 59
    with time_machine.travel(start + timedelta(days=61 + 59)):
        assert sync(client, busy, pound).status_code == 200
    with time_machine.travel(start + timedelta(days=61 + 59 + 61)):
        assert sync(client, busy, pound).status_code == 401


def test_the_idle_days_are_a_setting(client, pound_keeper, pound, settings):
    settings.FIELD_DEVICE_IDLE_DAYS = 10
    _token, secret = paired(pound_keeper)
    with time_machine.travel(timezone.now() + timedelta(days=11)):
        assert sync(client, secret, pound).status_code == 401


def test_the_last_sync_is_written_at_most_once_in_five_minutes(
    client, pound_keeper, pound, django_assert_num_queries
):
    token, secret = paired(pound_keeper)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        assert sync(client, secret, pound).status_code == 200
    token.refresh_from_db()
    assert token.last_used_at == start
    with time_machine.travel(start + DEVICE_SYNC_RESOLUTION - timedelta(seconds=1), tick=False):
        for _ in range(3):
            assert sync(client, secret, pound).status_code == 200
    token.refresh_from_db()
    assert token.last_used_at == start  # no write for the syncs inside five minutes
    later = start + DEVICE_SYNC_RESOLUTION
    with time_machine.travel(later, tick=False):
        assert sync(client, secret, pound).status_code == 200
    token.refresh_from_db()
    assert token.last_used_at == later
    assert token.expires_at == later + timedelta(days=60)


# --- Scope: the field app's calls, for its own pound ---------------------------------------------


def test_a_device_token_serves_the_field_app_only_and_its_own_pound(
    client, pound_keeper, pound, other_pound
):
    _token, secret = paired(pound_keeper)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    assert client.get("/api/v1/entries/", {"pound": pound.pk}, **auth).status_code == 200
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    assert client.get(f"/api/v1/entries/{entry.pk}/", **auth).status_code == 403
    assert client.get(f"/api/v1/entries/{entry.pk}/", **bearer(pound_keeper)).status_code == 200
    assert client.get(REFERENCE, {"pound": other_pound.pk}, **auth).status_code == 403
    feeding = f"/api/v1/pounds/{other_pound.pk}/feeding/"
    assert client.post(feeding, {}, content_type="application/json", **auth).status_code == 403


def test_a_device_token_syncs_with_no_web_session(client, pound_keeper, pound):
    """The outbox never needs the signed-in session: signed out, the phone still sends."""
    _token, secret = paired(pound_keeper)
    client.force_login(pound_keeper)
    client.post(reverse("logout"))
    assert "_auth_user_id" not in client.session
    assert sync(client, secret, pound).status_code == 200


# --- Pairing the same phone again; pairing page -------------------------------------------------


def test_pairing_the_same_phone_again_revokes_its_earlier_token(client, pound_keeper, pound):
    first, old = paired(pound_keeper)
    other, kept = paired(pound_keeper, "Second phone")
    second, new = paired(pound_keeper)
    first.refresh_from_db()
    other.refresh_from_db()
    assert first.revoked_at is not None and other.revoked_at is None
    assert sync(client, old, pound).status_code == 401
    assert sync(client, new, pound).status_code == 200
    assert sync(client, kept, pound).status_code == 200


def test_the_pairing_page_refuses_whoever_keeps_no_pound(client, auditor):
    client.force_login(auditor)
    page = client.post(
        reverse("accounts:pair_device"),
        {"label": "Pound phone", "idempotency_key": str(uuid.uuid4())},
    )
    assert b'id="device-token"' not in page.content
    assert not ApiToken.objects.filter(user=auditor).exists()


# --- The administrator's list and revocation -------------------------------------------------


def test_the_district_administrator_lists_the_districts_phones_only(
    client, district_admin, pound_keeper, other_pound
):
    mine, _secret = paired(pound_keeper)
    other_keeper = staff(Role.POUND_KEEPER, "other_keeper", pound=other_pound)
    theirs, _secret = paired(other_keeper, "Their phone")
    client.force_login(district_admin)
    page = client.get(reverse("accounts:device_tokens"))
    assert page.status_code == 200
    assert list(page.context["tokens"]) == [mine]
    assert reverse("accounts:device_token_revoke", args=[mine.pk]) in page.content.decode()
    revoke = reverse("accounts:device_token_revoke", args=[theirs.pk])
    assert client.get(revoke).status_code == 404
    assert client.post(revoke).status_code == 404
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


def test_a_keeper_may_not_see_the_list(client, pound_keeper):
    client.force_login(pound_keeper)
    assert client.get(reverse("accounts:device_tokens")).status_code == 403


def test_revoking_asks_first_then_refuses_the_next_sync_and_records_who(
    client, district_admin, pound_keeper, pound
):
    token, secret = paired(pound_keeper)
    assert sync(client, secret, pound).status_code == 200
    client.force_login(district_admin)
    url = reverse("accounts:device_token_revoke", args=[token.pk])
    check = client.get(url)
    assert check.status_code == 200 and b"Revoke the token" in check.content
    token.refresh_from_db()
    assert token.revoked_at is None  # the check page changes nothing
    assert client.post(url).status_code == 302
    assert client.post(url).status_code == 302  # twice: one revocation
    token.refresh_from_db()
    assert token.revoked_at is not None
    events = StaffEvent.objects.filter(user=pound_keeper, action=StaffEvent.Action.TOKEN_REVOKED)
    assert [(e.by, e.note) for e in events] == [(district_admin, str(token))]
    client.logout()
    assert sync(client, secret, pound).status_code == 401
