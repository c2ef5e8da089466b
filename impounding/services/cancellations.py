"""A receipt issued in error (docs/domain.md decision 11): the pound-keeper asks for it to be
cancelled, with the reason; the office, another person, approves or refuses.

Approved, the receipt keeps its serial number and shows CANCELLED on its PDF and on the
verification page; the release's transaction is reversed in the books; the animals are back in
custody, their feeding running on from the day they came in as if they had never left; an event
records both people. The corrected receipt, when the owner pays again, takes the next serial
and names the one it replaces (`release_on_payment(replaces=...)`).

Only a s.13 payment receipt is cancelled here: a s.15 deposit receipt has a complaint and a
deposit hanging on it, which the court's order settles instead.
"""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.roles import Permission
from accounts.scoping import authorise, has_permission
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message
from kernel.refs import ref
from ledger import services as ledger
from ledger.models import Transaction, TransactionKind

from ..actions import Action
from ..models import Animal, AnimalState, Receipt, ReceiptCancellation, Release, ReleaseLine


@transaction.atomic
def ask_receipt_cancellation(*, receipt, by, reason, idempotency_key=None):
    """The pound-keeper asks the office to cancel a receipt issued in error. Once for each
    `idempotency_key`: the same form sent again returns the request it made, marked
    `replayed` (read under the receipt's lock, so two sendings at once ask once)."""
    receipt = (
        Receipt.objects.select_for_update(of=("self",)).select_related("pound").get(pk=receipt.pk)
    )
    # Cancelling hands the money back out of the till: the keeper's duty, not the police's.
    authorise(by, Permission.PAY_FROM_TILL, receipt.pound)
    done = made_with_key(
        ReceiptCancellation, idempotency_key, receipt_id=receipt.pk, requested_by_id=by.pk
    )
    if done is not None:
        return done
    if receipt.kind != Receipt.Kind.PAYMENT:
        raise ValidationError(_("Only a receipt for fines and feeding charges is cancelled here."))
    if receipt.cancelled_at is not None:
        raise ValidationError(_("This receipt is already cancelled."))
    if receipt.cancellations.filter(status=ReceiptCancellation.Status.PENDING).exists():
        raise ValidationError(_("The office has this receipt's cancellation before it already."))
    if not reason.strip():
        raise ValidationError({"reason": _("Say why the receipt was issued in error.")})
    cancellation = ReceiptCancellation.objects.create(
        receipt=receipt, reason=reason.strip(), requested_by=by, idempotency_key=idempotency_key
    )
    release = Release.objects.get(receipt=receipt)
    record_event(
        action=Action.RECEIPT_CANCELLATION_ASKED,
        section="s.13",
        summary=Message(
            gettext_noop("Cancellation of receipt %(number)s asked for: %(reason)s"),
            number=receipt.number,
            reason=reason.strip(),
        ),
        by=by,
        impoundment=release.impoundment,
        data={"receipt": receipt.number, "reason": reason.strip()},
    )
    return cancellation


@transaction.atomic
def decide_receipt_cancellation(*, cancellation, by, approve, note=""):
    """The office approves (or refuses) a cancellation another person asked for."""
    cancellation = (
        ReceiptCancellation.objects.select_for_update(of=("self",))
        .select_related("receipt__pound__district", "requested_by")
        .get(pk=cancellation.pk)
    )
    receipt = cancellation.receipt
    if not has_permission(by, Permission.PREPARE_ORDERS, receipt.pound):
        raise PermissionDenied(_("The District Magistrate's office decides a cancellation."))
    cancellation.check_decider(by)
    if cancellation.status != ReceiptCancellation.Status.PENDING:
        raise ValidationError(_("This cancellation has already been decided."))
    cancellation.status = (
        ReceiptCancellation.Status.APPROVED if approve else ReceiptCancellation.Status.REJECTED
    )
    cancellation.decided_by, cancellation.decided_at = by, timezone.now()
    cancellation.decision_note = note.strip()
    cancellation.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
    release = Release.objects.select_related("impoundment").get(receipt=receipt)
    if approve:
        _cancel(receipt, release, cancellation, by)
    record_event(
        action=Action.RECEIPT_CANCELLED if approve else Action.RECEIPT_CANCELLATION_REFUSED,
        section="s.13",
        summary=Message(
            gettext_noop("Receipt %(number)s cancelled by %(by)s, asked for by %(asked_by)s")
            if approve
            else gettext_noop(
                "Receipt %(number)s not cancelled by %(by)s, asked for by %(asked_by)s"
            ),
            number=receipt.number,
            by=by.username,
            asked_by=cancellation.requested_by.username,
        ),
        by=by,
        impoundment=release.impoundment,
        data={
            "receipt": receipt.number,
            "asked_by": cancellation.requested_by_id,
            "decided_by": by.pk,
            "reason": cancellation.reason,
            "note": cancellation.decision_note,
        },
    )
    return cancellation


def _cancel(receipt, release, cancellation, by):
    receipt = Receipt.objects.select_for_update(of=("self",)).get(pk=receipt.pk)
    if receipt.cancelled_at is not None:
        raise ValidationError(_("This receipt is already cancelled."))
    animals = list(
        Animal.objects.select_for_update(of=("self",)).filter(release=release).order_by("pk")
    )
    if any(a.state != AnimalState.RELEASED_PAID for a in animals):
        raise ValidationError(_("An animal of this receipt is no longer as it was released."))
    till = ledger.till_account(receipt.pound, receipt.payment_mode)
    if till.balance() < receipt.amount:
        # The money has left the till (remitted, or paid out): it cannot be handed back from it.
        raise ValidationError(
            _("The till no longer holds this receipt's money; the office must settle it first.")
        )
    now = timezone.now()
    receipt.cancelled_at, receipt.cancelled_reason = now, cancellation.reason
    receipt.full_clean()
    receipt.save(update_fields=["cancelled_at", "cancelled_reason"])
    document = receipt.document
    document.revoked_at, document.revoked_reason = now, cancellation.reason[:200]
    document.save(update_fields=["revoked_at", "revoked_reason"])
    txn = Transaction.objects.get(source=ref(release), kind=TransactionKind.PAYMENT_S13)
    ledger.reverse(txn=txn, by=by, reason=f"receipt {receipt.number} cancelled")
    # Back in custody as if they had never left: the dues run on from the day they came in.
    for animal in animals:
        animal.state, animal.release, animal.custody_ended_at = AnimalState.IMPOUNDED, None, None
        animal.save(update_fields=["state", "release", "custody_ended_at"])
    ReleaseLine.objects.filter(release=release).update(cancelled=True)
