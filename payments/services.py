"""The payments' steps: start one, hear the gateway, sweep the silent ones, and hand a succeeded
payment to the release that takes it (docs/decisions/0075). Each is atomic and writes its
PaymentEvent; the payment's row is locked before it changes, so a callback and the sweep, or two
callbacks, meet one after the other and the second finds nothing to do."""

import logging
import uuid
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.roles import Permission
from accounts.scoping import authorise, system_actor
from impounding.dues import dues
from impounding.models import Animal, Impoundment

from .gateways import FAILURE, SUCCESS, BadMessage, GatewayError, gateway
from .models import REFUND_OPEN, Payment, PaymentEvent, PaymentState

logger = logging.getLogger(__name__)

# A payment the gateway has said nothing of for this long is asked about by the sweep.
QUIET = timedelta(minutes=5)


class PaymentRefused(ValidationError):
    pass


def _move(payment, to, *, source, by=None, data=None, fields=()):
    old = payment.state
    payment.ensure_transition(to)
    payment.state = to
    payment.full_clean(exclude=["impoundment", "created_by", "release"])
    payment.save(update_fields=["state", *fields])
    PaymentEvent.objects.create(
        payment=payment, old_state=old, new_state=to, by=by, source=source, data=data or {}
    )


def _new_reference():
    return f"PA{timezone.localdate():%y%m%d}{uuid.uuid4().hex[:10].upper()}"


@transaction.atomic
def start_payment(*, entry, by, return_url, callback_url):
    """Open a payment of the dues of every animal of `entry` still in the pound, and the order
    that sends the browser to the gateway. Refused while another payment of the entry is open
    (created, pending, unknown, or succeeded and not yet released on)."""
    authorise(by, Permission.RECORD_PAYMENT, entry.pound)
    return _open_payment(
        entry, by=by, key=None, source="screen", return_url=return_url, callback_url=callback_url
    )


@transaction.atomic
def start_owner_payment(*, entry, idempotency_key, return_url, callback_url):
    """The owner's "Pay online" on the public pay page (docs/decisions/0085): the same payment
    as the keeper's, made by no one signed in (the daily run's user stands as its maker, the
    event says "owner"). The form's key makes one payment of one attempt: sent twice, the first
    payment comes back with no order (it is shown, not paid again)."""
    key = uuid.UUID(str(idempotency_key))
    entry = Impoundment.objects.select_for_update(of=("self",)).get(pk=entry.pk)
    done = Payment.objects.filter(idempotency_key=key).first()
    if done is not None:
        if done.impoundment_id != entry.pk:
            raise PaymentRefused(_("This form has already been used: open a new one."))
        return done, None
    return _open_payment(
        entry,
        by=system_actor(),
        key=key,
        source="owner",
        return_url=return_url,
        callback_url=callback_url,
    )


def _open_payment(entry, *, by, key, source, return_url, callback_url):
    # The entry's lock orders two screens starting a payment; the index catches any other path.
    entry = Impoundment.objects.select_for_update(of=("self",)).get(pk=entry.pk)
    if Payment.objects.filter(impoundment=entry).open().exists():
        raise PaymentRefused(_("A payment of these dues is already in progress."))
    animals = list(Animal.objects.claimable_in(entry))
    if not animals:
        raise PaymentRefused(_("No animal of this entry is in the pound."))
    statement = dues(animals)
    if statement.total <= 0:
        raise PaymentRefused(_("There is nothing to pay for these animals."))
    adapter = gateway()
    payment = Payment(
        impoundment=entry,
        animal_ids=[a.pk for a in animals],
        amount=statement.total,
        gateway=adapter.name,
        reference=_new_reference(),
        created_by=by,
        idempotency_key=key,
    )
    payment.full_clean(exclude=["impoundment", "created_by"])
    try:
        with transaction.atomic():
            payment.save()
    except IntegrityError:
        raise PaymentRefused(_("A payment of these dues is already in progress.")) from None
    shown_by = None if source == "owner" else by
    PaymentEvent.objects.create(
        payment=payment, new_state=PaymentState.CREATED, by=shown_by, source=source
    )
    order = adapter.create_order(
        reference=payment.reference,
        amount=payment.amount,
        return_url=return_url(payment),
        callback_url=callback_url(payment),
    )
    _move(payment, PaymentState.PENDING, source=source, by=shown_by)
    return payment, order


@transaction.atomic
def hear(outcome, *, source):
    """Settle a payment on what the gateway says of it (a callback, or a status query's answer).
    Idempotent: a payment already settled, or told "pending" again, is not changed, and None is
    returned; otherwise the payment. A message naming an amount other than the order's is
    recorded and changes nothing: the payment waits for the status query."""
    payment = (
        Payment.objects.select_for_update(of=("self",)).filter(reference=outcome.reference).first()
    )
    if payment is None:
        raise BadMessage("no payment with this reference")
    if payment.state not in (PaymentState.PENDING, PaymentState.UNKNOWN):
        return None  # heard before: a second callback, or one after the sweep settled it
    said = {
        "status": outcome.status,
        "amount": str(outcome.amount),
        "gwref": outcome.gateway_reference,
    }
    if outcome.amount != payment.amount:
        PaymentEvent.objects.create(
            payment=payment,
            old_state=payment.state,
            new_state=payment.state,
            source=source,
            data=said | {"refused": "amount"},
        )
        logger.warning("payment %s: a message named another amount", payment.reference)
        return None
    if outcome.status == SUCCESS:
        payment.gateway_reference = outcome.gateway_reference
        payment.settled_at = timezone.now()
        _move(
            payment,
            PaymentState.SUCCEEDED,
            source=source,
            data=said,
            fields=["gateway_reference", "settled_at"],
        )
        return payment
    if outcome.status == FAILURE:
        payment.settled_at = timezone.now()
        _move(payment, PaymentState.FAILED, source=source, data=said, fields=["settled_at"])
        return payment
    return None


