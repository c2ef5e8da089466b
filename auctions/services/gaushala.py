"""Cattle handed to a gaushala or welfare body, and the body's monthly upkeep (ADR 0070).

Where the State's law forbids the sale of cattle (the rule pack's disposal routes), the District
Magistrate orders them handed to a body from the district's register under the proviso to s.14.
The office prepares the handover order and the Magistrate approves it (maker-checker, through
`disposal.propose_disposal` and `disposal.decide_disposal`); the body is never sent more than its
capacity. The animals' dues are settled as the pack says: written off by the Magistrate's
approval, or kept as a claim against the owner if he is found later (the default where the State
has not said). Each month the body claims its upkeep: the claim may not pass the animal-days its
handovers give, at the pack's rate or, where the State gave none, the body's agreed rate and the
order that fixed it. The approved claim is an expense and a payable; its payment leaves the
District Magistrate's account."""

from datetime import date
from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import todos
from accounts.models import IssuedDocument
from accounts.roles import Permission
from accounts.scoping import authorise, has_permission
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message
from kernel.refs import ref
from ledger import services as ledger
from ledger.models import AccountKind, PaymentMode, TransactionKind
from rulepacks import services as rulepacks

from ..actions import Action
from ..models import DisposalOrder, Gaushala, Handover, Shortfall, UpkeepClaim
from . import gaushala_recovery as recovery
from .common import serial, today
from .disposal import decide_disposal, propose_disposal
from .gaushala_holding import animal_days, held_by, month_bounds

PAISA = Decimal("0.01")
WRITE_OFF, CLAIM_OWNER = "write_off", "claim_owner"
REGISTER_FIELDS = (
    "kind",
    "name",
    "registration",
    "address",
    "phone",
    "capacity",
    "agreed_daily_rate",
    "rate_authority",
    "active",
)


# --- The register ------------------------------------------------------------------------------


@transaction.atomic
def register_gaushala(*, district, by, idempotency_key=None, **fields):
    """The DM's office adds a body to the district's register. `fields`: REGISTER_FIELDS."""
    authorise(by, Permission.MANAGE_TARIFFS, district)
    type(district).objects.select_for_update(of=("self",)).get(pk=district.pk)
    done = made_with_key(Gaushala, idempotency_key, district_id=district.pk, added_by_id=by.pk)
    if done is not None:
        return done
    body = Gaushala(district=district, added_by=by, idempotency_key=idempotency_key)
    _fill(body, fields)
    body.save()
    _record_register(body, by=by, action=Action.GAUSHALA_REGISTERED)
    return body


@transaction.atomic
def amend_gaushala(*, gaushala, by, **fields):
    """The DM's office amends a body: its capacity, its agreed rate and the order that fixed it."""
    body = Gaushala.objects.select_for_update(of=("self",)).get(pk=gaushala.pk)
    authorise(by, Permission.MANAGE_TARIFFS, body.district)
    _fill(body, fields)
    held = held_by(body, pending=True)  # the orders awaiting approval hold their room too
    if body.capacity < held:
        raise ValidationError(
            {"capacity": _("The body already holds %(n)s head of cattle.") % {"n": held}}
        )
    body.save()
    _record_register(body, by=by, action=Action.GAUSHALA_AMENDED)
    return body


def _fill(body, fields):
    unknown = set(fields) - set(REGISTER_FIELDS)
    if unknown:
        raise TypeError(f"unknown fields: {', '.join(sorted(unknown))}")
    for name, value in fields.items():
        setattr(body, name, value)
    if body.agreed_daily_rate is not None and not (body.rate_authority or "").strip():
        raise ValidationError(
            {"rate_authority": _("Name the order or authority that fixed the agreed rate.")}
        )
    body.full_clean(exclude=["district", "added_by"])


def _record_register(body, *, by, action):
    record_event(
        action=Action(action),
        section="s.14",
        by=by,
        district=body.district,
        summary=Message(
            gettext_noop("%(name)s (%(registration)s): capacity %(capacity)s, rate %(rate)s"),
            name=body.name,
            registration=body.registration,
            capacity=body.capacity,
            rate=body.agreed_daily_rate if body.agreed_daily_rate is not None else "-",
        ),
        data={
            "gaushala": body.pk,
            "capacity": body.capacity,
            "agreed_daily_rate": body.agreed_daily_rate,
            "rate_authority": body.rate_authority,
            "active": body.active,
        },
    )


# --- The handover order ------------------------------------------------------------------------


