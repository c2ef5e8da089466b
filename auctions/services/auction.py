"""The public auction: scheduling it (the lawful date of sale under s.14 or s.16), its bidders
and the s.19 bar, bids, lots not sold, and closing it. The hammer itself is in `hammer.py`."""

from datetime import timedelta
from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.validators import MinValueValidator
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import todos
from accounts.roles import Permission
from accounts.scoping import authorise, has_permission
from impounding.models import Animal, AnimalState, Direction
from kernel import clock
from kernel.events import record_event
from kernel.formatting import inr
from kernel.idempotency import made_with_key
from kernel.messages import Message, in_both

from ..actions import Action
from ..models import Auction, Bid, Bidder, Lot, LotAnimal, Notice, S16Case
from ..staffcheck import match_key, staff_matches
from .bidders import refuse_second_registration
from .common import ZERO, before_the_hour, move_lot, serial, withdraw_lots_of
from .order import check_s14_order
from .routes import check_may_auction
from .s16 import s16_gap_message
from .unclaimed import conditions_on

# --- Scheduling the auction ------------------------------------------------------------------


def _lot_groups(animals, groups):
    """Check each lot is one animal, or a dam with her suckling calf. A calf in the pound is
    never parted from its dam, whether or not the other is offered at this auction."""
    by_pk = {a.pk: a for a in animals}
    dams_with_calves = set(Animal.objects.calves_of(animals).values_list("dam_id", flat=True))
    for group in groups:
        members = [by_pk[pk] for pk in group]
        if len(members) == 1:
            (animal,) = members
            dam = animal if animal.pk in dams_with_calves else None
            if animal.dam_id and animal.dam.state == AnimalState.IMPOUNDED:
                dam = animal.dam
            if dam is not None:
                raise ValidationError(
                    {
                        "lots": _("Animal %(dam)s goes in one lot with her calf.")
                        % {"dam": dam.reference}
                    }
                )
            continue
        if len(members) == 2:
            dam, calf = sorted(members, key=lambda a: a.dam_id is not None)
            if calf.dam_id == dam.pk:
                continue
        raise ValidationError({"lots": _("A lot is one animal, or a dam with her suckling calf.")})


@transaction.atomic
def schedule_auction(
    *,
    pound,
    kind,
    by,
    scheduled_for,
    lots,
    officer,
    place="",
    deputy=None,
    deputation_order="",
    s16_case=None,
    reserve_prices=None,
    at=None,
    idempotency_key=None,
):
    """Schedule a public auction. `lots` is a list of lists of animal ids, in the order of sale.

    A s.14 sale is refused, here and not only in the form, before the eighth day after the
    notice was posted: the message names the lawful date. `at` is when the scheduling was done
    (now, or earlier when a paper record is entered late); it may not be in the future.
    Once for each `idempotency_key`: the same form sent again returns the auction it scheduled.
    """
    if done := _scheduled_with(idempotency_key, pound, by):
        return done
    at = at or clock.now(pound)
    if at > clock.now(pound) + timedelta(minutes=1):
        raise ValidationError(_("The scheduling cannot be dated in the future."))
    _check_officers(pound=pound, by=by, officer=officer, deputy=deputy)
    day = timezone.localtime(scheduled_for).date()
    if day < timezone.localtime(at).date():
        raise ValidationError({"scheduled_for": _("An auction cannot be scheduled in the past.")})
    conditions = conditions_on(pound.district, day)
    animals = _lock_offered(pound, lots)
    _lot_groups(animals, lots)
    check_may_auction(animals)
    if kind == Auction.Kind.UNCLAIMED:
        _check_s14_day(animals, day, scheduled_on=timezone.localtime(at).date())
    else:
        _check_s16_day(s16_case, animals, conditions, day)
    auction = Auction.objects.create(
        pound=pound,
        kind=kind,
        number=serial("auc", pound, day.year),
        scheduled_for=scheduled_for,
        place=place or conditions.place,
        conditions=conditions,
        officer=officer,
        deputy=deputy,
        deputation_order=deputation_order,
        s16_case=s16_case,
        created_by=by,
        created_at=at,
        idempotency_key=idempotency_key,
    )
    _create_lots(auction, lots, reserve_prices or {})
    section = "s.14" if kind == Auction.Kind.UNCLAIMED else "s.16"
    record_event(
        action=Action.AUCTION_SCHEDULED,
        section=section,
        by=by,
        pound=pound,
        summary=Message(
            gettext_noop("%(auction)s on %(at)s at %(place)s: %(count)s lot(s)"),
            auction=auction.number,
            at=scheduled_for,
            place=auction.place,
            count=len(lots),
        ),
        data={
            "auction": auction.number,
            "lots": lots,
            "officer": officer.pk,
            "deputy": deputy.pk if deputy else None,
        },
    )
    _close_auction_todos(animals)
    return auction


