"""The District Magistrate's side of s.17: surplus sale proceeds held in deposit for three
months, owners' claims to them, and their transfer to revenue (the fines remitted by the
pounds are in office.remittances).

Each function is atomic, checks the actor, writes its event (with its section) and posts one
balanced ledger transaction in the same database transaction.
"""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import todos
from accounts.models import Counter, DistrictPolicy, IssuedDocument
from accounts.roles import Permission
from accounts.scoping import authorise, has_permission, system_actor
from auctions.models import Auction, Shortfall
from impounding import services as register
from impounding.models import Deposit
from kernel import clock
from kernel.dates import surplus_expiry
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import THE_CLAIMANT, Message, in_both, label
from kernel.refs import key, ref
from kernel.uploads import clean_scan
from ledger import services as ledger
from ledger.models import AccountKind, PaymentMode, TransactionKind, till
from rulepacks import services as rulepacks

from .actions import Action
from .models import SurplusClaim, SurplusDeposit

# The fines remitted by the pounds live in office.remittances; callers find them here too.
from .remittances import (  # noqa: F401
    ZERO,
    account,
    cash_in_hand,
    confirm_remittance,
    send_remittance,
    unremitted_fines,
)

# --- Surplus proceeds held in deposit (s.17) ----------------------------------------------


def open_surplus_deposit(sale):
    """Called by every sale (auctions.services.hammer): the surplus of a s.14 sale awaits the
    office, which holds it three months (s.17). A s.16 sale's balance belongs to the owner
    instead."""
    if sale.lot.auction.kind != Auction.Kind.UNCLAIMED or not sale.surplus:
        return None
    pound = sale.lot.auction.pound
    return SurplusDeposit.objects.create(
        sale=sale,
        pound=pound,
        district=pound.district,
        amount=sale.surplus,
        sale_date=timezone.localtime(sale.sold_at).date(),
    )


@transaction.atomic
def receive_surplus(*, deposit, by, received_on):
    """The office records the day it received the surplus: the three months run from it, and
    never end before three months from the sale."""
    deposit = (
        SurplusDeposit.objects.select_for_update(of=("self",))
        .select_related("pound", "district")
        .get(pk=deposit.pk)
    )
    if not has_permission(by, Permission.PREPARE_ORDERS, deposit.district):
        raise PermissionDenied(_("The District Magistrate's office receives the surplus."))
    if deposit.status != SurplusDeposit.Status.AWAITING_RECEIPT:
        raise ValidationError(_("This surplus has already been received."))
    if received_on < deposit.sale_date or received_on > clock.today(deposit.district):
        raise ValidationError({"received_on": _("The date must fall between the sale and today.")})
    # The holding period of the district's rule pack as the clock starts; the date is kept, so
    # a later pack changes nothing already running (ADR 0068). Three months under the Act.
    months = rulepacks.pack_for(deposit.district).rules.clocks.surplus_hold_months
    if months is None:
        raise ValidationError(
            _("The rule pack leaves the holding period for the State to fill (s.17).")
        )
    deposit.received_on, deposit.received_by = received_on, by
    deposit.expires_on = surplus_expiry(received_on, deposit.sale_date, months)
    deposit.status = SurplusDeposit.Status.HELD
    deposit.save(update_fields=["received_on", "received_by", "expires_on", "status"])
    ledger.post(
        district=deposit.district,
        pound=deposit.pound,
        kind=TransactionKind.SURPLUS_RECEIVED,
        by=by,
        section="s.17",
        source=ref(deposit),
        memo=f"Surplus of {deposit.sale.lot.auction.number} lot {deposit.sale.lot.number} "
        f"received; held until {deposit.expires_on:%d-%m-%Y}",
        lines=[
            (account(deposit.district, AccountKind.DM_TREASURY), deposit.amount),
            (
                account(deposit.district, till(deposit.sale.payment_mode), deposit.pound),
                -deposit.amount,
            ),
        ],
    )
    record_event(
        action=Action.SURPLUS_RECEIVED,
        section="s.17",
        by=by,
        pound=deposit.pound,
        summary=Message(
            gettext_noop("Surplus ₹%(amount)s received on %(received_on)s; held until %(until)s"),
            amount=deposit.amount,
            received_on=received_on,
            until=deposit.expires_on,
        ),
        data={"deposit": deposit.pk, "expires_on": deposit.expires_on},
    )
    todos.close(f"surplus_receive:{deposit.pk}")
    return deposit


