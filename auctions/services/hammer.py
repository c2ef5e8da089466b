"""The hammer: a lot knocked down to a buyer, its certificate, and where every rupee goes (s.17).

A s.14 sale's price pays the expenses, the feeding and the fines, the surplus to the District
Magistrate; a s.16 sale's price is held until the owner's account is settled (`s16.py`)."""

from datetime import timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import IssuedDocument
from accounts.roles import Permission
from accounts.scoping import authorise
from impounding.models import Animal, AnimalState
from impounding.services.custody import end_custody
from kernel import clock
from kernel.events import record_event
from kernel.formatting import inr
from kernel.messages import Message
from kernel.refs import ref
from ledger import services as ledger
from ledger.models import AccountKind, PaymentMode, TransactionKind
from office import services as office

from ..actions import Action
from ..models import Auction, Bidder, Lot, LotAnimal, S16Case, Sale
from .auction import assert_may_buy
from .common import (
    ZERO,
    allocate,
    before_the_hour,
    district_account,
    move_lot,
    record_shortfall,
    s17_lines,
    split_dues,
    withdraw,
)
from .order import check_s14_order
from .s16 import check_s16_covered, s16_gap_message, s16_position


def shortfall_if_sold(lot, *, price, expenses=ZERO, at=None):
    """The dues a hammer at `price` would leave unpaid, for the officer's check page, split as the
    sale itself would split them (s.17; docs/domain.md decision 7). A s.14 lot's shortfall is its
    animals' dues less the price; a s.16 lot's only when it is the case's last open lot, since the
    next lot may still cover the dues. Reads only: nothing is locked or written."""
    at = at or clock.now(lot.auction.pound)
    price, expenses = Decimal(price), Decimal(expenses)
    auction = lot.auction
    if auction.s16_case_id is None:
        animals = list(lot.animals.all())
        _statement, split = split_dues(animals, price=price, expenses=expenses, at=at)
        return sum(split[4].values(), ZERO)
    if auction.lots.open().exclude(pk=lot.pk).exists():
        return ZERO
    position = s16_position(auction.s16_case, as_of=at)
    split = allocate(
        position["proceeds"] + price,
        fines=position["fines"],
        feeding=position["feeding"],
        expenses=position["expenses"] + expenses,
    )
    return sum(split[4].values(), ZERO)


class _AnimalGone(Exception):
    """An animal of the lot left the pound (claimed, died, escaped) before the hammer."""


def sell_lot(
    *,
    lot,
    buyer,
    price,
    by,
    payment_mode=PaymentMode.CASH,
    payment_reference="",
    expenses=ZERO,
    at=None,
):
    """Knock a lot down to a buyer. A lot is sold once: concurrent recordings leave one sale.

    A lot one of whose animals has left the pound is withdrawn, and the sale refused: the
    withdrawal is written in a transaction of its own, so that the refusal does not undo it."""
    try:
        return _sell_lot(
            lot=lot,
            buyer=buyer,
            price=price,
            by=by,
            payment_mode=payment_mode,
            payment_reference=payment_reference,
            expenses=expenses,
            at=at,
        )
    except _AnimalGone:
        with transaction.atomic():
            locked = Lot.objects.select_for_update(of=("self",)).select_related("auction__pound")
            withdraw(locked.get(pk=lot.pk), by, gettext_noop("No longer in the pound"))
        raise ValidationError(
            _("An animal of this lot was claimed before the hammer: the lot is withdrawn.")
        ) from None


