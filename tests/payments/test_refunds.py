"""Refunds through the gateway (docs/decisions/0083): prepared by one person, approved by
another, posted as they move, answered by the fake gateway with success, failure or silence. A
refund the gateway did not answer is pending, never "not refunded", and is refunded once."""

import io
import uuid

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from impounding import services as impounding
from ledger.checks import run_checks
from ledger.models import Transaction, TransactionKind
from payments import refunds
from payments.models import PaymentState, Refund, RefundReason, RefundState
from tests.payments.helpers import deliver, release_on, start


def paid(entry, keeper, gw):
    payment, order = start(entry, keeper)
    gw.take_order(order)
    gw.pay(payment.reference)
    deliver(Client(), gw.callback(payment.reference))
    payment.refresh_from_db()
    assert payment.state == PaymentState.SUCCEEDED
    return payment


def all_died(entry, keeper):
    for animal in entry.animals.all():
        impounding.record_death(animal=animal, by=keeper, at=timezone.now(), cause="Old age")


def prepare(payment, by, reason=RefundReason.ANIMALS_LEFT, key=None):
    return refunds.prepare_refund(
        payment=payment, by=by, reason=reason, idempotency_key=key or uuid.uuid4()
    )


@pytest.fixture
def refundable(entry, pound_keeper, fake_gateway):
    payment = paid(entry, pound_keeper, fake_gateway)
    all_died(entry, pound_keeper)
    return payment


def test_a_refund_approved_by_another_person_is_refunded_and_posted(
    refundable, dm_clerk, magistrate, fake_gateway
):
    refund = prepare(refundable, dm_clerk)
    assert refund.state == RefundState.PREPARED
    refund = refunds.approve_refund(refund=refund, by=magistrate)
    assert refund.state == RefundState.REFUNDED
    assert refund.gateway_reference.startswith("RFD")
    refundable.refresh_from_db()
    assert refundable.state == PaymentState.REFUNDED
    kinds = list(
        Transaction.objects.filter(source=f"payments.refund:{refund.pk}").values_list(
            "kind", flat=True
        )
    )
    assert kinds == [TransactionKind.GATEWAY_REFUND_SENT, TransactionKind.GATEWAY_REFUNDED]
    assert [e.new_state for e in refund.events.all()] == ["prepared", "pending", "refunded"]
    assert fake_gateway.refunded(refundable.reference) == 1
    assert run_checks() == []


def test_whoever_prepared_may_not_approve(refundable, magistrate, fake_gateway):
    refund = prepare(refundable, magistrate)
    with pytest.raises(ValidationError, match="prepared a refund may not"):
        refunds.approve_refund(refund=refund, by=magistrate)
    refund.refresh_from_db()
    assert refund.state == RefundState.PREPARED and fake_gateway.refunds == {}


def test_the_clerk_may_not_approve(refundable, dm_clerk, pound_keeper, fake_gateway):
    refund = prepare(refundable, dm_clerk)
    with pytest.raises(PermissionDenied):
        refunds.approve_refund(refund=refund, by=pound_keeper)
    refund.refresh_from_db()
    assert refund.state == RefundState.PREPARED


def test_a_refused_refund_is_failed_and_its_posting_reversed(
    refundable, dm_clerk, magistrate, fake_gateway
):
    fake_gateway.refund_mode = "failure"
    refund = refunds.approve_refund(refund=prepare(refundable, dm_clerk), by=magistrate)
    assert refund.state == RefundState.FAILED
    sent = Transaction.objects.get(kind=TransactionKind.GATEWAY_REFUND_SENT)
    assert sent.reversed_by.kind == TransactionKind.REVERSAL
    refundable.refresh_from_db()
    assert refundable.state == PaymentState.SUCCEEDED
    assert run_checks() == []
    # A new refund may be prepared after a failure.
    fake_gateway.refund_mode = "success"
    again = refunds.approve_refund(refund=prepare(refundable, dm_clerk), by=magistrate)
    assert again.state == RefundState.REFUNDED
    assert run_checks() == []