@transaction.atomic
def file_surplus_claim(
    *,
    deposit,
    by,
    claimant_name,
    claimant_address,
    capacity,
    proof,
    filed_on,
    proof_scan=None,
    idempotency_key=None,
):
    """Record an owner's claim to a held surplus (s.17). Once for each `idempotency_key`: the
    same form sent again returns the claim it recorded, marked `replayed`."""
    deposit = SurplusDeposit.objects.select_for_update(of=("self",)).get(pk=deposit.pk)
    if not has_permission(by, Permission.PREPARE_ORDERS, deposit.district):
        raise PermissionDenied(_("The District Magistrate's office records claims."))
    done = made_with_key(SurplusClaim, idempotency_key, deposit_id=deposit.pk, prepared_by_id=by.pk)
    if done is not None:
        return done
    deposit.check_claim(filed_on, today=clock.today(deposit.district))
    claim = SurplusClaim(
        deposit=deposit,
        claimant_name=claimant_name,
        claimant_address=claimant_address,
        capacity=capacity,
        proof=proof,
        filed_on=filed_on,
        prepared_by=by,
        idempotency_key=idempotency_key,
    )
    if proof_scan:
        # Checked, and an image written again without its EXIF data (the phone, the place).
        stored = clean_scan(proof_scan, field="proof_scan")
        claim.proof_scan.save(stored.name, stored, save=False)
    claim.full_clean(exclude=["deposit", "proof_scan"])
    claim.save()
    record_event(
        action=Action.SURPLUS_CLAIMED,
        section="s.17",
        by=by,
        pound=deposit.pound,
        summary=Message(
            gettext_noop("Claim by %(name)s to surplus ₹%(amount)s"),
            name=THE_CLAIMANT,
            amount=deposit.amount,
        ),
        data={"claim": claim.pk, "deposit": deposit.pk},
        personal={"name": claimant_name, "address": claimant_address},
    )
    return claim


@transaction.atomic
def decide_surplus_claim(*, claim, by, allow, decision, payment_mode="", payment_reference=""):
    """The Magistrate decides on the proof. A proved claim is paid from the deposit."""
    claim = (
        SurplusClaim.objects.select_for_update(of=("self",))
        .select_related("deposit__district", "deposit__pound")
        .get(pk=claim.pk)
    )
    deposit = SurplusDeposit.objects.select_for_update(of=("self",)).get(pk=claim.deposit_id)
    if not has_permission(by, Permission.APPROVE, deposit.district):
        raise PermissionDenied(_("Only the District Magistrate decides a claim."))
    if claim.status != SurplusClaim.Status.PENDING:
        raise ValidationError(_("This claim has already been decided."))
    claim.check_decider(by)
    if not decision.strip():
        raise ValidationError({"decision": _("Record the findings on the proof.")})
    claim.decided_by, claim.decided_at, claim.decision = by, timezone.now(), decision
    if allow:
        if deposit.status != SurplusDeposit.Status.HELD:
            raise ValidationError(_("The surplus is no longer held."))
        if payment_mode != PaymentMode.CASH and not payment_reference.strip():
            raise ValidationError({"payment_reference": _("Give the payment reference.")})
        claim.status = SurplusClaim.Status.ALLOWED
        claim.payment_mode, claim.payment_reference = payment_mode, payment_reference
        deposit.status = SurplusDeposit.Status.PAID
        deposit.save(update_fields=["status"])
        ledger.post(
            district=deposit.district,
            pound=deposit.pound,
            kind=TransactionKind.SURPLUS_CLAIM_PAID,
            by=by,
            section="s.17",
            source=ref(deposit),
            memo=f"Surplus ₹{deposit.amount} paid on proved claim #{claim.pk}",
            lines=[
                (account(deposit.district, AccountKind.DM_SURPLUS_HELD), deposit.amount),
                (account(deposit.district, AccountKind.DM_TREASURY), -deposit.amount),
            ],
        )
    else:
        claim.status = SurplusClaim.Status.REJECTED
    claim.save(
        update_fields=[
            "status",
            "decided_by",
            "decided_at",
            "decision",
            "payment_mode",
            "payment_reference",
        ]
    )
    record_event(
        action=Action(f"ledger.surplus_claim_{claim.status}"),
        section="s.17",
        by=by,
        pound=deposit.pound,
        summary=Message(
            gettext_noop("Claim by %(name)s: %(status)s"),
            name=THE_CLAIMANT,
            status=label(claim.get_status_display()),
        ),
        personal={"name": claim.claimant_name},
        data={
            "claim": claim.pk,
            "decision": decision,
            "prepared_by": claim.prepared_by_id,
            "decided_by": by.pk,
        },
    )
    todos.close(f"surplus_claim:{claim.pk}")
    return claim