@transaction.atomic
def _sell_lot(*, lot, buyer, price, by, payment_mode, payment_reference, expenses, at):
    lot = Lot.objects.select_related("auction__pound__district", "auction__conditions").get(
        pk=lot.pk
    )
    auction, pound = lot.auction, lot.auction.pound
    authorise(by, Permission.RUN_AUCTION, pound)
    case, animals = _lock_for_hammer(lot)
    buyer = _check_open_to(lot, buyer)
    price, expenses = Decimal(price), Decimal(expenses)
    _check_price(lot, price=price, expenses=expenses)
    if payment_mode != PaymentMode.CASH and not payment_reference.strip():
        raise ValidationError({"payment_reference": _("Give the payment reference.")})
    at = at or clock.now(lot.auction.pound)
    if any(a.state != AnimalState.IMPOUNDED for a in animals):
        raise _AnimalGone
    _check_sale_time(lot, case=case, animals=animals, at=at)
    certificate = IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.SALE_CERTIFICATE,
        number=f"CERT/{auction.number.split('/', 1)[1]}/{lot.number}",
        by=by,
        subject_type="auctions.sale",
        pound=pound,
        issued_at=at,
    )
    sale = Sale(
        lot=lot,
        buyer=buyer,
        price=price,
        payment_mode=payment_mode,
        payment_reference=payment_reference,
        sold_at=at,
        sold_by=by,
        expenses=expenses,
        certificate=certificate,
    )
    short = _apportion(sale, animals=animals) if auction.kind == Auction.Kind.UNCLAIMED else None
    lines = _sale_lines(sale, pound)
    _record_sale(sale, animals=animals, short=short)
    _post_sale(sale, animals=animals, lines=lines, by=by)
    if case is not None:
        check_s16_covered(case, by, at)
    return sale


def _lock_for_hammer(lot):
    """Lock, in the order the other paths take them: the s.16 case, the animals, then the lots.
    A claim locks the animals and then withdraws their lots, so a claim racing the hammer waits
    for it (or it for the claim) instead of deadlocking. Returns (case or None, animals)."""
    case = None
    if lot.auction.s16_case_id is not None:
        case = S16Case.objects.select_for_update(of=("self",)).get(pk=lot.auction.s16_case_id)
    animals = list(
        Animal.objects.select_for_update(of=("self",)).filter(lotanimal__lot=lot).order_by("pk")
    )
    # With the lot, a s.16 sale locks the case's other open lots, which it closes when covered.
    lots = Lot.objects.filter(pk=lot.pk)
    if case is not None:
        lots = Lot.objects.filter(Q(pk=lot.pk) | Q(auction__s16_case=case, status=Lot.Status.OPEN))
    list(lots.select_for_update(of=("self",)).order_by("pk"))
    lot.refresh_from_db(fields=["status"])
    return case, animals


def _check_open_to(lot, buyer):
    """The lot still open at an auction still running, to a buyer of that auction who may buy
    (s.19). Returns the buyer, locked and read from the database."""
    if lot.status != Lot.Status.OPEN:
        raise ValidationError(
            _("Lot %(n)s is not open: it is %(status)s.")
            % {"n": lot.number, "status": lot.get_status_display()}
        )
    if lot.auction.status != Auction.Status.SCHEDULED:
        raise ValidationError(_("This auction is closed."))
    buyer = Bidder.objects.select_for_update(of=("self",)).get(pk=buyer.pk)
    if buyer.auction_id != lot.auction_id:
        raise ValidationError(_("The buyer is registered for another auction."))
    assert_may_buy(buyer)
    return buyer


def _check_price(lot, *, price, expenses):
    conditions = lot.auction.conditions
    if price <= 0:
        raise ValidationError({"price": _("Enter the hammer price.")})
    if price < lot.reserve_price:
        raise ValidationError(
            {
                "price": _("The price is below the reserve of %(reserve)s.")
                % {"reserve": inr(lot.reserve_price)}
            }
        )
    if expenses < 0 or expenses > conditions.max_expenses_per_lot:
        raise ValidationError(
            {
                "expenses": _(
                    "The District Magistrate's conditions allow sale expenses of at most "
                    "%(max)s a lot."
                )
                % {"max": inr(conditions.max_expenses_per_lot)}
            }
        )


