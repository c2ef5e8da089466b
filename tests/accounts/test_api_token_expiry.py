"""A personal API token expires (ASVS 5.0 L2): 90 days on unless its owner chooses a date, a
year at most, and the API refuses it from then on."""

from datetime import timedelta

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken
from accounts.services import PERSONAL_TOKEN_DAYS, create_api_token

ENTRIES = "/api/v1/entries/"


def test_a_token_made_without_a_date_expires_in_ninety_days(pound_keeper):
    token, _secret = create_api_token(user=pound_keeper, name="script")

    assert PERSONAL_TOKEN_DAYS == 90
    assert token.expires_at is not None
    assert token.last_day == timezone.localdate() + timedelta(days=90)


def test_a_token_runs_a_year_at_most(pound_keeper):
    with pytest.raises(ValidationError) as refused:
        create_api_token(
            user=pound_keeper, name="script", expires_on=timezone.localdate() + timedelta(days=367)
        )

    assert "expires_on" in refused.value.message_dict
    assert not ApiToken.objects.exists()


def test_a_token_expiring_today_or_before_is_refused(pound_keeper):
    with pytest.raises(ValidationError):
        create_api_token(user=pound_keeper, name="script", expires_on=timezone.localdate())


def test_the_owner_chooses_a_date_within_the_year(pound_keeper):
    day = timezone.localdate() + timedelta(days=200)

    token, _secret = create_api_token(user=pound_keeper, name="script", expires_on=day)

    assert token.last_day == day


def test_the_api_refuses_a_token_past_its_day(client, pound_keeper):
    _token, secret = create_api_token(user=pound_keeper, name="script")
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    assert client.get(ENTRIES, **headers).status_code == 200

    with time_machine.travel(timezone.now() + timedelta(days=PERSONAL_TOKEN_DAYS + 2)):
        assert client.get(ENTRIES, **headers).status_code == 401


def test_the_form_offers_ninety_days_and_refuses_more_than_a_year_beside_the_field(
    client, pound_keeper
):
    client.force_login(pound_keeper)
    url = reverse("accounts:api_tokens")

    page = client.get(url)
    too_late = client.post(
        url,
        {
            "name": "script",
            "expires_on": (timezone.localdate() + timedelta(days=400)).strftime("%d-%m-%Y"),
            "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a12",
        },
    )

    assert page.context["form"]["expires_on"].initial == timezone.localdate() + timedelta(days=90)
    assert too_late.status_code == 200
    assert too_late.context["form"].errors["expires_on"]
    assert not ApiToken.objects.exists()


def test_the_token_list_shows_each_tokens_last_day(client, pound_keeper):
    token, _secret = create_api_token(user=pound_keeper, name="script")
    client.force_login(pound_keeper)

    page = client.get(reverse("accounts:api_tokens"))

    assert token.last_day.strftime("%d-%m-%Y") in page.text
