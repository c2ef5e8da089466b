"""Fines remitted by a pound to the District Magistrate with a treasury challan (s.17): sent by
the pound out of its till, confirmed by the office (maker-checker), each atomic, with its event
and one balanced ledger transaction in the same database transaction."""

from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Sum, Value
from django.db.models.functions import Replace, Upper
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import todos
from accounts.models import Counter
from accounts.roles import Permission
from accounts.scoping import has_permission
from kernel import clock
from kernel.events import record_event
from kernel.formatting import inr
from kernel.messages import Message
from kernel.refs import ref
from ledger import services as ledger
from ledger.models import AccountKind, PaymentMode, TransactionKind, till

from . import statements
from .actions import Action
from .models import Remittance, TreasuryChallan
from .statements import fines_credited
from .treasury import complete, deface_grn, grn_used

ZERO = Decimal("0.00")


def account(district, kind, pound=None):
    """The ledger account of `kind` (the pound's, with `pound`), created on first use."""
    return ledger.account(district=district, kind=kind, pound=pound)


def remitted_from(from_cash):
    """The pound's account a remittance is paid out of: its cash box, or its UPI collections."""
    return till(PaymentMode.CASH if from_cash else PaymentMode.UPI)


# --- Fines remitted by a pound --------------------------------------------------------------


def unremitted_fines(pound):
    """Fines credited to the District Magistrate from this pound's collections, less what the
    pound has remitted so far (sent or confirmed)."""
    credited = fines_credited([pound.pk]).get(pound.pk, ZERO)
    sent = Remittance.objects.filter(pound=pound).aggregate(t=Sum("amount", default=ZERO))["t"]
    return credited - sent


def cash_in_hand(pound, from_cash=True):
    return account(pound.district, remitted_from(from_cash), pound).balance()


@transaction.atomic
def send_remittance(
    *,
    pound,
    by,
    amount,
    challan_number,
    treasury,
    remitted_on,
    from_cash=True,
    authority="",
    idempotency_key=None,
):
    """The pound-keeper remits fines to the District Magistrate with a challan (s.17). The
    money leaves the pound's till, so this is the keeper's, or the office's on a written
    authority it names (`authority`, recorded with the remittance); never the police's, who
    may take payments but not pay out.

    Once for each `idempotency_key`: the same form sent again returns the remittance it made,
    marked `replayed`, and moves no more money. A challan proves one remittance only."""
    ledger.authorise_till_payment(by, pound, authority)
    type(pound).objects.select_for_update(of=("self",)).get(pk=pound.pk)  # one remittance at a time
    if idempotency_key is not None and (done := _remittance_of_key(idempotency_key, pound, by)):
        return done
    amount = _remittable(pound, Decimal(amount), remitted_on, from_cash)
    _refuse_used_challan(challan_number)
    year = remitted_on.year
    number = f"REM/{pound.code.upper()}/{year}/{Counter.next(f'rem:{pound.pk}:{year}'):05d}"
    remittance = Remittance(
        pound=pound,
        number=number,
        amount=amount,
        challan_number=challan_number,
        treasury=treasury,
        remitted_on=remitted_on,
        from_cash=from_cash,
        sent_by=by,
        authority="" if ledger.keeps_till(by, pound) else authority.strip(),
    )
    remittance.idempotency_key = idempotency_key
    remittance.full_clean()  # the challan and the treasury are the proof of the remittance
    try:
        with transaction.atomic():
            remittance.save()
    except IntegrityError:
        # Another pound recorded the same challan while this one was being checked.
        _refuse_used_challan(challan_number)
        raise
    # The GRN is defaced: no other transfer to the State may be proved by it (ADR 0076).
    deface_grn(grn=challan_number, by=by, remittance=remittance, field="challan_number")
    _book_sent(remittance, by)
    if statements.pound_positions([pound])[pound.pk].fines_due <= 0:
        todos.close(f"remit_fines:{pound.pk}")
    return remittance


def _book_sent(remittance, by):
    """The remittance's money into transit to the treasury, and its event (s.17)."""
    pound, number, amount = remittance.pound, remittance.number, remittance.amount
    challan_number, district = remittance.challan_number, remittance.pound.district
    ledger.post(
        district=district,
        pound=pound,
        kind=TransactionKind.REMITTANCE_SENT,
        by=by,
        section="s.17",
        source=ref(remittance),
        memo=f"{number}: fines ₹{amount} remitted, challan {challan_number}",
        lines=[
            (account(district, AccountKind.REMITTANCES_IN_TRANSIT), amount),
            (account(district, remitted_from(remittance.from_cash), pound), -amount),
        ],
    )
    record_event(
        action=Action.REMITTANCE_SENT,
        section="s.17",
        by=by,
        pound=pound,
        summary=Message(
            gettext_noop("%(number)s: ₹%(amount)s of fines remitted, challan %(challan)s"),
            number=number,
            amount=amount,
            challan=challan_number,
        ),
        data={
            "remittance": number,
            "amount": amount,
            "challan": challan_number,
            "authority": remittance.authority,
        },
    )