def _check_sale_time(lot, *, case, animals, at):
    """The hammer falls on a lawful day (s.14, s.16), in its turn, and not before the hour
    announced."""
    auction = lot.auction
    # The hour first: before it, it is the true reason even when the day is also too early.
    refusal = before_the_hour(auction, at)
    if refusal:
        raise ValidationError(refusal)
    if auction.kind == Auction.Kind.UNCLAIMED:
        # The whole order of s.14 again, not only the day: the notice, both drums, seven days.
        try:
            check_s14_order(animals, timezone.localtime(at).date())
        except ValidationError as refusal:
            raise ValidationError(refusal.messages) from None
    if case is not None:
        if case.status != S16Case.Status.OPEN:
            raise ValidationError(_("The dues are already covered: no more lots are sold (s.16)."))
        # Refused at the hammer too, not only when the auction is scheduled.
        gap = case.first_sale_day(auction.conditions)
        if timezone.localtime(at).date() < gap:
            raise ValidationError(s16_gap_message(gap))
        # One lot at a time, in the officer's order: the sale stops when the dues are covered,
        # so which animals are sold depends on it (docs/domain.md decision 7).
        if auction.lots.open().filter(sequence__lt=lot.sequence).exists():
            raise ValidationError(_("A lot is still open."))
    if at > clock.now(auction.pound) + timedelta(minutes=1):
        raise ValidationError(_("The sale cannot be dated in the future."))


def _apportion(sale, *, animals):
    """Split a s.14 sale's price over the animals' dues (s.17) onto the sale; returns the
    shortfall by head."""
    _statement, split = split_dues(
        animals, price=sale.price, expenses=sale.expenses, at=sale.sold_at
    )
    paid_exp, paid_feed, paid_fines, surplus, short = split
    sale.fines, sale.feeding, sale.expenses, sale.surplus = (
        paid_fines,
        paid_feed,
        paid_exp,
        surplus,
    )
    sale.shortfall = sum(short.values(), ZERO)
    return short


def _sale_lines(sale, pound):
    if sale.lot.auction.kind == Auction.Kind.UNCLAIMED:
        return s17_lines(
            pound,
            payment_mode=sale.payment_mode,
            price=sale.price,
            expenses=sale.expenses,
            feeding=sale.feeding,
            fines=sale.fines,
            surplus=sale.surplus,
        )
    # s.16: the proceeds wait until the owner's account is settled (settle_s16_case).
    return [
        (ledger.till_account(pound, sale.payment_mode), sale.price),
        (district_account(pound, AccountKind.SALE_PROCEEDS_HELD), -sale.price),
    ]


def _record_sale(sale, *, animals, short):
    """Save the sale (and a s.14 sale's shortfall), let the office follow, then the lot and its
    animals leave: the database refuses an animal sold without its sold lot."""
    lot = sale.lot
    sale.full_clean(exclude=["lot", "buyer", "certificate"])
    sale.save()
    IssuedDocument.objects.link(sale.certificate, sale)
    if short is not None:
        record_shortfall(lot.auction.pound, short, sale=sale)
    office.open_surplus_deposit(sale)
    move_lot(lot, Lot.Status.SOLD)
    LotAnimal.objects.filter(lot=lot).update(sold=True)
    end_custody(animals, state=AnimalState.SOLD, at=sale.sold_at)


def _post_sale(sale, *, animals, lines, by):
    lot, buyer, price = sale.lot, sale.buyer, sale.price
    auction, pound = lot.auction, lot.auction.pound
    if auction.kind == Auction.Kind.UNCLAIMED:
        kind, section = TransactionKind.SALE_S14, "s.17"
    else:
        kind, section = TransactionKind.SALE_S16, "s.16"
    ledger.post(
        district=pound.district,
        pound=pound,
        kind=kind,
        section=section,
        by=by,
        memo=f"{auction.number} lot {lot.number} sold to bidder {buyer.number} for ₹{price}",
        source=ref(sale),
        at=sale.sold_at,
        impoundment_id=animals[0].impoundment_id,
        lines=lines,
    )
    record_event(
        action=Action.AUCTION_SOLD,
        section="s.14" if auction.s16_case_id is None else "s.16",
        by=by,
        pound=pound,
        impoundment=animals[0].impoundment,
        summary=Message(
            gettext_noop(
                "%(auction)s lot %(lot)s (%(animals)s) sold to bidder %(bidder)s for ₹%(price)s"
            ),
            auction=auction.number,
            lot=lot.number,
            animals=", ".join(a.reference for a in animals),
            bidder=buyer.number,
            price=price,
        ),
        data={
            "auction": auction.number,
            "lot": lot.number,
            "price": price,
            "fines": sale.fines,
            "feeding": sale.feeding,
            "expenses": sale.expenses,
            "surplus": sale.surplus,
            "shortfall": sale.shortfall,
        },
    )