def _unheard(payment):
    """The gateway could not be asked: a pending payment becomes unknown (still in progress)."""
    with transaction.atomic():
        payment = Payment.objects.select_for_update(of=("self",)).get(pk=payment.pk)
        if payment.state == PaymentState.PENDING:
            _move(payment, PaymentState.UNKNOWN, source="status")


def sweep(*, now=None):
    """Ask the gateway about every payment pending or unknown and quiet for QUIET, and settle it.
    Returns (asked, settled). One payment's trouble does not stop the others."""
    now = now or timezone.now()
    quiet = Payment.objects.filter(
        state__in=(PaymentState.PENDING, PaymentState.UNKNOWN), created_at__lte=now - QUIET
    ).order_by("pk")
    asked = settled = 0
    for payment in quiet:
        asked += 1
        try:
            outcome = gateway(payment.gateway).query_status(payment.reference)
        except GatewayError as exc:
            logger.warning("payment %s: the gateway did not answer: %s", payment.reference, exc)
            _unheard(payment)
            continue
        try:
            if hear(outcome, source="status") is not None:
                settled += 1
            elif outcome.status not in (SUCCESS, FAILURE):
                _unheard(payment)
        except BadMessage as exc:
            logger.warning("payment %s: %s", payment.reference, exc)
            _unheard(payment)
    return asked, settled


def ensure_none_open(entry):
    """Refuse to take the dues at the till while a payment of them through the gateway is open
    (in progress, or succeeded and not yet released on): they would be paid twice."""
    if Payment.objects.filter(impoundment=entry).open().exists():
        raise PaymentRefused(
            {
                "payment_mode": _(
                    "These dues are being paid online. Release on that payment, or wait for "
                    "the gateway to answer."
                )
            }
        )


def in_progress(entry):
    """Whether a payment of the entry's dues is with the gateway and not yet answered (created,
    pending or unknown): such dues may be paid, so nothing else may take them meanwhile."""
    return Payment.objects.filter(impoundment=entry).in_progress().exists()


def take_for_release(*, payment, release):
    """A release takes a succeeded payment of its entry's dues: the payment becomes reconciled,
    once. Runs inside the release's transaction. Returns the top-up: what the dues grew by since
    the payment was made (a feeding day accrued), which the release takes at the till
    (docs/decisions/0085). Dues now below the payment (a charge waived) are refused: the payment
    goes back by the refund path and the dues are taken at the till, never paid twice."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a payment is taken inside the release's transaction")
    payment = Payment.objects.select_for_update(of=("self",)).get(pk=payment.pk)
    if payment.impoundment_id != release.impoundment_id:
        raise PaymentRefused({"payment": _("This payment is for another register entry.")})
    if payment.state != PaymentState.SUCCEEDED:
        raise PaymentRefused({"payment": _("The gateway has not confirmed this payment.")})
    if payment.amount > release.amount:
        raise PaymentRefused(
            {
                "payment": _(
                    "The dues are now less than this payment: refund the payment and take the "
                    "dues at the till."
                )
            }
        )
    if not set(release.lines.values_list("animal_id", flat=True)) >= set(payment.animal_ids):
        raise PaymentRefused({"payment": _("This payment paid for animals this release leaves.")})
    if payment.refunds.filter(state__in=REFUND_OPEN).exists():
        raise PaymentRefused({"payment": _("This payment is being refunded.")})
    top_up = release.amount - payment.amount
    payment.release = release
    _move(
        payment,
        PaymentState.RECONCILED,
        source="release",
        by=release.released_by,
        data={"release": release.pk, "top_up": str(top_up)},
        fields=["release"],
    )
    return top_up


def top_up(entry, total):
    """The succeeded payment of `entry` a release would take, and what the till takes beside it
    to make `total` (the dues now): (payment, shortfall), or (None, total) when none is paid.
    The shortfall is negative when the dues shrank below the payment."""
    payment = Payment.objects.succeeded_for(entry)
    if payment is None:
        return None, total
    return payment, total - payment.amount


def confirm_from_statement(*, payment, line, by=None):
    """A bank statement's line shows `payment`'s money arrived (docs/decisions/0082). A payment
    the gateway has not confirmed (pending, unknown) becomes succeeded, as a callback would make
    it; one already confirmed is only tied to the line. Runs inside the caller's transaction,
    with the payment's row locked."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a statement line settles a payment inside a transaction")
    payment.statement_line = line
    fields = ["statement_line"]
    if payment.state in (PaymentState.PENDING, PaymentState.UNKNOWN):
        payment.settled_at = timezone.now()
        payment.gateway_reference = payment.gateway_reference or line.utr
        _move(
            payment,
            PaymentState.SUCCEEDED,
            source="statement",
            by=by,
            data={"line": line.pk, "utr": line.utr, "amount": str(line.amount)},
            fields=[*fields, "settled_at", "gateway_reference"],
        )
    else:
        payment.save(update_fields=fields)
        PaymentEvent.objects.create(
            payment=payment,
            old_state=payment.state,
            new_state=payment.state,
            by=by,
            source="statement",
            data={"line": line.pk, "utr": line.utr},
        )
    return payment