@transaction.atomic
def propose_handover(*, pound, gaushala_id, animal_ids, by, reason, idempotency_key=None):
    """The office prepares the order handing animals to a body of the register. Refused beyond
    the body's capacity (counting the orders awaiting approval)."""
    authorise(by, Permission.PREPARE_ORDERS, pound)
    body = (
        Gaushala.objects.select_for_update(of=("self",))
        .filter(pk=gaushala_id, district_id=pound.district_id, active=True)
        .first()
    )
    if body is None:
        raise ValidationError({"gaushala": _("Choose a body from the district's register.")})
    mode = (
        DisposalOrder.Mode.GAUSHALA
        if body.kind == Gaushala.Kind.GAUSHALA
        else DisposalOrder.Mode.INSTITUTION
    )
    order = propose_disposal(
        pound=pound,
        animal_ids=animal_ids,
        by=by,
        reason=reason,
        mode=mode,
        recipient=body.name,
        terms={"address": body.address, "phone": body.phone, "registration": body.registration},
        idempotency_key=idempotency_key,
        handover=True,
    )
    if getattr(order, "replayed", False):
        return order
    _check_capacity(body, extra=order.animals.count())
    Handover.objects.create(order=order, gaushala=body)
    return order


def _check_capacity(body, *, extra):
    held = held_by(body, pending=True) + extra
    if held > body.capacity:
        raise ValidationError(
            {
                "gaushala": _(
                    "%(name)s has room for %(capacity)s head of cattle; this order would give it "
                    "%(held)s."
                )
                % {"name": body.name, "capacity": body.capacity, "held": held}
            }
        )


@transaction.atomic
def decide_handover(*, order, by, approve, note=""):
    """The Magistrate decides a handover order. On approval the animals leave the pound for the
    body, and their dues are settled as the pack of their register entry says."""
    handover = Handover.objects.select_related("gaushala").get(order_id=order.pk)
    body = Gaushala.objects.select_for_update(of=("self",)).get(pk=handover.gaushala_id)
    if approve:  # a refusal frees the room it held; only taking the animals needs it
        _check_capacity(body, extra=0)
    order = decide_disposal(order=order, by=by, approve=approve, note=note)
    if order.status != DisposalOrder.Status.APPROVED:
        return order
    handover.dues_rule, handover.pack = _order_dues_rule(order)
    handover.received_on = timezone.localdate(order.decided_at)
    handover.certificate = IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.HANDOVER_CERTIFICATE,
        number=serial("gcr", order.pound, handover.received_on.year),
        by=by,
        subject_type="auctions.handover",
        subject_id=handover.pk,
        pound=order.pound,
        animal_count=order.animals.count(),
        issued_at=order.decided_at,
    )
    handover.save(update_fields=["dues_rule", "pack", "received_on", "certificate"])
    if handover.dues_rule == WRITE_OFF:
        _write_off(order, by=by, pack=handover.pack)
    return order


def _order_dues_rule(order):
    """(the dues rule, the packs named) of an order's animals: each entry's pinned pack says;
    entries under packs that say differently (a pack changed between two seizures) keep the
    claim, since one pack's write-off is not the other's."""
    pack_ids = set(order.animals.values_list("impoundment__rule_pack_id", flat=True))
    packs = sorted((rulepacks.pack_of(pk) for pk in pack_ids), key=lambda p: (p.code, p.version))
    rules = {dues_rule(p.rules) for p in packs}
    named = ", ".join(f"{p.code} {p.version}" for p in packs)
    return (rules.pop() if len(rules) == 1 else CLAIM_OWNER), named[:40]


def dues_rule(rules):
    """What the pack says of a handed-over animal's dues; where the State has not said, the claim
    against the owner is kept (nothing is given up that the law has not given up)."""
    said = rules.handover.dues if rules.handover is not None else None
    return said or CLAIM_OWNER


def _write_off(order, *, by, pack):
    shortfall = Shortfall.objects.select_for_update(of=("self",)).filter(disposal=order).first()
    if shortfall is None:
        return
    shortfall.status, shortfall.decided_by = Shortfall.Status.WRITTEN_OFF, by
    shortfall.decided_at = order.decided_at
    shortfall.save(update_fields=["status", "decided_by", "decided_at"])
    record_event(
        action=Action.HANDOVER_DUES_WRITTEN_OFF,
        section="s.14",
        by=by,
        pound=order.pound,
        summary=Message(
            gettext_noop("%(number)s: dues of ₹%(amount)s written off as the rule pack says"),
            number=order.number,
            amount=shortfall.total,
        ),
        data={
            "order": order.number,
            "shortfall": shortfall.pk,
            "fines": shortfall.fines,
            "feeding": shortfall.feeding,
            "rule_pack": pack,
        },
    )