def _close_auction_todos(animals):
    """The officer's "auction due" to-dos of the notices whose animals are now offered."""
    offered = Notice.objects.filter(report__animals__in=[a.pk for a in animals])
    for notice_id in offered.values_list("pk", flat=True).distinct():
        todos.close(f"auction_due:{notice_id}")


def _check_officers(*, pound, by, officer, deputy):
    authorise(by, Permission.RUN_AUCTION, pound)
    if not has_permission(officer, Permission.RUN_AUCTION, pound):
        raise ValidationError(
            {"officer": _("The conducting officer must be the officer for this pound.")}
        )
    if deputy is not None and not has_permission(deputy, Permission.RUN_AUCTION, pound):
        raise ValidationError(
            {"deputy": _("The deputed officer must be of the officer's establishment.")}
        )


def _scheduled_with(key, pound, by):
    """The auction an earlier sending of the scheduling form made, or None. (Two sendings at the
    same time: the second finds the animals in the first's lots, and is refused.)"""
    return made_with_key(Auction, key, pound_id=pound.pk, created_by_id=by.pk)


def _lock_offered(pound, lots):
    """Lock the animals of the lots: each offered once, in this pound, still in it, and in no
    open lot of another auction."""
    ids = [pk for group in lots for pk in group]
    if not ids or len(ids) != len(set(ids)):
        raise ValidationError({"lots": _("Put each animal in exactly one lot.")})
    animals = list(
        Animal.objects.select_for_update(of=("self",))
        .select_related("impoundment")
        .filter(pk__in=ids, impoundment__pound=pound)
        .order_by("pk")
    )
    if len(animals) != len(ids):
        raise ValidationError({"lots": _("An animal chosen is not in this pound.")})
    for animal in animals:
        if animal.state != AnimalState.IMPOUNDED:
            raise ValidationError(
                {
                    "lots": _("Animal %(animal)s is no longer in the pound.")
                    % {"animal": animal.reference}
                }
            )
    _check_not_housed_elsewhere(animals)
    busy = LotAnimal.objects.filter(
        animal__in=animals,
        lot__status=Lot.Status.OPEN,
        lot__auction__status=Auction.Status.SCHEDULED,
    )
    if busy.exists():
        raise ValidationError({"lots": _("An animal is already in a lot of another auction.")})
    return animals


def _check_not_housed_elsewhere(animals):
    """An animal found unfit that the Magistrate directed to be housed at an infirmary,
    pinjrapole, SPCA, animal welfare organisation or gaushala is kept there while the case is
    pending (rule 3(b) of the Prevention of Cruelty to Animals (Care and Maintenance of Case
    Property Animals) Rules, 2017; ADR 0071): the pound does not sell it."""
    directed = (
        Direction.objects.filter(finding__animal__in=animals)
        .select_related("finding__animal__impoundment")
        .first()
    )
    if directed is not None:
        raise ValidationError(
            {
                "lots": _(
                    "Animal %(animal)s is to be housed at %(place)s by the Magistrate's order "
                    "%(order)s (rule 3(b) of the 2017 Rules): it is not sold."
                )
                % {
                    "animal": directed.finding.animal.reference,
                    "place": directed.place_name,
                    "order": directed.order_reference,
                }
            }
        )


def _check_s14_day(animals, day, *, scheduled_on):
    """A s.14 sale: each animal under a notice proclaimed by beat of drum in the village and at
    the market-place by the day it is `scheduled_on`, whose seven days of claim have run out by
    `day` (`order.py`)."""
    # The owner appeared: his animals are sold under s.16, with the balance to him.
    open_cases = S16Case.objects.filter(animals__in=animals)
    if open_cases.exclude(status=S16Case.Status.CLOSED).exists():
        raise ValidationError({"lots": _("A s.16 sale is already open for these animals.")})
    check_s14_order(animals, day, proclaimed_by=scheduled_on)


def _check_s16_day(case, animals, conditions, day):
    """A s.16 sale: only the animals of the owner's open case, after the gap the conditions set."""
    if case is None or case.status != S16Case.Status.OPEN:
        raise ValidationError(_("A s.16 sale needs the owner's recorded refusal."))
    if {a.pk for a in animals} - set(case.animals.values_list("pk", flat=True)):
        raise ValidationError({"lots": _("Only the owner's animals in the case can be sold.")})
    gap = case.first_sale_day(conditions)
    if day < gap:
        raise ValidationError({"scheduled_for": s16_gap_message(gap)})