@transaction.atomic
def transfer_expired_surplus(*, deposit, by=None, today=None):
    """At the end of the three months, with no claim proved, the surplus becomes revenue of the
    State, or of the local fund where s.31 applies. Never before the expiry; never twice.

    Nobody decides it: the Act does, on the date. So it is the daily run's system actor that acts
    (`by` defaults to it), and only that actor holds TRANSFER_SURPLUS."""
    deposit = (
        SurplusDeposit.objects.select_for_update(of=("self",))
        .select_related("district", "pound")
        .get(pk=deposit.pk)
    )
    by = by or system_actor()
    authorise(by, Permission.TRANSFER_SURPLUS, deposit.district)
    today = today or clock.today(deposit.district)
    if deposit.status != SurplusDeposit.Status.HELD:
        return None
    if today <= deposit.expires_on:
        raise ValidationError(
            _("The surplus is held until %(date)s (s.17).")
            % {"date": deposit.expires_on.strftime("%d-%m-%Y")}
        )
    if deposit.claims.filter(status=SurplusClaim.Status.PENDING).exists():
        raise ValidationError(_("A claim made in time awaits the Magistrate's decision."))
    policy = DistrictPolicy.for_district(deposit.district)
    local = policy.surplus_destination == "local_fund"
    destination = (
        SurplusDeposit.Destination.LOCAL_FUND if local else SurplusDeposit.Destination.STATE_REVENUE
    )
    number = (
        f"TRF/{deposit.district.code.upper()}/{today.year}/"
        f"{Counter.next(f'trf:{deposit.district_id}:{today.year}'):05d}"
    )
    deposit.transfer_memo = IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.TRANSFER_MEMO,
        number=number,
        by=by,
        district=deposit.district,
        office=(str(deposit.district.dm_office_name), deposit.district.dm_office_name_hi),
        subject_type=key(deposit),
        subject_id=deposit.pk,
    )
    deposit.status, deposit.destination = SurplusDeposit.Status.TRANSFERRED, destination
    deposit.transferred_at = clock.now(deposit.district)
    deposit.save(update_fields=["status", "destination", "transferred_at", "transfer_memo"])
    ledger.post(
        district=deposit.district,
        pound=deposit.pound,
        kind=TransactionKind.SURPLUS_TRANSFERRED,
        by=by,
        section="s.31" if local else "s.17",
        source=ref(deposit),
        memo=f"{number}: surplus ₹{deposit.amount} credited to "
        f"{policy.local_fund_name or 'the local fund' if local else 'the revenues of the State'}",
        lines=[
            (account(deposit.district, AccountKind.DM_SURPLUS_HELD), deposit.amount),
            (
                account(
                    deposit.district, AccountKind.LOCAL_FUND if local else AccountKind.STATE_REVENUE
                ),
                -deposit.amount,
            ),
        ],
    )
    record_event(
        action=Action.SURPLUS_TRANSFERRED,
        section="s.31" if local else "s.17",
        by=by,
        pound=deposit.pound,
        summary=Message(
            gettext_noop("%(number)s: surplus ₹%(amount)s credited to %(destination)s"),
            number=number,
            amount=deposit.amount,
            destination=in_both(deposit.get_destination_display),
        ),
        data={"deposit": deposit.pk, "memo": number, "destination": destination},
    )
    return deposit