# --- The monthly upkeep ------------------------------------------------------------------------


def upkeep_rate(body):
    """The rate a head a day and its source: the State's pack, else the body's agreed rate and
    the order that fixed it. Refused when neither gives one: no figure is invented."""
    pinned = rulepacks.pack_for(body.district)
    rate = pinned.rules.feeding.gaushala_daily
    if rate is not None:
        return Decimal(rate), f"{pinned.code} {pinned.version}: feeding.gaushala_daily"
    if body.agreed_daily_rate is not None:
        return body.agreed_daily_rate, body.rate_authority
    raise ValidationError(
        _(
            "Neither the State's rule pack nor the register gives this body's upkeep rate: "
            "enter its agreed rate and the order that fixed it."
        )
    )


@transaction.atomic
def prepare_claim(*, gaushala, month, animal_days_claimed, by, idempotency_key=None):
    """The office enters a body's claim for a month that has ended, checked against the
    animal-days its handovers give."""
    body = Gaushala.objects.select_for_update(of=("self",)).get(pk=gaushala.pk)
    authorise(by, Permission.PREPARE_ORDERS, body.district)
    done = made_with_key(UpkeepClaim, idempotency_key, gaushala_id=body.pk, prepared_by_id=by.pk)
    if done is not None:
        return done
    first, last = month_bounds(month)
    if last >= today(body.district):
        raise ValidationError({"month": _("A month is claimed once it has ended.")})
    if UpkeepClaim.objects.filter(gaushala=body, month=first).exclude(status="rejected").exists():
        raise ValidationError({"month": _("This body's claim for the month is already made.")})
    held = animal_days(body, first)
    if animal_days_claimed < 1 or animal_days_claimed > held:
        raise ValidationError(
            {
                "animal_days": _(
                    "The body held its cattle for %(held)s animal-days in the month, counting "
                    "their deaths and transfers: claim at least one and no more."
                )
                % {"held": held}
            }
        )
    rate, source = upkeep_rate(body)
    claim = UpkeepClaim.objects.create(
        gaushala=body,
        month=first,
        number=_claim_number(body, first),
        animal_days=animal_days_claimed,
        held_days=held,
        rate=rate,
        rate_source=source[:200],
        amount=(rate * animal_days_claimed).quantize(PAISA),
        prepared_by=by,
        idempotency_key=idempotency_key,
    )
    recovery.deduct(claim)  # upkeep over-paid on earlier claims, as a line of its own
    _record_claim(claim, by=by, action=Action.UPKEEP_CLAIMED)
    return claim


def claim_number(body, first):
    """A body's first claim for a month: UPK/<district>/<body>/<YYYY-MM>."""
    return f"UPK/{body.district_id}/{body.pk}/{first:%Y-%m}"


def _claim_number(body, first):
    """claim_number, and -2, -3... for a claim made again after a refusal."""
    number = claim_number(body, first)
    earlier = UpkeepClaim.objects.filter(gaushala=body, month=first).count()
    return f"{number}-{earlier + 1}" if earlier else number


@transaction.atomic
def decide_claim(*, claim, by, approve, note=""):
    """The Magistrate approves a claim (posted as an expense and a payable) or refuses it."""
    claim = (
        UpkeepClaim.objects.select_for_update(of=("self",))
        .select_related("gaushala__district")
        .get(pk=claim.pk)
    )
    district = claim.gaushala.district
    if not has_permission(by, Permission.APPROVE, district):
        raise PermissionDenied(_("Only the District Magistrate approves an upkeep claim."))
    if claim.status != UpkeepClaim.Status.PROPOSED:
        raise ValidationError(_("This claim has already been decided."))
    claim.check_decider(by)
    if approve:
        _check_still_held(claim)
    claim.decided_by, claim.decided_at = by, timezone.now()
    claim.status = UpkeepClaim.Status.APPROVED if approve else UpkeepClaim.Status.REJECTED
    claim.save(update_fields=["status", "decided_by", "decided_at"])
    if approve:
        _post_approval(claim, by=by)
    action = Action.UPKEEP_APPROVED if approve else Action.UPKEEP_REJECTED
    _record_claim(claim, by=by, action=action, note=note)
    todos.close(f"upkeep_decide:{claim.pk}")
    return claim


