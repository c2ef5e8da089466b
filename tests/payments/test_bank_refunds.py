"""Refunds by bank transfer (docs/decisions/0083, addendum): a UPI payment made from the slip's
QR code never passed through the gateway, so it goes back by the office's bank transfer. The clerk
gives the payer's account (IFSC checked by its format), another officer approves (posted), and
the clerk records the bank's UTR once the bank has paid (posted). The account number is whole
only while someone must check it or send the money; another district's refund is a 404."""

import uuid
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from impounding import services as impounding
from ledger.checks import run_checks
from ledger.models import Transaction, TransactionKind
from payments import refunds
from payments.models import Payment, PaymentState, Refund, RefundMethod, RefundState
from tests.conftest import staff

ACCOUNT = {"payee_name": "Ram  Prasad", "account_number": "1234 5678 9012", "ifsc": "sbin0001234"}


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []


@pytest.fixture
def upi_paid(entry, pound_keeper, dm_clerk):
    """A UPI payment from the slip's QR code, as the statement line settles it, whose animals
    then died: nothing releases on it, so it is refunded."""
    payment = Payment.objects.create(
        impoundment=entry,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        amount=Decimal("4200.00"),
        gateway="upi_qr",
        reference="BLY1202600042-041226",
        gateway_reference="634055555501",
        created_by=dm_clerk,
        state=PaymentState.SUCCEEDED,
    )
    for animal in entry.animals.all():
        impounding.record_death(animal=animal, by=pound_keeper, at=timezone.now(), cause="Old age")
    return payment


def prepare(payment, by, key=None, **account):
    return refunds.prepare_refund(
        payment=payment,
        by=by,
        reason="animals_left",
        idempotency_key=key or uuid.uuid4(),
        **(account or ACCOUNT),
    )


def kinds(refund):
    rows = Transaction.objects.filter(source=f"payments.refund:{refund.pk}").order_by("pk")
    return list(rows.values_list("kind", flat=True))


def test_prepared_approved_and_paid_by_the_bank_is_refunded_and_posted(
    upi_paid, dm_clerk, magistrate
):
    refund = prepare(upi_paid, dm_clerk)
    assert (refund.method, refund.payee_name, refund.account_number, refund.ifsc) == (
        RefundMethod.BANK,
        "Ram Prasad",
        "123456789012",
        "SBIN0001234",
    )
    refund = refunds.approve_refund(refund=refund, by=magistrate)
    assert refund.state == RefundState.PENDING  # no gateway is asked: the bank pays it
    assert kinds(refund) == [TransactionKind.GATEWAY_REFUND_SENT]
    assert run_checks() == []
    refund = refunds.record_bank_transfer(refund=refund, by=dm_clerk, utr="sbinr52026120400012345")
    assert refund.state == RefundState.REFUNDED
    assert refund.gateway_reference == "SBINR52026120400012345"
    assert kinds(refund) == [TransactionKind.GATEWAY_REFUND_SENT, TransactionKind.GATEWAY_REFUNDED]
    upi_paid.refresh_from_db()
    assert upi_paid.state == PaymentState.REFUNDED
    assert [e.new_state for e in refund.events.all()] == ["prepared", "pending", "refunded"]
    assert "1234567" not in str([e.data for e in refund.events.all()])  # the account is not logged
    # The same form sent twice changes nothing; nothing posted is edited.
    again = refunds.record_bank_transfer(refund=refund, by=dm_clerk, utr="SBINR52026120400012345")
    assert again.state == RefundState.REFUNDED and len(kinds(refund)) == 2


def test_whoever_prepared_may_not_approve(upi_paid, magistrate):
    refund = prepare(upi_paid, magistrate)
    with pytest.raises(ValidationError, match="prepared a refund may not"):
        refunds.approve_refund(refund=refund, by=magistrate)
    refund.refresh_from_db()
    assert refund.state == RefundState.PREPARED and kinds(refund) == []


