"""Refunds of a payment through the gateway's refund operation (docs/decisions/0083).

A clerk prepares the refund of a succeeded payment no release took: its animals left the pound
another way (death, sale, a s.15 deposit), or the same dues were paid a second time. Another
person approves it; the approval moves it to pending and posts the money owed back, in one
transaction, and only then asks the gateway, outside any transaction. The gateway's answer
settles it: refunded (the money leaves the clearing account) or failed (the posting is reversed).
A refund the gateway did not answer stays pending, and the sweep asks again with the same
refund reference, which the gateway refunds at most once.

A payment the gateway never saw (a UPI payment from the slip's QR code, payments.upi_direct)
goes back by bank transfer (the ADR's addendum): the clerk gives the payer's account, another
person approves (posted as above), and the clerk records the bank's UTR once the bank has paid,
which settles it as the gateway's success would."""

import logging
import re

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.roles import Permission
from accounts.scoping import authorise
from impounding.dues import dues
from impounding.models import Animal
from kernel.idempotency import made_with_key
from ledger import services as ledger
from ledger.models import AccountKind, Transaction, TransactionKind

from .gateways import FAILURE, SUCCESS, BadMessage, GatewayError, gateway
from .models import (
    REFUND_OPEN,
    Payment,
    PaymentEvent,
    PaymentState,
    Refund,
    RefundEvent,
    RefundMethod,
    RefundReason,
    RefundState,
)

logger = logging.getLogger(__name__)


class RefundRefused(ValidationError):
    pass


def _move(refund, to, *, source, by=None, data=None, fields=()):
    old = refund.state
    refund.ensure_transition(to)
    refund.state = to
    refund.save(update_fields=["state", *fields])
    RefundEvent.objects.create(
        refund=refund, old_state=old, new_state=to, by=by, source=source, data=data or {}
    )


def refund_reference(refund):
    """Our reference for the refund, sent with every request for it: the gateway refunds one
    reference once, however often it is asked."""
    return f"{refund.payment.reference}R{refund.pk}"


def _ensure_refundable(payment, reason):
    if payment.state != PaymentState.SUCCEEDED:
        raise RefundRefused(
            _("Only a payment the gateway confirmed, and that no release took, can be refunded.")
        )
    still_in = Animal.objects.claimable_in(payment.impoundment).filter(pk__in=payment.animal_ids)
    if reason == RefundReason.DUES_SHRANK:
        if not still_in or dues(still_in).total >= payment.amount:
            raise RefundRefused(
                {"reason": _("The dues are not less than this payment: release on it instead.")}
            )
    elif still_in:
        raise RefundRefused(
            {
                "reason": _(
                    "An animal this payment is for is still in the pound: release it on the "
                    "payment instead."
                )
            }
        )
    if reason == RefundReason.PAID_TWICE and not payment.impoundment.releases.exists():
        raise RefundRefused(
            {"reason": _("No release took these dues another way: they were not paid twice.")}
        )
    if payment.refunds.filter(state__in=REFUND_OPEN).exists():
        raise RefundRefused(_("This payment is already being refunded."))


IFSC = re.compile(r"[A-Z]{4}0[A-Z0-9]{6}")  # RBI: the bank's four letters, 0, the branch's six
ACCOUNT = re.compile(r"\d{9,18}")
UTR = re.compile(r"[A-Z0-9]{12,22}")  # IMPS RRN 12 digits, NEFT 16, RTGS 22


def by_gateway(payment):
    """Whether the gateway the payment went through can refund it."""
    try:
        gateway(payment.gateway)
    except GatewayError:
        return False
    return True


def _bank_account(payee_name, account_number, ifsc):
    """The payer's account, cleaned, or RefundRefused naming each field that is wrong."""
    name, number = " ".join(payee_name.split()), "".join(account_number.split())
    ifsc = "".join(ifsc.split()).upper()
    errors = {}
    if not name:
        errors["payee_name"] = _("Enter the name of the account's holder.")
    if not ACCOUNT.fullmatch(number):
        errors["account_number"] = _("Enter the account number: 9 to 18 digits.")
    if not IFSC.fullmatch(ifsc):
        errors["ifsc"] = _("Enter the IFSC: 11 characters, like SBIN0001234.")
    if errors:
        raise RefundRefused(errors)
    return {"payee_name": name, "account_number": number, "ifsc": ifsc}


