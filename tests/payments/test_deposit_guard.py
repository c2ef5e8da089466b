"""s.15: a deposit of dues that are being paid online is refused until the gateway answers, so
the same dues are never taken twice (docs/decisions/0083)."""

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import translation

from impounding.models import Deposit
from ledger.checks import run_checks
from payments.models import PaymentState
from tests.impounding.factories import deposit
from tests.impounding.test_views_releases import _check_page, claim_data
from tests.payments.helpers import deliver, start


def test_a_deposit_is_refused_while_a_payment_is_pending(entry, pound_keeper, fake_gateway):
    start(entry, pound_keeper)
    with pytest.raises(ValidationError, match="in progress online"):
        deposit(entry, pound_keeper)
    assert not entry.releases.exists() and not Deposit.objects.exists()


def test_a_deposit_is_refused_while_the_payment_is_unknown(entry, pound_keeper, fake_gateway):
    payment, _ = start(entry, pound_keeper)
    payment.state = PaymentState.UNKNOWN
    payment.save(update_fields=["state"])
    with pytest.raises(ValidationError) as refused:
        deposit(entry, pound_keeper)
    assert "payment_mode" in refused.value.message_dict
    assert not entry.releases.exists()


def test_a_deposit_is_taken_once_the_payment_failed(entry, pound_keeper, fake_gateway):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference, ok=False)
    deliver(Client(), fake_gateway.callback(payment.reference))
    payment.refresh_from_db()
    assert payment.state == PaymentState.FAILED
    deposit(entry, pound_keeper)
    assert Deposit.objects.count() == 1
    assert run_checks() == []


def test_the_refusal_is_translated(entry, pound_keeper, fake_gateway):
    start(entry, pound_keeper)
    with translation.override("hi"), pytest.raises(ValidationError) as refused:
        deposit(entry, pound_keeper)
    message = refused.value.message_dict["payment_mode"][0]
    assert "gateway" not in message and message


def test_the_deposit_screen_shows_the_refusal(client, entry, pound_keeper, fake_gateway):
    start(entry, pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:deposit", args=[entry.pk])
    _, data = _check_page(client, url, claim_data(entry.animals.all(), ground="My own land"))
    response = client.post(url, data)
    assert response.status_code == 200
    assert "in progress online" in response.content.decode()
    assert not entry.releases.exists()