# --- Approvals -------------------------------------------------------------------------------


@transaction.atomic
def write_off_shortfall(*, shortfall, by, note=""):
    """The Magistrate writes off dues a sale did not cover (docs/domain.md decision 7). No money
    moves: the dues were never received; the record says who let them go and why."""
    shortfall = (
        Shortfall.objects.select_for_update(of=("self",))
        .select_related("pound__district")
        .get(pk=shortfall.pk)
    )
    if not has_permission(by, Permission.APPROVE, shortfall.pound):
        raise PermissionDenied(_("Only the District Magistrate writes off a shortfall."))
    if shortfall.status != Shortfall.Status.PENDING:
        raise ValidationError(_("This shortfall has already been written off."))
    shortfall.status, shortfall.decided_by = Shortfall.Status.WRITTEN_OFF, by
    shortfall.decided_at = timezone.now()
    shortfall.save(update_fields=["status", "decided_by", "decided_at"])
    record_event(
        action=Action.SHORTFALL_WRITTEN_OFF,
        section="s.17",
        by=by,
        pound=shortfall.pound,
        summary=Message(
            gettext_noop("Shortfall of ₹%(amount)s written off: %(note)s"),
            amount=shortfall.total,
            note=note,
        )
        if note
        else Message(gettext_noop("Shortfall of ₹%(amount)s written off"), amount=shortfall.total),
        data={
            "shortfall": shortfall.pk,
            "fines": shortfall.fines,
            "feeding": shortfall.feeding,
            "expenses": shortfall.expenses,
            "note": note,
        },
    )
    todos.close(f"shortfall_writeoff:{shortfall.pk}")
    return shortfall


@transaction.atomic
def confirm_deposit_application(*, deposit, by):
    """The Magistrate confirms that a s.15 deposit is to be applied as payment. Applied now if it
    may be applied already; otherwise the daily run applies it the day after the complaint window
    closes, unless a complaint is made in time."""
    deposit = (
        Deposit.objects.select_for_update(of=("self",))
        .select_related("release__impoundment__pound__district")
        .get(pk=deposit.pk)
    )
    entry = deposit.release.impoundment
    if not has_permission(by, Permission.APPROVE, entry.pound):
        raise PermissionDenied(_("Only the District Magistrate confirms applying a deposit."))
    if deposit.status != Deposit.Status.HELD:
        raise ValidationError(_("This deposit is no longer held."))
    # The Magistrate's part is done either way: the to-do closes in this transaction.
    todos.close(f"deposit_apply:{deposit.pk}")
    if register.deposit_awaiting_application(deposit):
        return register.apply_deposit(deposit=deposit, by=by)
    deposit.application_confirmed_by, deposit.application_confirmed_at = by, timezone.now()
    deposit.save(update_fields=["application_confirmed_by", "application_confirmed_at"])
    record_event(
        action=Action.DEPOSIT_APPLICATION_CONFIRMED,
        section="s.15",
        by=by,
        impoundment=entry,
        summary=Message(
            gettext_noop("To be applied after %(date)s unless a complaint is made in time"),
            date=deposit.complaint_deadline,
        ),
        data={"deposit": deposit.pk},
    )
    return deposit