def _create_lots(auction, lots, reserve_prices):
    for seq, group in enumerate(lots, start=1):
        lot = Lot.objects.create(
            auction=auction,
            number=seq,
            sequence=seq,
            reserve_price=Decimal(reserve_prices.get(seq, ZERO)),
        )
        for pk in group:
            LotAnimal.objects.create(lot=lot, animal_id=pk)


# --- Bidders and the s.19 bar ----------------------------------------------------------------


@transaction.atomic
def register_bidder(
    *,
    auction,
    by,
    name,
    address,
    id_kind,
    id_number,
    phone,
    declaration_signed,
    idempotency_key=None,
):
    """Register a bidder. Anyone who may be an officer or pound-keeper is blocked (s.19). Once
    for each `idempotency_key`: the same form sent again returns the bidder it registered."""
    auction = Auction.objects.select_for_update(of=("self",)).get(pk=auction.pk)
    authorise(by, Permission.RUN_AUCTION, auction.pound)
    done = made_with_key(Bidder, idempotency_key, auction_id=auction.pk, registered_by_id=by.pk)
    if done is not None:
        return done
    if auction.status != Auction.Status.SCHEDULED:
        raise ValidationError(_("This auction is closed."))
    if not declaration_signed:
        raise ValidationError(
            {
                "declaration_signed": _(
                    "Every buyer signs the declaration that he is not an officer or "
                    "pound-keeper, and "
                    "does not buy for one (s.19)."
                )
            }
        )
    refuse_second_registration(auction, phone=phone, id_kind=id_kind, id_number=id_number)
    matches = staff_matches(name=name, phone=phone, id_number=id_number, address=address)
    number = (auction.bidders.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    bidder = Bidder(
        auction=auction,
        number=number,
        name=name,
        address=address,
        id_kind=id_kind,
        id_number=id_number,
        phone=phone,
        declaration_signed=True,
        matches=matches,
        blocked=bool(matches),
        registered_by=by,
        idempotency_key=idempotency_key,
    )
    bidder.full_clean(exclude=["auction", "idempotency_key"])
    bidder.save()
    _record_screened(bidder, matches, by=by)
    return bidder


def _record_screened(bidder, matches, *, by):
    """The event of a bidder screened under s.19: registered, or blocked by his matches."""
    auction = bidder.auction
    record_event(
        action=Action.AUCTION_BIDDER_BLOCKED if matches else Action.AUCTION_BIDDER_REGISTERED,
        section="s.19",
        by=by,
        pound=auction.pound,
        summary=Message(
            gettext_noop("%(auction)s: bidder %(number)s blocked: may be staff (%(staff)s)"),
            auction=auction.number,
            number=bidder.number,
            staff=", ".join(m["staff"] for m in matches),
        )
        if matches
        else Message(
            gettext_noop("%(auction)s: bidder %(number)s registered"),
            auction=auction.number,
            number=bidder.number,
        ),
        data={"auction": auction.number, "bidder": bidder.number, "matches": matches},
    )


@transaction.atomic
def override_block(*, bidder, by, reason):
    """The Magistrate may let a blocked bidder bid, with a reason, after checking he is not staff
    (a namesake, say). Logged."""
    bidder = (
        Bidder.objects.select_for_update(of=("self",))
        .select_related("auction__pound")
        .get(pk=bidder.pk)
    )
    if not has_permission(by, Permission.APPROVE, bidder.auction.pound):
        raise PermissionDenied(_("Only the District Magistrate may override the s.19 check."))
    if not bidder.blocked:
        raise ValidationError(_("This bidder is not blocked."))
    if not reason.strip():
        raise ValidationError({"reason": _("Give the reason for the override.")})
    staff_ids = {m["user"] for m in bidder.matches}
    if staff_ids & {by.pk}:
        raise ValidationError(_("You cannot clear a match against yourself."))
    bidder.override_by, bidder.override_reason, bidder.override_at = by, reason, timezone.now()
    bidder.save(update_fields=["override_by", "override_reason", "override_at"])
    record_event(
        action=Action.AUCTION_BLOCK_OVERRIDDEN,
        section="s.19",
        by=by,
        pound=bidder.auction.pound,
        summary=Message(
            gettext_noop("%(auction)s: bidder %(number)s cleared: %(reason)s"),
            auction=bidder.auction.number,
            number=bidder.number,
            reason=reason,
        ),
        data={"bidder": bidder.pk, "reason": reason, "matches": bidder.matches},
    )
    return bidder


def _fresh_matches(bidder):
    """The bidder's matches against the staff records of today, and whether any is new."""
    fresh = staff_matches(
        name=bidder.name, phone=bidder.phone, id_number=bidder.id_number, address=bidder.address
    )
    new = {match_key(m) for m in fresh} - {match_key(m) for m in bidder.matches}
    return fresh, bool(new)


def assert_may_buy(bidder):
    bidder.check_may_buy()
    # Checked again at the hammer: staff records may have changed since registration.
    if _fresh_matches(bidder)[1]:
        raise ValidationError(
            _(
                "This bidder now matches a member of staff, a declared relative or a pound "
                "(s.19): check him again from the auction's page."
            )
        )


@transaction.atomic
def recheck_bidder(*, bidder, by):
    """Run the s.19 check again on a registered bidder (one registration per person: he is not
    registered twice). A new match blocks him, and voids a clearance given for the old ones,
    until the Magistrate clears him again. Logged as a block; nothing new, nothing done."""
    bidder = (
        Bidder.objects.select_for_update(of=("self",))
        .select_related("auction__pound")
        .get(pk=bidder.pk)
    )
    authorise(by, Permission.RUN_AUCTION, bidder.auction.pound)
    fresh, new = _fresh_matches(bidder)
    if not new:
        return bidder
    bidder.matches, bidder.blocked = fresh, True
    bidder.override_by, bidder.override_reason, bidder.override_at = None, "", None
    bidder.save(
        update_fields=["matches", "blocked", "override_by", "override_reason", "override_at"]
    )
    _record_screened(bidder, fresh, by=by)
    return bidder


@transaction.atomic
def record_bid(*, lot, bidder, amount, by):
    lot = (
        Lot.objects.select_for_update(of=("self",)).select_related("auction__pound").get(pk=lot.pk)
    )
    authorise(by, Permission.RUN_AUCTION, lot.auction.pound)
    if lot.status != Lot.Status.OPEN:
        raise ValidationError(_("This lot is not open for bids."))
    refusal = before_the_hour(lot.auction, clock.now(lot.auction.pound))
    if refusal:
        raise ValidationError(refusal)
    # From the database, not the caller's copy: the s.19 check must see the stored record.
    bidder = Bidder.objects.get(pk=bidder.pk)
    if bidder.auction_id != lot.auction_id:
        raise ValidationError(_("The bidder is registered for another auction."))
    assert_may_buy(bidder)
    amount = Decimal(amount)
    try:
        MinValueValidator(Decimal("0.01"))(amount)
    except ValidationError as error:
        raise ValidationError({"amount": error.messages}) from None
    best = lot.bids.order_by("-amount").first()
    if best and amount <= best.amount:
        raise ValidationError(
            {
                "amount": _("A bid must beat the highest bid so far, %(amount)s.")
                % {"amount": inr(best.amount)}
            }
        )
    return Bid.objects.create(lot=lot, bidder=bidder, amount=amount, recorded_by=by)


@transaction.atomic
def mark_unsold(*, lot, by, note=""):
    lot = (
        Lot.objects.select_for_update(of=("self",)).select_related("auction__pound").get(pk=lot.pk)
    )
    authorise(by, Permission.RUN_AUCTION, lot.auction.pound)
    if lot.status != Lot.Status.OPEN:
        raise ValidationError(_("This lot is not open."))
    no_reason = gettext_noop("No bid, or no fair price")
    move_lot(lot, Lot.Status.UNSOLD, note=note or no_reason)
    record_event(
        action=Action.AUCTION_UNSOLD,
        section="s.14",
        by=by,
        pound=lot.auction.pound,
        summary=Message(
            gettext_noop("%(auction)s lot %(lot)s not sold: %(note)s"),
            auction=lot.auction.number,
            lot=lot.number,
            note=lot.note if note else in_both(no_reason),
        ),
        data={"lot": lot.pk},
    )
    return lot


@transaction.atomic
def close_auction(*, auction, by):
    auction = Auction.objects.select_for_update(of=("self",)).get(pk=auction.pk)
    authorise(by, Permission.RUN_AUCTION, auction.pound)
    if auction.status != Auction.Status.SCHEDULED:
        raise ValidationError(_("This auction is already closed."))
    if auction.lots.open().exists():
        raise ValidationError(_("Every lot must be sold, withdrawn or marked not sold first."))
    auction.status, auction.closed_at = Auction.Status.CLOSED, timezone.now()
    auction.officer_declaration_at = auction.officer_declaration_at or auction.closed_at
    auction.save(update_fields=["status", "closed_at", "officer_declaration_at"])
    record_event(
        action=Action.AUCTION_CLOSED,
        section="s.14",
        by=by,
        pound=auction.pound,
        summary=Message(gettext_noop("%(auction)s closed"), auction=auction.number),
        data={"auction": auction.number},
    )
    return auction


def withdraw_claimed_lots(animals, *, by):
    """Called by every release (impounding.services.releases): an open lot holding one of the
    released animals is withdrawn, in the release's transaction."""
    withdraw_lots_of(animals, by, gettext_noop("Claimed before the hammer"))