def test_a_refund_that_timed_out_is_pending_then_refunded_once(
    refundable, dm_clerk, magistrate, fake_gateway, settings
):
    settings.PAYMENT_GATEWAY_TIMEOUT = 0.5
    fake_gateway.refund_mode = "timeout"
    refund = refunds.approve_refund(refund=prepare(refundable, dm_clerk), by=magistrate)
    assert refund.state == RefundState.PENDING
    assert refund.get_state_display() == "Refund pending (awaiting the gateway)"
    assert run_checks() == []  # the money owed back is on the books while it is pending
    call_command("sweep_payments", stdout=io.StringIO())
    refund.refresh_from_db()
    assert refund.state == RefundState.REFUNDED
    call_command("sweep_payments", stdout=io.StringIO())
    assert fake_gateway.refunded(refundable.reference) == 1
    assert Transaction.objects.filter(kind=TransactionKind.GATEWAY_REFUNDED).count() == 1
    assert run_checks() == []


def test_approving_twice_asks_the_gateway_once(refundable, dm_clerk, magistrate, fake_gateway):
    refund = prepare(refundable, dm_clerk)
    refunds.approve_refund(refund=refund, by=magistrate)
    again = refunds.approve_refund(refund=refund, by=magistrate)
    assert again.state == RefundState.REFUNDED
    assert Transaction.objects.filter(source=f"payments.refund:{refund.pk}").count() == 2


def test_preparing_is_idempotent_and_once_per_payment(refundable, dm_clerk, fake_gateway):
    key = uuid.uuid4()
    first = prepare(refundable, dm_clerk, key=key)
    assert prepare(refundable, dm_clerk, key=key).pk == first.pk
    with pytest.raises(ValidationError, match="already being refunded"):
        prepare(refundable, dm_clerk)
    assert Refund.objects.count() == 1


def test_a_declined_refund_sends_nothing(refundable, dm_clerk, magistrate, fake_gateway):
    refund = refunds.decline_refund(refund=prepare(refundable, dm_clerk), by=magistrate)
    assert refund.state == RefundState.DECLINED
    with pytest.raises(ValidationError, match="declined"):
        refunds.approve_refund(refund=refund, by=magistrate)
    assert fake_gateway.refunds == {} and not Transaction.objects.filter(
        source__startswith="payments.refund"
    )


def test_a_payment_whose_animals_are_in_the_pound_is_not_refunded(
    entry, pound_keeper, dm_clerk, fake_gateway
):
    payment = paid(entry, pound_keeper, fake_gateway)
    with pytest.raises(ValidationError, match="still in the pound"):
        prepare(payment, dm_clerk)


def test_a_payment_a_release_took_is_not_refunded(entry, pound_keeper, dm_clerk, fake_gateway):
    payment = paid(entry, pound_keeper, fake_gateway)
    release_on(payment, pound_keeper)
    payment.refresh_from_db()
    with pytest.raises(ValidationError, match="no release took"):
        prepare(payment, dm_clerk)


def test_a_release_does_not_take_a_payment_being_refunded(
    entry, pound_keeper, dm_clerk, magistrate, fake_gateway, settings
):
    payment = paid(entry, pound_keeper, fake_gateway)
    refund = Refund.objects.create(
        payment=payment,
        amount=payment.amount,
        reason=RefundReason.PAID_TWICE,
        idempotency_key=uuid.uuid4(),
        prepared_by=dm_clerk,
    )
    with pytest.raises(ValidationError, match="being refunded"):
        release_on(payment, pound_keeper)
    assert refund.state == RefundState.PREPARED and not entry.releases.exists()


def test_paid_twice_needs_a_release_of_the_dues(refundable, dm_clerk, fake_gateway):
    with pytest.raises(ValidationError, match="not paid twice"):
        prepare(refundable, dm_clerk, reason=RefundReason.PAID_TWICE)