@transaction.atomic
def prepare_refund(*, payment, by, reason, idempotency_key, note="", **account):
    """The maker's step: a refund of the whole payment, awaiting another person's approval.
    The same form sent twice gives the same refund. A payment the gateway cannot refund goes
    back by bank transfer, to the account given (`payee_name`, `account_number`, `ifsc`)."""
    authorise(by, Permission.PREPARE_ORDERS, payment.impoundment.pound)
    payment = Payment.objects.select_for_update(of=("self",)).get(pk=payment.pk)
    done = made_with_key(Refund, idempotency_key, payment_id=payment.pk, prepared_by_id=by.pk)
    if done is not None:
        return done
    if reason not in RefundReason.values:
        raise RefundRefused({"reason": _("Choose why the payment is refunded.")})
    _ensure_refundable(payment, reason)
    bank = {} if by_gateway(payment) else _bank_account(**_account_fields(account))
    refund = Refund(
        payment=payment,
        amount=payment.amount,
        reason=reason,
        note=note.strip(),
        idempotency_key=idempotency_key,
        prepared_by=by,
        method=RefundMethod.BANK if bank else RefundMethod.GATEWAY,
        **bank,
    )
    try:
        with transaction.atomic():
            refund.save()
    except IntegrityError:
        raise RefundRefused(_("This payment is already being refunded.")) from None
    RefundEvent.objects.create(
        refund=refund, new_state=RefundState.PREPARED, by=by, source="screen"
    )
    refund.replayed = False  # type: ignore[attr-defined]
    return refund


def _account_fields(account):
    return {k: account.get(k) or "" for k in ("payee_name", "account_number", "ifsc")}


def _lock_for_decision(refund, by):
    authorise(by, Permission.APPROVE, refund.payment.impoundment.pound)
    refund = (
        Refund.objects.select_for_update(of=("self",)).select_related("payment").get(pk=refund.pk)
    )
    if refund.prepared_by_id == by.pk:
        raise RefundRefused(_("Whoever prepared a refund may not approve or decline it."))
    return refund


@transaction.atomic
def decline_refund(*, refund, by, note=""):
    """The checker declines: nothing is sent, nothing is posted. Declining again changes nothing."""
    refund = _lock_for_decision(refund, by)
    if refund.state == RefundState.DECLINED:
        return refund
    if refund.state != RefundState.PREPARED:
        raise RefundRefused(_("This refund has already been approved."))
    refund.decided_by, refund.decided_at = by, timezone.now()
    _move(
        refund,
        RefundState.DECLINED,
        source="screen",
        by=by,
        data={"note": note.strip()},
        fields=["decided_by", "decided_at"],
    )
    return refund


def _post(refund, kind, *, by, debit, credit, memo):
    payment = refund.payment
    entry = payment.impoundment
    district = entry.pound.district
    return ledger.post(
        district=district,
        pound=entry.pound,
        kind=kind,
        memo=memo,
        by=by,
        source=f"payments.refund:{refund.pk}",
        impoundment_id=entry.pk,
        lines=[
            (ledger.account(district=district, kind=debit), refund.amount),
            (ledger.account(district=district, kind=credit), -refund.amount),
        ],
    )


@transaction.atomic
def _send(refund, by):
    """Approved: pending, with the money owed back posted, before the gateway is asked."""
    refund = _lock_for_decision(refund, by)
    if refund.state != RefundState.PREPARED:
        if refund.state == RefundState.DECLINED:
            raise RefundRefused(_("This refund was declined."))
        return refund, False  # approved before: a second click asks nothing again
    refund.decided_by, refund.decided_at = by, timezone.now()
    _move(refund, RefundState.PENDING, source="screen", by=by, fields=["decided_by", "decided_at"])
    _post(
        refund,
        TransactionKind.GATEWAY_REFUND_SENT,
        by=by,
        debit=AccountKind.GATEWAY_CLEARING,
        credit=AccountKind.GATEWAY_REFUNDS_DUE,
        memo=f"{refund.payment.reference}: refund sent",
    )
    return refund, True


def approve_refund(*, refund, by):
    """The checker's step: the refund is sent to the gateway. Returns the refund, refunded,
    failed, or pending when the gateway did not answer (it is asked again by the sweep)."""
    refund, sent = _send(refund, by)
    if not sent or refund.method == RefundMethod.BANK:
        return refund  # by bank: pending until the clerk records the bank's UTR
    return ask_gateway(refund, source="gateway")