@pytest.mark.parametrize(
    ("field", "account"),
    [
        ("ifsc", {**ACCOUNT, "ifsc": "SBIN1001234"}),  # the fifth character is 0
        ("ifsc", {**ACCOUNT, "ifsc": "SBI0001234"}),
        ("account_number", {**ACCOUNT, "account_number": "12AB5678"}),
        ("payee_name", {**ACCOUNT, "payee_name": "  "}),
    ],
)
def test_a_wrong_account_is_refused_beside_its_field(upi_paid, dm_clerk, field, account):
    with pytest.raises(ValidationError) as caught:
        prepare(upi_paid, dm_clerk, **account)
    assert list(caught.value.message_dict) == [field]
    assert not Refund.objects.exists()


def test_a_utr_records_one_refund_and_only_an_approved_one(upi_paid, dm_clerk, magistrate):
    refund = prepare(upi_paid, dm_clerk)
    with pytest.raises(ValidationError, match="approved refund"):
        refunds.record_bank_transfer(refund=refund, by=dm_clerk, utr="634055555599")
    with pytest.raises(ValidationError) as caught:
        refunds.record_bank_transfer(refund=refund, by=dm_clerk, utr="12-34")
    assert list(caught.value.message_dict) == ["utr"]
    refund = refunds.approve_refund(refund=refund, by=magistrate)
    refunds.record_bank_transfer(refund=refund, by=dm_clerk, utr="634055555599")
    with pytest.raises(ValidationError):
        refunds.record_bank_transfer(refund=refund, by=dm_clerk, utr="634055555600")
    assert kinds(refund) == [TransactionKind.GATEWAY_REFUND_SENT, TransactionKind.GATEWAY_REFUNDED]


def test_preparing_twice_with_one_key_makes_one_refund(upi_paid, dm_clerk):
    key = uuid.uuid4()
    assert prepare(upi_paid, dm_clerk, key=key).pk == prepare(upi_paid, dm_clerk, key=key).pk
    assert Refund.objects.count() == 1


def test_the_screens_take_the_account_mask_it_after_and_record_the_utr(
    client, upi_paid, dm_clerk, magistrate
):
    client.force_login(dm_clerk)
    url = reverse("payments:refund_prepare", args=[upi_paid.pk])
    form = client.get(url).content.decode()
    assert 'name="ifsc"' in form and "bank transfer" in form
    data = {"idempotency_key": uuid.uuid4(), "reason": "animals_left", **ACCOUNT, "ifsc": "X1"}
    refused = client.post(url, data).content.decode()
    assert "Enter the IFSC" in refused and not Refund.objects.exists()
    response = client.post(url, {**data, "ifsc": "SBIN0001234"})
    refund = Refund.objects.get()
    detail = reverse("payments:refund", args=[refund.pk])
    assert response["Location"].endswith(detail)
    client.force_login(magistrate)
    assert "123456789012" in client.get(detail).content.decode()  # the checker compares it
    assert client.post(detail, {"decision": "approve"}).status_code == 302
    client.force_login(dm_clerk)
    page = client.get(detail).content.decode()
    assert "awaiting the bank transfer" in page and 'name="utr"' in page
    assert client.post(detail, {"utr": "634055555599"}).status_code == 302
    page = client.get(detail).content.decode()
    assert "XXXX9012" in page and "123456789012" not in page
    listed = client.get(reverse("payments:refunds")).content.decode()
    assert "123456789012" not in listed


def test_another_districts_bank_refund_is_a_404(client, upi_paid, dm_clerk, other_district):
    refund = prepare(upi_paid, dm_clerk)
    stranger = staff(Role.DM_CLERK, "other_clerk", district=other_district)
    client.force_login(stranger)
    detail = reverse("payments:refund", args=[refund.pk])
    assert client.get(detail).status_code == 404
    assert client.post(detail, {"utr": "634055555599"}).status_code == 404
    with pytest.raises(Exception):  # noqa: B017, PT011 - the service refuses the stranger too
        refunds.record_bank_transfer(refund=refund, by=stranger, utr="634055555599")
