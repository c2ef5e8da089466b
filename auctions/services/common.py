"""What the sale workflows share: numbering, the split of proceeds, the ledger accounts money
lands in, and the withdrawal of a lot whose animal has left the pound."""

from decimal import Decimal

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import Counter
from impounding.dues import dues
from impounding.models import Animal
from kernel import clock
from kernel.events import record_event
from kernel.messages import Message, in_both
from ledger import services as ledger
from ledger.models import AccountKind

from ..actions import Action
from ..models import Lot, LotAnimal, Shortfall

ZERO = Decimal("0.00")


def today(of=None):
    return clock.today(of)


def serial(prefix, pound, year):
    n = Counter.next(f"{prefix}:{pound.pk}:{year}")
    return f"{prefix.upper()}/{pound.code.upper()}/{year}/{n:05d}"


def allocate(proceeds, *, fines, feeding, expenses):
    """Split proceeds: expenses first, then feeding, then fines (docs/domain.md decision 7). Returns
    (paid expenses, paid feeding, paid fines, surplus, shortfall by head)."""
    left = proceeds
    paid_expenses = min(left, expenses)
    left -= paid_expenses
    paid_feeding = min(left, feeding)
    left -= paid_feeding
    paid_fines = min(left, fines)
    left -= paid_fines
    short = {
        "expenses": expenses - paid_expenses,
        "feeding": feeding - paid_feeding,
        "fines": fines - paid_fines,
    }
    return paid_expenses, paid_feeding, paid_fines, left, short


def split_dues(animals, *, price, expenses, at):
    """The animals' fines and feeding to `at`, and `price` split over them and `expenses` as a
    s.14 sale's proceeds are (s.17). Returns (statement, the split of `allocate`)."""
    statement = dues(
        Animal.objects.filter(pk__in=[a.pk for a in animals])
        .select_related("impoundment__pound__district")
        .prefetch_related("custody_events"),
        as_of=at,
    )
    return statement, allocate(
        price, fines=statement.fines, feeding=statement.feeding, expenses=expenses
    )


def s17_lines(pound, *, payment_mode, price, expenses, feeding, fines, surplus):
    """The ledger lines of proceeds received and applied under s.17: the price into the till,
    the sale expenses, the feeding to the pound-keeper, the fines to the District Magistrate
    and the surplus held by him."""
    return [
        (ledger.till_account(pound, payment_mode), price),
        (district_account(pound, AccountKind.SALE_EXPENSES), -expenses),
        (feeding_account(pound), -feeding),
        (district_account(pound, AccountKind.FINES_DUE_DM), -fines),
        (district_account(pound, AccountKind.DM_SURPLUS_HELD), -surplus),
    ]


def record_shortfall(pound, short, **source):
    """Dues left unpaid (`short`, by head, from `allocate`) for the District Magistrate to write
    off (docs/domain.md decision 7); `source` names the sale, s.16 case or disposal. None when
    nothing is short."""
    if not sum(short.values(), ZERO):
        return None
    return Shortfall.objects.create(
        pound=pound,
        fines=short["fines"],
        feeding=short["feeding"],
        expenses=short["expenses"],
        **source,
    )


def feeding_account(pound):
    return ledger.account(district=pound.district, pound=pound, kind=AccountKind.FEEDING_PK)


def district_account(pound, kind):
    return ledger.account(district=pound.district, kind=kind)


def move_lot(lot, status, *, note=None):
    """Move one locked lot out of OPEN through `Lot.objects.leave_open`, and refresh the caller's
    copy. Returns whether it moved (False when it had already left OPEN)."""
    moved = Lot.objects.filter(pk=lot.pk).leave_open(status, note=note)
    lot.refresh_from_db(fields=["status", "note"])
    return bool(moved)


def withdraw(lot, by, note):
    """Withdraw an open lot (its animal has left the pound), with its event; a lot no longer open
    is left alone."""
    if not move_lot(lot, Lot.Status.WITHDRAWN, note=note):
        return
    record_event(
        action=Action.AUCTION_WITHDRAWN,
        section="s.14",
        by=by,
        pound=lot.auction.pound,
        summary=Message(
            gettext_noop("%(auction)s lot %(lot)s withdrawn: %(note)s"),
            auction=lot.auction.number,
            lot=lot.number,
            note=in_both(note) | {"en": note.lower()},
        ),
        data={"lot": lot.pk},
    )


def withdraw_lots_of(animals, by, note):
    lot_ids = set(
        LotAnimal.objects.filter(
            animal__in=[a.pk for a in animals], lot__status=Lot.Status.OPEN
        ).values_list("lot_id", flat=True)
    )
    locked = Lot.objects.select_for_update(of=("self",)).select_related("auction__pound")
    for lot in locked.filter(pk__in=lot_ids).order_by("pk"):
        withdraw(lot, by, note)


def before_the_hour(auction, at):
    """The refusal of a bid or a hammer at `at`, before the hour the auction was announced for,
    or "". The public were told the hour: a sale before it shuts out the bidders who came."""
    if at >= auction.scheduled_for:
        return ""
    return _(
        "The auction was announced for %(when)s: no bid is taken and no lot is sold before then."
    ) % {"when": timezone.localtime(auction.scheduled_for).strftime("%d-%m-%Y %H:%M IST")}
