"""The screens: a payment in progress is never shown as unpaid, and the release screen (s.13)
takes a payment the gateway confirmed."""

from django.test import Client
from django.urls import reverse

from impounding.models import AnimalState
from payments.models import PaymentState
from tests.impounding.test_views_releases import _check_page, claim_data
from tests.payments.helpers import deliver, start


def test_the_entry_shows_a_payment_in_progress_not_the_pay_button(
    client, entry, pound_keeper, fake_gateway
):
    client.force_login(pound_keeper)
    page = client.get(entry.get_absolute_url()).content.decode()
    assert "Owner pays online" in page
    start(entry, pound_keeper)
    page = client.get(entry.get_absolute_url()).content.decode()
    assert "Payment being confirmed" in page and "Owner pays online" not in page
    assert "unpaid" not in page.lower()


def test_the_release_screen_takes_the_confirmed_payment(client, entry, pound_keeper, fake_gateway):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference)
    deliver(Client(), fake_gateway.callback(payment.reference))
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    response, data = _check_page(client, url, claim_data(entry.animals.all()))
    assert "Paid online" in response.content.decode()
    assert client.post(url, data).status_code == 302
    payment.refresh_from_db()
    assert payment.state == PaymentState.RECONCILED
    assert payment.release.receipt.payment_reference == payment.reference
    assert set(entry.animals.values_list("state", flat=True)) == {AnimalState.RELEASED_PAID}


def test_the_release_screen_refuses_cash_while_a_payment_is_in_progress(
    client, entry, pound_keeper, fake_gateway
):
    start(entry, pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    _, data = _check_page(client, url, claim_data(entry.animals.all()))
    response = client.post(url, data)
    assert response.status_code == 200
    assert "being paid online" in response.content.decode()
    assert not entry.releases.exists()