def ask_gateway(refund, *, source):
    try:
        outcome = gateway(refund.payment.gateway).refund(
            reference=refund.payment.reference,
            amount=refund.amount,
            refund_reference=refund_reference(refund),
        )
    except (GatewayError, BadMessage) as exc:
        logger.warning("refund %s: the gateway did not answer: %s", refund.pk, exc)
        return refund
    return hear_refund(refund, outcome, source=source)


@transaction.atomic
def hear_refund(refund, outcome, *, source):
    """Settle a pending refund on the gateway's answer; an answer heard before, or "pending",
    changes nothing."""
    refund = (
        Refund.objects.select_for_update(of=("self",)).select_related("payment").get(pk=refund.pk)
    )
    said = {
        "status": outcome.status,
        "amount": str(outcome.amount),
        "gwref": outcome.gateway_reference,
    }
    if refund.state != RefundState.PENDING or outcome.amount != refund.amount:
        return refund
    if outcome.status == SUCCESS:
        _refunded(refund, outcome.gateway_reference, source=source, by=refund.decided_by, data=said)
    elif outcome.status == FAILURE:
        _move(refund, RefundState.FAILED, source=source, data=said)
        sent = Transaction.objects.get(
            source=f"payments.refund:{refund.pk}", kind=TransactionKind.GATEWAY_REFUND_SENT
        )
        ledger.reverse(txn=sent, by=refund.decided_by, reason="the gateway refused the refund")
    return refund


def _refunded(refund, reference, *, source, by, data):
    """The money is back with the payer: the refund and its payment are refunded, and the
    refund owed leaves the books, in the caller's transaction."""
    refund.gateway_reference = reference
    _move(
        refund, RefundState.REFUNDED, source=source, by=by, data=data, fields=["gateway_reference"]
    )
    _post(
        refund,
        TransactionKind.GATEWAY_REFUNDED,
        by=by,
        debit=AccountKind.GATEWAY_REFUNDS_DUE,
        credit=AccountKind.GATEWAY_CLEARING,
        memo=f"{refund.payment.reference}: refunded, {reference}",
    )
    payment = Payment.objects.select_for_update(of=("self",)).get(pk=refund.payment_id)
    PaymentEvent.objects.create(
        payment=payment,
        old_state=payment.state,
        new_state=PaymentState.REFUNDED,
        by=by,
        source="refund",
        data={"refund": refund.pk},
    )
    payment.ensure_transition(PaymentState.REFUNDED)
    payment.state = PaymentState.REFUNDED
    payment.save(update_fields=["state"])


@transaction.atomic
def record_bank_transfer(*, refund, by, utr):
    """The clerk records the bank's UTR of an approved refund by bank transfer, once the bank has
    paid: refunded, posted, in one transaction. The same UTR recorded again changes nothing."""
    authorise(by, Permission.PREPARE_ORDERS, refund.payment.impoundment.pound)
    refund = (
        Refund.objects.select_for_update(of=("self",)).select_related("payment").get(pk=refund.pk)
    )
    utr = "".join(utr.split()).upper()
    if not UTR.fullmatch(utr):
        raise RefundRefused({"utr": _("Enter the bank's UTR: 12 to 22 letters and digits.")})
    if refund.method != RefundMethod.BANK:
        raise RefundRefused(_("The gateway settles this refund, not a bank transfer."))
    if refund.state == RefundState.REFUNDED and refund.gateway_reference == utr:
        return refund  # the same form sent twice
    if refund.state != RefundState.PENDING:
        raise RefundRefused(_("Only an approved refund, not yet paid, takes the bank's UTR."))
    if Refund.objects.filter(method=RefundMethod.BANK, gateway_reference=utr).exists():
        raise RefundRefused({"utr": _("This UTR already records another refund.")})
    try:
        with transaction.atomic():
            _refunded(refund, utr, source="bank", by=by, data={"utr": utr})
    except IntegrityError:  # another refund took the UTR at the same moment
        raise RefundRefused({"utr": _("This UTR already records another refund.")}) from None
    return refund


def sweep_refunds():
    """Ask again about every pending refund through the gateway. Returns (asked, settled)."""
    asked = settled = 0
    pending = Refund.objects.filter(state=RefundState.PENDING, method=RefundMethod.GATEWAY)
    for refund in pending.select_related("payment"):
        asked += 1
        if ask_gateway(refund, source="status").state != RefundState.PENDING:
            settled += 1
    return asked, settled