def _remittance_of_key(key, pound, by):
    """The remittance an earlier sending of this form made, if any. A key is the form's own:
    one presented for another pound, or by another person, is refused, not replayed."""
    done = Remittance.objects.filter(idempotency_key=key).first()
    if done is None:
        return None
    if done.pound_id != pound.pk or done.sent_by_id != by.pk:
        raise ValidationError(_("This form has already been used: open a new one."))
    done.replayed = True  # type: ignore[attr-defined]
    return done


def _refuse_used_challan(challan_number):
    used = (
        # The annotation shares its name with the model's static method: the stubs object.
        Remittance.objects.annotate(  # type: ignore[no-redef, misc]
            challan_key=Upper(Replace("challan_number", Value(" "), Value("")))
        )
        .filter(challan_key=Remittance.challan_key(challan_number))
        .exists()
    )
    if used or grn_used(challan_number):
        raise ValidationError(
            {
                "challan_number": _(
                    "This challan is already recorded for another remittance: a challan "
                    "settles one payment. Check the number on the treasury's receipt."
                )
            }
        )


@transaction.atomic
def confirm_remittance(*, remittance, by, challan_number=None, **scroll):
    """The office confirms the money reached the treasury: the fines are the District
    Magistrate's (s.17). Given the `challan_number` the treasury holds (the API asks for it), it
    must be the remittance's, compared as the unique index compares challans. Given the bank's
    `cin` and the treasury's `scroll_number` and `scroll_date` (`scroll`), the challan's GRN is
    confirmed with them, by this other person than its sender (ADR 0076)."""
    remittance = (
        Remittance.objects.select_for_update(of=("self",))
        .select_related("pound__district", "sent_by")
        .get(pk=remittance.pk)
    )
    pound, district = remittance.pound, remittance.pound.district
    if not has_permission(by, Permission.PREPARE_ORDERS, district):
        raise PermissionDenied(_("The District Magistrate's office confirms remittances."))
    given = Remittance.challan_key(challan_number or "")
    if challan_number is not None and given != Remittance.challan_key(remittance.challan_number):
        raise ValidationError(
            {"challan_number": _("This is not the challan number the remittance was sent with.")}
        )
    if remittance.status != Remittance.Status.SENT:
        raise ValidationError(_("This remittance is already confirmed."))
    # Maker-checker: whoever sent the money may not also say it arrived.
    remittance.check_decider(by)
    remittance.status, remittance.confirmed_by = Remittance.Status.CONFIRMED, by
    remittance.confirmed_at = timezone.now()
    remittance.save(update_fields=["status", "confirmed_by", "confirmed_at"])
    if any(value is not None for value in scroll.values()):
        _confirm_grn(remittance, by, scroll)
    amount = remittance.amount
    ledger.post(
        district=district,
        pound=pound,
        kind=TransactionKind.REMITTANCE_CONFIRMED,
        by=by,
        section="s.17",
        source=ref(remittance),
        memo=f"{remittance.number}: ₹{amount} received, challan {remittance.challan_number}",
        lines=[
            (account(district, AccountKind.DM_TREASURY), amount),
            (account(district, AccountKind.REMITTANCES_IN_TRANSIT), -amount),
            (account(district, AccountKind.FINES_DUE_DM), amount),
            (account(district, AccountKind.FINES_RECEIVED), -amount),
        ],
    )
    record_event(
        action=Action.REMITTANCE_CONFIRMED,
        section="s.17",
        by=by,
        pound=pound,
        summary=Message(
            gettext_noop(
                "%(number)s: ₹%(amount)s confirmed received by %(by)s, sent by %(sent_by)s"
            ),
            number=remittance.number,
            amount=amount,
            by=by.username,
            sent_by=remittance.sent_by.username,
        ),
        data={
            "remittance": remittance.number,
            "sent_by": remittance.sent_by_id,
            "confirmed_by": by.pk,
        },
    )
    todos.close(f"remittance_confirm:{remittance.pk}")
    return remittance


def _confirm_grn(remittance, by, scroll):
    """The remittance's GRN confirmed with the CIN and the scroll, by its confirmer."""
    locked = TreasuryChallan.objects.select_for_update(of=("self",))
    challan = locked.filter(remittance=remittance).first() or deface_grn(
        grn=remittance.challan_number, by=remittance.sent_by, remittance=remittance
    )
    complete(challan, today=clock.today(remittance.pound), **scroll)
    challan.confirmed_by, challan.confirmed_at = by, remittance.confirmed_at
    fields = ["cin", "scroll_number", "scroll_date", "confirmed_by", "confirmed_at"]
    challan.save(update_fields=fields)


def _remittable(pound, amount, remitted_on, from_cash):
    """The amount, if the pound may remit it on that day: no more than the fines waiting to be
    remitted, nor than the till it leaves holds."""
    if amount <= 0:
        raise ValidationError({"amount": _("Enter the amount remitted.")})
    if remitted_on > clock.today(pound):
        raise ValidationError({"remitted_on": _("The date cannot be in the future.")})
    due = unremitted_fines(pound)
    if amount > due:
        raise ValidationError(
            {"amount": _("Only %(due)s of fines is waiting to be remitted.") % {"due": inr(due)}}
        )
    held = cash_in_hand(pound, from_cash)
    if amount > held:
        raise ValidationError(
            {"amount": _("The pound holds only %(held)s there.") % {"held": inr(held)}}
        )
    return amount
