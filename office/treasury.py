"""Treasury transfers to the State, each proved by its challan (ADR 0076): the GRN of the e-GRAS
or GRAS challan, the bank's CIN, and the treasury scroll's number and date.

A GRN is defaced when it is first recorded: a row of TreasuryChallan, whose unique index refuses
the same GRN for any second transfer, a remittance of fines or a surplus credited to the State.
Whoever records a GRN does not confirm it (accounts.makerchecker). Recording and confirming move
no money: the ledger booked the transfer when it was made; these are its proof."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Value
from django.db.models.functions import Replace, Upper
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.roles import Permission
from accounts.scoping import has_permission
from kernel import clock
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message

from .actions import Action
from .models import Remittance, SurplusDeposit, TreasuryChallan


def _used_refusal(field):
    return ValidationError(
        {field: _("This GRN is already defaced: it settled another transfer to the State.")}
    )


def grn_used(grn):
    return (
        TreasuryChallan.objects.annotate(key=Upper(Replace("grn", Value(" "), Value(""))))
        .filter(key=TreasuryChallan.grn_key(grn))
        .exists()
    )


def _remittance_challan_used(grn):
    """A remittance sent with this challan, defaced or not (one sent before challans were
    defaced has no TreasuryChallan row)."""
    key = Upper(Replace("challan_number", Value(" "), Value("")))
    return (
        Remittance.objects.annotate(grn_key=key)
        .filter(grn_key=TreasuryChallan.grn_key(grn))
        .exists()
    )


def deface_grn(*, grn, by, remittance=None, surplus=None, field="grn", **proof):
    """Record `grn` as used by one transfer (`remittance` or `surplus`), with the `proof`
    known so far (cin, scroll_number, scroll_date). Refuses, on `field`, a GRN used before;
    two transactions recording the same GRN at once: one wins, the other is refused."""
    if grn_used(grn):
        raise _used_refusal(field)
    challan = TreasuryChallan(
        grn=grn.strip(), remittance=remittance, surplus=surplus, recorded_by=by, **proof
    )
    challan.full_clean(validate_constraints=False)
    try:
        with transaction.atomic():
            challan.save()
    except IntegrityError:
        raise _used_refusal(field) from None
    return challan


def _office_only(by, district):
    if not has_permission(by, Permission.PREPARE_ORDERS, district):
        raise PermissionDenied(_("The District Magistrate's office records treasury challans."))


@transaction.atomic
def record_surplus_transfer(
    *, deposit, by, grn, cin="", scroll_number="", scroll_date=None, idempotency_key=None
):
    """The office records the challan that carried a surplus to the State's revenues (s.17),
    with the CIN and the scroll if already known. Once for each `idempotency_key`: the same
    form sent again returns the challan it recorded, marked `replayed`."""
    deposit = (
        SurplusDeposit.objects.select_for_update(of=("self",))
        .select_related("district", "pound")
        .get(pk=deposit.pk)
    )
    _office_only(by, deposit.district)
    done = made_with_key(
        TreasuryChallan, idempotency_key, recorded_by_id=by.pk, surplus_id=deposit.pk
    )
    if done is not None:
        return done
    if (deposit.status, deposit.destination) != (
        SurplusDeposit.Status.TRANSFERRED,
        SurplusDeposit.Destination.STATE_REVENUE,
    ):
        raise ValidationError(_("Only a surplus credited to the State's revenues has a challan."))
    if TreasuryChallan.objects.filter(surplus=deposit).exists():
        raise ValidationError(_("This transfer's challan is already recorded."))
    if scroll_date is not None and scroll_date > clock.today(deposit.district):
        raise ValidationError({"scroll_date": _("The date cannot be in the future.")})
    if _remittance_challan_used(grn):
        raise _used_refusal("grn")
    challan = deface_grn(
        grn=grn,
        by=by,
        surplus=deposit,
        cin=cin.strip(),
        scroll_number=scroll_number.strip(),
        scroll_date=scroll_date,
        idempotency_key=idempotency_key,
    )
    _event(challan, by, deposit.pound, recorded=True)
    return challan


@transaction.atomic
def confirm_treasury_challan(*, challan, by, cin=None, scroll_number=None, scroll_date=None):
    """Another person than its recorder confirms a challan against the treasury's scroll,
    completing the CIN and the scroll where they were not yet known."""
    challan = (
        TreasuryChallan.objects.select_for_update(of=("self",))
        .select_related("remittance__pound__district", "surplus__pound", "surplus__district")
        .get(pk=challan.pk)
    )
    pound = challan.remittance.pound if challan.remittance else challan.surplus.pound
    _office_only(by, pound.district)
    challan.check_decider(by)
    if challan.confirmed_by_id:
        raise ValidationError(_("This challan is already confirmed."))
    today = clock.today(pound)
    complete(challan, cin=cin, scroll_number=scroll_number, scroll_date=scroll_date, today=today)
    challan.confirmed_by, challan.confirmed_at = by, timezone.now()
    challan.save(
        update_fields=["cin", "scroll_number", "scroll_date", "confirmed_by", "confirmed_at"]
    )
    _event(challan, by, pound, recorded=False)
    return challan


def complete(challan, *, cin=None, scroll_number=None, scroll_date=None, today=None):
    """Fill in the CIN and the scroll given; refuse a challan confirmed without them."""
    if cin is not None and cin.strip():
        challan.cin = cin.strip()
    if scroll_number is not None and scroll_number.strip():
        challan.scroll_number = scroll_number.strip()
    if scroll_date is not None:
        challan.scroll_date = scroll_date
    missing = {
        field: _("Enter it from the treasury's scroll.")
        for field in ("cin", "scroll_number", "scroll_date")
        if not getattr(challan, field)
    }
    if missing:
        raise ValidationError(missing)
    if challan.scroll_date > (today or timezone.localdate()):  # the pound's day (ADR 0080)
        raise ValidationError({"scroll_date": _("The date cannot be in the future.")})


def _event(challan, by, pound, *, recorded):
    record_event(
        action=Action.TREASURY_GRN_RECORDED if recorded else Action.TREASURY_GRN_CONFIRMED,
        section="s.17",
        by=by,
        pound=pound,
        summary=Message(
            gettext_noop("GRN %(grn)s, CIN %(cin)s, scroll %(scroll)s"),
            grn=challan.grn,
            cin=challan.cin or "-",
            scroll=challan.scroll_number or "-",
        ),
        data={
            "grn": challan.grn,
            "cin": challan.cin,
            "scroll_number": challan.scroll_number,
            "scroll_date": challan.scroll_date.isoformat() if challan.scroll_date else "",
            "remittance": challan.remittance_id,
            "surplus": challan.surplus_id,
        },
    )
