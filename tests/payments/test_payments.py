"""Payments through the gateway (docs/decisions/0075): the order, the callback (signed and
encrypted), its idempotence, the sweep, and the release that takes a succeeded payment."""

import uuid
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from impounding.dues import dues
from impounding.models import AnimalState
from ledger.checks import run_checks
from ledger.models import AccountKind, Posting
from payments import services
from payments.gateways import BadMessage
from payments.models import Payment, PaymentEvent, PaymentState
from tests.impounding.factories import pay
from tests.payments.helpers import deliver, release_on, start

LATER = timedelta(minutes=10)


def test_a_payment_starts_pending_for_the_dues_and_the_order_reaches_the_gateway(
    entry, pound_keeper, fake_gateway
):
    payment, order = start(entry, pound_keeper)
    assert payment.state == PaymentState.PENDING
    assert payment.amount == dues(list(entry.animals.all())).total
    said = fake_gateway.take_order(order)
    assert said["ref"] == payment.reference and said["amount"] == f"{payment.amount:.2f}"
    assert said["callback"].endswith("/payments/callback/sbiepay/")
    assert list(payment.events.values_list("new_state", flat=True)) == ["created", "pending"]


def test_a_second_payment_of_the_same_dues_is_refused_while_one_is_open(
    entry, pound_keeper, fake_gateway
):
    start(entry, pound_keeper)
    with pytest.raises(ValidationError, match="already in progress"):
        start(entry, pound_keeper)
    assert Payment.objects.count() == 1


def test_the_database_refuses_two_open_payments_of_one_entry(entry, pound_keeper, fake_gateway):
    payment, _ = start(entry, pound_keeper)
    payment.pk, payment.reference, payment.token = None, "PA-OTHER", uuid.uuid4()
    with pytest.raises(IntegrityError, match="payment_one_open_per_entry"), transaction.atomic():
        payment.save()


def test_a_signed_callback_settles_the_payment_once(entry, pound_keeper, fake_gateway, client):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference)
    form = fake_gateway.callback(payment.reference)
    gateway_client = Client()  # no session: the gateway's server
    assert deliver(gateway_client, form).status_code == 200
    assert deliver(gateway_client, form).status_code == 200
    payment.refresh_from_db()
    assert payment.state == PaymentState.SUCCEEDED
    assert payment.gateway_reference.startswith("SBI")
    assert payment.events.filter(new_state="succeeded").count() == 1


def test_an_encrypted_callback_settles_the_payment(entry, pound_keeper, fake_gateway):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference, ok=False)
    assert (
        deliver(Client(), fake_gateway.callback(payment.reference, encrypted=True)).status_code
        == 200
    )
    payment.refresh_from_db()
    assert payment.state == PaymentState.FAILED


def test_a_callback_with_a_bad_checksum_is_refused(entry, pound_keeper, fake_gateway):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference)
    form = fake_gateway.callback(payment.reference)
    form["msg"] = form["msg"].replace("SUCCESS", "SUCCESS|x=1")
    assert deliver(Client(), form).status_code == 400
    payment.refresh_from_db()
    assert payment.state == PaymentState.PENDING


def test_a_callback_naming_another_amount_changes_nothing_and_the_sweep_settles(
    entry, pound_keeper, fake_gateway
):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference)
    form = fake_gateway.callback(payment.reference, amount=payment.amount - 1)
    deliver(Client(), form)
    payment.refresh_from_db()
    assert payment.state == PaymentState.PENDING
    assert payment.events.filter(data__refused="amount").count() == 1
    assert services.sweep(now=timezone.now() + LATER) == (1, 1)
    payment.refresh_from_db()
    assert payment.state == PaymentState.SUCCEEDED


def test_a_lost_callback_is_settled_by_the_sweep_and_a_late_one_changes_nothing(
    entry, pound_keeper, fake_gateway
):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference)
    assert services.sweep(now=timezone.now()) == (0, 0)  # not yet quiet for long enough
    assert services.sweep(now=timezone.now() + LATER) == (1, 1)
    deliver(Client(), fake_gateway.callback(payment.reference))
    assert PaymentEvent.objects.filter(payment=payment, new_state="succeeded").count() == 1