@transaction.atomic
def pay_claim(*, claim, by, payment_mode, payment_reference):
    """The office records the payment of an approved claim from the DM's account."""
    claim = (
        UpkeepClaim.objects.select_for_update(of=("self",))
        .select_related("gaushala__district")
        .get(pk=claim.pk)
    )
    authorise(by, Permission.PREPARE_ORDERS, claim.gaushala.district)
    if claim.status != UpkeepClaim.Status.APPROVED:
        raise ValidationError(_("Only an approved claim, not yet paid, is paid."))
    if not claim.net:
        raise ValidationError(
            _("Nothing is payable: the over-payments recovered take the whole claim.")
        )
    if payment_mode == PaymentMode.CASH:
        raise ValidationError(
            {"payment_mode": _("The upkeep is paid from the treasury by transfer, not in cash.")}
        )
    if payment_mode not in PaymentMode.values or not payment_reference.strip():
        raise ValidationError({"payment_reference": _("Give the payment reference.")})
    claim.status, claim.paid_by, claim.paid_at = UpkeepClaim.Status.PAID, by, timezone.now()
    claim.payment_mode, claim.payment_reference = payment_mode, payment_reference.strip()
    claim.save(update_fields=["status", "paid_by", "paid_at", "payment_mode", "payment_reference"])
    _post(
        claim,
        by=by,
        kind=TransactionKind.UPKEEP_PAID,
        debit=AccountKind.UPKEEP_PAYABLE,
        credit=AccountKind.DM_TREASURY,
    )
    _record_claim(claim, by=by, action=Action.UPKEEP_PAID)
    return claim


def _check_still_held(claim):
    """A death or transfer recorded since the claim was prepared may leave the body fewer
    animal-days than it claims: the claim is then refused and made again."""
    held = animal_days(claim.gaushala, claim.month)
    if claim.animal_days > held:
        raise ValidationError(
            _(
                "A death or transfer recorded since this claim was prepared leaves the body "
                "%(held)s animal-days in the month: refuse it, and prepare it again."
            )
            % {"held": held}
        )


def _post_approval(claim, *, by):
    """The gross upkeep as an expense, and in the same transaction the over-payments recovered
    from it: the body is owed the net."""
    district = claim.gaushala.district
    lines = [
        (ledger.account(district=district, kind=AccountKind.UPKEEP_EXPENSE), claim.amount),
        (ledger.account(district=district, kind=AccountKind.UPKEEP_PAYABLE), -claim.net),
    ]
    memo = f"{claim.number}: {claim.animal_days} animal-days at ₹{claim.rate}, {claim.gaushala}"
    if claim.deduction:
        kind = AccountKind.UPKEEP_RECOVERABLE
        lines.append((ledger.account(district=district, kind=kind), -claim.deduction))
        memo += f"; less ₹{claim.deduction} over-paid before"
    ledger.post(
        district=district,
        kind=TransactionKind.UPKEEP_CLAIMED,
        section="s.14",
        by=by,
        memo=memo,
        source=ref(claim),
        lines=lines,
    )


def _post(claim, *, by, kind, debit, credit):
    district = claim.gaushala.district
    ledger.post(
        district=district,
        kind=kind,
        section="s.14",
        by=by,
        memo=f"{claim.number}: {claim.animal_days} animal-days at ₹{claim.rate}, {claim.gaushala}",
        source=ref(claim),
        lines=[
            (ledger.account(district=district, kind=debit), claim.net),
            (ledger.account(district=district, kind=credit), -claim.net),
        ],
    )


def _record_claim(claim, *, by, action, note=""):
    record_event(
        action=Action(action),
        section="s.14",
        by=by,
        district=claim.gaushala.district,
        summary=Message(
            gettext_noop("%(number)s: %(days)s animal-days, ₹%(amount)s"),
            number=claim.number,
            days=claim.animal_days,
            amount=claim.amount,
        ),
        data={
            "claim": claim.number,
            "gaushala": claim.gaushala_id,
            "month": claim.month,
            "animal_days": claim.animal_days,
            "held_days": claim.held_days,
            "rate": claim.rate,
            "rate_source": claim.rate_source,
            "amount": claim.amount,
            "deduction": claim.deduction,
            "prepared_by": claim.prepared_by_id,
            "note": note,
        },
    )


def month_of(day: date):
    return day.replace(day=1)
