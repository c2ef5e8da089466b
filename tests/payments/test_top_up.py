"""Dues that grew after the owner paid online (a feeding day accrued) are topped up in cash at
the till; the release takes both in one balanced ledger transaction, in its own database
transaction (docs/decisions/0085). Dues that shrank below the payment are refused: the payment
goes back by the refund path. The same dues are never paid twice."""

import uuid
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db.models import F
from django.test import Client
from django.urls import reverse

from impounding import services as impounding
from impounding.dues import dues
from impounding.models import Animal, AnimalState, Impoundment
from ledger.checks import run_checks
from ledger.models import AccountKind, Transaction
from payments import refunds
from payments.models import PaymentState, RefundReason
from tests.impounding.factories import pay
from tests.impounding.test_views_releases import _check_page, claim_data
from tests.payments.helpers import CLAIM, deliver, start


def _succeeded(entry, keeper, gw):
    payment, order = start(entry, keeper)
    gw.take_order(order)
    gw.pay(payment.reference)
    deliver(Client(), gw.callback(payment.reference))
    payment.refresh_from_db()
    assert payment.state == PaymentState.SUCCEEDED
    return payment


def _a_day_passes(entry):
    Impoundment.objects.filter(pk=entry.pk).update(
        arrived_at=F("arrived_at") - timedelta(days=1),
        seized_at=F("seized_at") - timedelta(days=1),
    )


def _release(payment, keeper):
    entry = payment.impoundment
    return impounding.release_on_payment(
        entry=entry,
        by=keeper,
        animal_ids=payment.animal_ids,
        idempotency_key=uuid.uuid4(),
        amount_tendered=dues(Animal.objects.claimable_in(entry)).total,
        payment=payment,
        **CLAIM,
    )


def test_a_grown_due_is_topped_up_at_the_till_in_one_balanced_transaction(
    entry, pound_keeper, fake_gateway
):
    payment = _succeeded(entry, pound_keeper, fake_gateway)
    _a_day_passes(entry)
    release = _release(payment, pound_keeper)
    payment.refresh_from_db()
    top_up = release.amount - payment.amount
    assert top_up > 0 and payment.state == PaymentState.RECONCILED
    assert payment.release == release
    txn = Transaction.objects.get(source=f"impounding.release:{release.pk}")
    lines = {line.account.kind: line.amount for line in txn.postings.select_related("account")}
    assert lines[AccountKind.GATEWAY_CLEARING] == payment.amount
    assert lines[AccountKind.POUND_CASH] == top_up
    assert sum(lines.values()) == 0
    assert set(entry.animals.values_list("state", flat=True)) == {AnimalState.RELEASED_PAID}
    assert run_checks() == []


def test_dues_shrunk_below_the_payment_are_refused_for_the_refund_path(
    entry, pound_keeper, dm_clerk, magistrate, fake_gateway
):
    _a_day_passes(entry)
    payment = _succeeded(entry, pound_keeper, fake_gateway)
    Impoundment.objects.filter(pk=entry.pk).update(
        arrived_at=F("arrived_at") + timedelta(days=1),
        seized_at=F("seized_at") + timedelta(days=1),
    )
    with pytest.raises(ValidationError, match="refund the payment"):
        _release(payment, pound_keeper)
    payment.refresh_from_db()
    assert payment.state == PaymentState.SUCCEEDED and not entry.releases.exists()
    # The refund path takes it: prepared by one, approved by another, sent back whole; then
    # the dues now are taken at the till, once.
    refund = refunds.prepare_refund(
        payment=payment, by=dm_clerk, reason=RefundReason.DUES_SHRANK, idempotency_key=uuid.uuid4()
    )
    refunds.approve_refund(refund=refund, by=magistrate)
    payment.refresh_from_db()
    assert payment.state == PaymentState.REFUNDED
    entry.refresh_from_db()
    release = pay(entry, pound_keeper)
    assert release.amount < payment.amount and release.payment_mode == "cash"
    assert run_checks() == []


def test_a_payment_the_dues_still_cover_is_not_refunded_as_shrunk(
    entry, pound_keeper, dm_clerk, fake_gateway
):
    payment = _succeeded(entry, pound_keeper, fake_gateway)
    with pytest.raises(ValidationError, match="not less than this payment"):
        refunds.prepare_refund(
            payment=payment,
            by=dm_clerk,
            reason=RefundReason.DUES_SHRANK,
            idempotency_key=uuid.uuid4(),
        )


def test_the_till_cannot_take_the_whole_dues_again_beside_a_payment(
    entry, pound_keeper, fake_gateway
):
    _succeeded(entry, pound_keeper, fake_gateway)
    _a_day_passes(entry)
    entry.refresh_from_db()
    with pytest.raises(ValidationError, match="being paid online"):
        pay(entry, pound_keeper)
    assert not entry.releases.exists()


def test_the_release_screen_shows_the_shortfall_and_takes_both(
    client, entry, pound_keeper, fake_gateway
):
    payment = _succeeded(entry, pound_keeper, fake_gateway)
    _a_day_passes(entry)
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    response, data = _check_page(client, url, claim_data(entry.animals.all()))
    text = response.content.decode()
    assert "The dues have grown since" in text
    assert client.post(url, data).status_code == 302
    payment.refresh_from_db()
    assert payment.state == PaymentState.RECONCILED
    assert payment.release.amount > payment.amount
    assert run_checks() == []