def test_a_gateway_that_does_not_answer_leaves_the_payment_unknown_never_unpaid(
    entry, pound_keeper, fake_gateway, client
):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.down = True
    services.sweep(now=timezone.now() + LATER)
    payment.refresh_from_db()
    assert payment.state == PaymentState.UNKNOWN and payment.in_progress
    page = client.get(reverse("payments:return", args=[payment.token]))
    assert "Payment being confirmed" in page.content.decode()
    with pytest.raises(ValidationError, match="already in progress"):
        start(entry, pound_keeper)


def test_an_unsigned_status_answer_is_not_believed(entry, pound_keeper, fake_gateway):
    payment, _ = start(entry, pound_keeper)
    with pytest.raises(BadMessage):
        fake_gateway.adapter.verify_callback({"msg": "ref=x|status=SUCCESS|amount=1.00"})


def test_the_release_takes_a_succeeded_payment_and_posts_it_from_the_gateway_account(
    entry, pound_keeper, fake_gateway
):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference)
    deliver(Client(), fake_gateway.callback(payment.reference))
    payment.refresh_from_db()
    release = release_on(payment, pound_keeper)
    payment.refresh_from_db()
    assert payment.state == PaymentState.RECONCILED and payment.release == release
    assert release.receipt.payment_reference == payment.reference
    assert set(entry.animals.values_list("state", flat=True)) == {AnimalState.RELEASED_PAID}
    clearing = Posting.objects.get(
        transaction__source=f"impounding.release:{release.pk}",
        account__kind=AccountKind.GATEWAY_CLEARING,
    )
    assert clearing.amount == payment.amount
    assert run_checks() == []


def test_a_release_on_a_payment_not_confirmed_is_refused_and_writes_nothing(
    entry, pound_keeper, fake_gateway
):
    payment, order = start(entry, pound_keeper)
    with pytest.raises(ValidationError, match="not confirmed"):
        release_on(payment, pound_keeper)
    assert not entry.releases.exists()
    assert set(entry.animals.values_list("state", flat=True)) == {AnimalState.IMPOUNDED}


def test_a_payment_is_taken_by_one_release_only(entry, pound_keeper, fake_gateway):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference)
    deliver(Client(), fake_gateway.callback(payment.reference))
    payment.refresh_from_db()
    release_on(payment, pound_keeper)
    with pytest.raises(ValidationError):
        release_on(payment, pound_keeper)
    assert entry.releases.count() == 1


def test_cash_at_the_till_stays_as_today(entry, pound_keeper):
    release = pay(entry, pound_keeper)
    assert release.payment_mode == "cash" and not Payment.objects.exists()
    assert run_checks() == []


def test_the_keepers_start_redirects_to_the_gateway(entry, pound_keeper, fake_gateway, client):
    client.force_login(pound_keeper)
    response = client.post(reverse("payments:start", args=[entry.pk]))
    assert response.status_code == 200
    assert f'action="{fake_gateway.url}/pay"' in response.content.decode()
    assert Payment.objects.get().state == PaymentState.PENDING


def test_the_start_is_a_404_in_another_district(entry, outsider, fake_gateway, client):
    client.force_login(outsider)
    response = client.post(reverse("payments:start", args=[entry.pk]))
    assert response.status_code in (403, 404)
    assert not Payment.objects.exists()


def test_the_till_refuses_dues_being_paid_online(entry, pound_keeper, fake_gateway):
    start(entry, pound_keeper)
    with pytest.raises(ValidationError, match="being paid online"):
        pay(entry, pound_keeper)
    assert not entry.releases.exists()


def test_the_adapter_asks_a_refund_with_a_signed_request(entry, pound_keeper, fake_gateway):
    payment, order = start(entry, pound_keeper)
    fake_gateway.take_order(order)
    fake_gateway.pay(payment.reference)
    answer = fake_gateway.adapter.refund(reference=payment.reference, amount=payment.amount)
    assert answer.reference == payment.reference and answer.amount == payment.amount
