"""s.16: the owner appears and refuses or omits to pay. As many of his animals as necessary are
sold (in `hammer.py`), then the rest go back to him with the balance and the account."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import IssuedDocument
from accounts.roles import Permission
from accounts.scoping import authorise
from impounding.dues import dues
from impounding.models import Animal, AnimalState, Impoundment
from impounding.services.claims import ensure_no_hold
from impounding.services.custody import end_custody
from kernel import clock
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message
from kernel.refs import ref
from kernel.uploads import SIGNATURE_MAX_PX, reencode_image
from ledger import services as ledger
from ledger.models import AccountKind, PaymentMode, TransactionKind

from ..actions import Action
from ..models import Auction, Lot, LotAnimal, S16Case, Sale
from .common import (
    ZERO,
    allocate,
    district_account,
    feeding_account,
    record_shortfall,
    withdraw_lots_of,
)

# Who a summary names in its hashed link; the timeline shows the owner's name from the event's
# personal fields while they exist (docs/decisions/0010).
THE_OWNER = Message(gettext_noop("the owner"))


def s16_gap_message(gap):
    return _("The District Magistrate's conditions allow a s.16 sale from %(date)s.") % {
        "date": gap.strftime("%d-%m-%Y")
    }


@transaction.atomic
def open_s16_case(
    *, entry, animal_ids, by, owner_name, owner_address, refused=True, idempotency_key=None
):
    """Record that the owner appeared and refused or omitted to pay (or to deposit). Once for
    each `idempotency_key`: the same form sent again returns the case it opened."""
    authorise(by, Permission.RELEASE_ANIMAL, entry.pound)
    entry = Impoundment.objects.select_for_update(of=("self",)).get(pk=entry.pk)
    done = made_with_key(S16Case, idempotency_key, impoundment_id=entry.pk, recorded_by_id=by.pk)
    if done is not None:
        return done
    ensure_no_hold(entry, owner_name)  # competing claims freeze the s.16 path too
    animals = list(
        Animal.objects.select_for_update(of=("self",)).filter(pk__in=animal_ids, impoundment=entry)
    )
    if not animals or len(animals) != len(set(animal_ids)):
        raise ValidationError({"animals": _("Choose the owner's animals.")})
    if any(a.state != AnimalState.IMPOUNDED for a in animals):
        raise ValidationError({"animals": _("Only animals in the pound can be sold.")})
    calves = Animal.objects.calves_of(animals)
    animals += [c for c in calves if c not in animals]
    # Until it is settled, a case whose dues are covered still holds its remaining animals.
    if S16Case.objects.filter(animals__in=animals).exclude(status=S16Case.Status.CLOSED).exists():
        raise ValidationError({"animals": _("A s.16 sale is already open for these animals.")})
    case = S16Case.objects.create(
        pound=entry.pound,
        impoundment=entry,
        owner_name=owner_name,
        owner_address=owner_address,
        refused=refused,
        recorded_by=by,
        idempotency_key=idempotency_key,
    )
    case.animals.set(animals)
    record_event(
        action=Action.S16_REFUSED,
        section="s.16",
        by=by,
        impoundment=entry,
        summary=Message(
            gettext_noop(
                "%(name)s refused to pay for %(count)s animal(s): as many as necessary to be sold"
            )
            if refused
            else gettext_noop(
                "%(name)s omitted to pay for %(count)s animal(s): as many as necessary to be sold"
            ),
            name=THE_OWNER,
            count=len(animals),
        ),
        data={"case": case.pk, "animals": [a.reference for a in animals]},
        personal={"name": owner_name, "address": owner_address},
    )
    return case


def s16_position(case, *, as_of=None):
    """The running account: dues of all the case's animals to date, sale expenses so far, and
    proceeds so far. Covered when proceeds reach dues plus expenses."""
    animals = (
        Animal.objects.filter(s16_cases=case)
        # Not the animals whose dues were met, or set aside, another way: claimed after all
        # (s.13, s.15), released by a court's order, disposed of, or sold under s.14.
        .exclude(
            state__in=[
                AnimalState.RELEASED_PAID,
                AnimalState.RELEASED_ON_DEPOSIT,
                AnimalState.RELEASED_BY_ORDER,
                AnimalState.DISPOSED,
            ]
        )
        .exclude(
            state=AnimalState.SOLD,
            pk__in=LotAnimal.objects.filter(
                sold=True, lot__auction__kind=Auction.Kind.UNCLAIMED
            ).values("animal_id"),
        )
        .select_related("impoundment__pound__district")
        .prefetch_related("custody_events")
    )
    statement = dues(animals, as_of=as_of)
    sales = Sale.objects.filter(lot__auction__s16_case=case)
    proceeds = sum((s.price for s in sales), ZERO)
    expenses = sum((s.expenses for s in sales), ZERO)
    owed = statement.fines + statement.feeding + expenses
    return {
        "statement": statement,
        "fines": statement.fines,
        "feeding": statement.feeding,
        "expenses": expenses,
        "owed": owed,
        "proceeds": proceeds,
        "covered": proceeds >= owed,
        "balance": max(proceeds - owed, ZERO),
    }


def check_s16_covered(case, by, at):
    """After each s.16 hammer: once the proceeds cover the dues, the case's open lots are not
    needed and no more animals are sold."""
    position = s16_position(case, as_of=at)
    if position["covered"]:
        case.status = S16Case.Status.COVERED
        case.save(update_fields=["status"])
        Lot.objects.open().filter(auction__s16_case=case).leave_open(
            Lot.Status.NOT_NEEDED, note="Dues covered"
        )
        record_event(
            action=Action.S16_COVERED,
            section="s.16",
            by=by,
            impoundment=case.impoundment,
            summary=Message(
                gettext_noop(
                    "Proceeds ₹%(proceeds)s cover the dues ₹%(owed)s: no more animals are sold"
                ),
                proceeds=position["proceeds"],
                owed=position["owed"],
            ),
            data={"case": case.pk, "proceeds": position["proceeds"], "owed": position["owed"]},
        )


@transaction.atomic
def settle_s16_case(
    *,
    case,
    by,
    acknowledgement,
    register_page="",
    signature=None,
    balance_mode=PaymentMode.CASH,
    balance_reference="",
    at=None,
):
    """Deliver the remaining cattle and the balance to the owner with the account of items
    (a)-(f); he signs for both. Proceeds go: fines to the District Magistrate, feeding to the
    pound-keeper, the sale expenses, the balance to the owner (s.16, s.17)."""
    case = (
        S16Case.objects.select_for_update(of=("self",))
        .select_related("pound__district")
        .get(pk=case.pk)
    )
    authorise(by, Permission.RUN_AUCTION, case.pound)
    entry = Impoundment.objects.select_for_update(of=("self",)).get(pk=case.impoundment_id)
    ensure_no_hold(entry, case.owner_name)
    at = at or clock.now(case.pound)
    remaining = list(
        Animal.objects.select_for_update(of=("self",))
        .in_custody()
        .filter(s16_cases=case)
        .order_by("pk")
    )
    _check_settlement(case, remaining)
    if acknowledgement == "register_page" and not register_page.strip():
        raise ValidationError({"register_page": _("Give the page of the register signed.")})
    if acknowledgement == "signature" and not signature:
        raise ValidationError({"signature": _("The owner must sign on the screen.")})
    position = s16_position(case, as_of=at)
    split = allocate(
        position["proceeds"],
        fines=position["fines"],
        feeding=position["feeding"],
        expenses=position["expenses"],
    )
    case.balance_mode, case.balance_reference = balance_mode, balance_reference
    case.acknowledgement, case.register_page = acknowledgement, register_page
    _close_account(case, position=position, split=split, signature=signature, by=by, at=at)
    _post_settlement(case, split=split, by=by, at=at)
    _return_animals(case, remaining, by=by, at=at)
    record_event(
        action=Action.S16_SETTLED,
        section="s.16",
        by=by,
        impoundment=case.impoundment,
        summary=Message(
            gettext_noop(
                "%(count)s animal(s) and ₹%(balance)s returned to %(name)s with account %(account)s"
            ),
            count=len(remaining),
            balance=case.balance,
            name=THE_OWNER,
            account=case.account_document.number,
        ),
        personal={"name": case.owner_name},
        data={
            "case": case.pk,
            "fines": case.fines,
            "feeding": case.feeding,
            "expenses": case.expenses,
            "proceeds": case.proceeds,
            "balance": case.balance,
            "shortfall": case.shortfall,
            "returned": [a.reference for a in remaining],
        },
    )
    return case


def _check_settlement(case, remaining):
    if case.status == S16Case.Status.CLOSED:
        raise ValidationError(_("This account is already settled."))
    if case.status == S16Case.Status.OPEN and remaining:
        raise ValidationError(
            _("The dues are not yet covered: sell the next lot, or all of them, before settling.")
        )
    if Lot.objects.open().filter(auction__s16_case=case).exists():
        raise ValidationError(_("A lot is still open."))


def _close_account(case, *, position, split, signature, by, at):
    """Write the account of items (a)-(f) onto the case, closed, with its document."""
    _paid_exp, _paid_feed, _paid_fines, balance, short = split
    case.fines, case.feeding, case.expenses = (
        position["fines"],
        position["feeding"],
        position["expenses"],
    )
    case.proceeds, case.balance = position["proceeds"], balance
    case.shortfall = sum(short.values(), ZERO)
    case.status, case.closed_at, case.closed_by = S16Case.Status.CLOSED, at, by
    if signature:
        signature = reencode_image(signature, field="signature", max_px=SIGNATURE_MAX_PX, fmt="PNG")
        case.signature.save(signature.name, signature, save=False)
    pound = case.pound
    case.account_document = IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.S16_ACCOUNT,
        number=f"ACC/{pound.code.upper()}/{case.pk:05d}",
        by=by,
        subject_type="auctions.s16case",
        pound=pound,
        issued_at=at,
    )
    case.save()
    IssuedDocument.objects.link(case.account_document, case)


def _post_settlement(case, *, split, by, at):
    """The proceeds held are applied (s.17), the balance paid to the owner (s.16), and any
    shortfall recorded."""
    paid_exp, paid_feed, paid_fines, balance, short = split
    pound, number = case.pound, case.account_document.number
    if case.proceeds:
        ledger.post(
            district=pound.district,
            pound=pound,
            kind=TransactionKind.S16_SETTLED,
            by=by,
            section="s.17",
            source=ref(case),
            at=at,
            impoundment_id=case.impoundment_id,
            memo=f"s.16 account {number}: proceeds ₹{case.proceeds} applied",
            lines=[
                (district_account(pound, AccountKind.SALE_PROCEEDS_HELD), case.proceeds),
                (district_account(pound, AccountKind.SALE_EXPENSES), -paid_exp),
                (feeding_account(pound), -paid_feed),
                (district_account(pound, AccountKind.FINES_DUE_DM), -paid_fines),
                (district_account(pound, AccountKind.OWNER_BALANCES_DUE), -balance),
            ],
        )
    if balance:
        ledger.post(
            district=pound.district,
            pound=pound,
            kind=TransactionKind.S16_BALANCE_PAID,
            by=by,
            section="s.16",
            source=ref(case),
            at=at,
            impoundment_id=case.impoundment_id,
            memo=f"s.16 account {number}: balance ₹{balance} paid to the owner",
            lines=[
                (district_account(pound, AccountKind.OWNER_BALANCES_DUE), balance),
                (ledger.till_account(pound, case.balance_mode), -balance),
            ],
        )
    if case.shortfall:
        record_shortfall(pound, short, s16_case=case)


def _return_animals(case, remaining, *, by, at):
    # The case names the animals it returns before they leave: the database refuses an animal
    # returned under s.16 without its case.
    case.returned_animals.add(*remaining)
    end_custody(remaining, state=AnimalState.RETURNED_S16, at=at)
    # An animal returned may still stand in a lot of a s.14 auction.
    withdraw_lots_of(remaining, by, gettext_noop("Returned to the owner (s.16)"))
