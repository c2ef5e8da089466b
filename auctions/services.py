"""Unclaimed cattle (s.14), sales on the owner's refusal (s.16), and where the money goes (s.17).

Every function is atomic, checks the actor's permission, locks what two people could race for,
writes its event (with the section relied on) to the pound's hash chain, and posts its money as
one balanced ledger transaction in the same database transaction.
"""

from datetime import timedelta
from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.validators import MinValueValidator
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Counter, District, IssuedDocument
from accounts.roles import Permission
from accounts.scoping import authorise, has_permission
from impounding.dues import dues
from impounding.models import Animal, AnimalState
from impounding.services.common import ensure_transition
from ledger import services as ledger
from ledger.models import AccountKind, PaymentMode, TransactionKind
from poundadmin.events import record_event
from poundadmin.formatting import inr

from .actions import Action
from .clocks import appointed_officer, notice_dates, reports_due
from .models import (
    Auction,
    AuctionConditions,
    Bid,
    Bidder,
    DisposalOrder,
    Lot,
    LotAnimal,
    Notice,
    Proclamation,
    Report,
    S16Case,
    Sale,
    Shortfall,
)
from .staffcheck import staff_matches

ZERO = Decimal("0.00")

# Called with the sale inside the transaction of every hammer, so that the office can follow:
# the surplus of a s.14 sale goes into the District Magistrate's deposit (s.17).
SALE_HOOKS = []


def _today():
    return timezone.localdate()


def _serial(prefix, pound, year):
    n = Counter.next(f"{prefix}:{pound.pk}:{year}")
    return f"{prefix.upper()}/{pound.code.upper()}/{year}/{n:05d}"


def _register_document(kind, number, pound, by, subject, at=None):
    return IssuedDocument.objects.create(
        kind=kind,
        number=number,
        issued_by=by,
        district=pound.district,
        pound=pound,
        issuing_office=pound.name,
        issuing_office_hi=pound.name_hi or pound.name,
        subject_type=subject,
        subject_id=0,
        **({"issued_at": at} if at else {}),
    )


def _link_document(document, obj):
    IssuedDocument.objects.filter(pk=document.pk).update(subject_id=obj.pk)


# --- The first clock: the report (s.14) -----------------------------------------------------


@transaction.atomic
def send_report(*, entry, by, at=None):
    """The pound-keeper reports the entry's unclaimed animals to the officer."""
    pound = entry.pound
    authorise(by, Permission.SEND_REPORT, pound)
    at = at or timezone.now()
    today = timezone.localtime(at).date()
    rows = [r for r in reports_due([pound.pk], today) if r["entry"].pk == entry.pk]
    if not rows:
        due = entry.arrival_date() + timedelta(days=8)
        if today < due:
            raise ValidationError(
                _(
                    "The seven days for a claim run until the end of %(end)s (s.14). The report is "
                    "due from %(due)s."
                )
                % {
                    "end": (due - timedelta(days=1)).strftime("%d-%m-%Y"),
                    "due": due.strftime("%d-%m-%Y"),
                }
            )
        raise ValidationError(_("No animal of this entry is left unclaimed and unreported."))
    row = rows[0]
    animals = list(
        Animal.objects.select_for_update().filter(
            pk__in=[a.pk for a in row["animals"]], state=AnimalState.IMPOUNDED
        )
    )
    if len(animals) != len(row["animals"]):
        raise ValidationError(_("An animal was released meanwhile: look at the entry again."))
    if Report.objects.filter(animals__in=animals).exists():
        raise ValidationError(_("These animals have already been reported."))
    number = _serial("rep", pound, today.year)
    document = _register_document(
        IssuedDocument.Kind.S14_REPORT, number, pound, by, "auctions.report", at
    )
    report = Report.objects.create(
        pound=pound,
        impoundment=entry,
        number=number,
        police_station=pound.nearest_police_station,
        officer=appointed_officer(pound, today),
        due_on=row["due_on"],
        sent_at=at,
        sent_by=by,
        document=document,
    )
    report.animals.set(animals)
    _link_document(document, report)
    to = report.officer.get_full_name() if report.officer else str(report.police_station)
    record_event(
        action=Action.S14_REPORTED,
        section="s.14",
        by=by,
        impoundment=entry,
        at=None,
        summary=f"{number}: {len(animals)} unclaimed animal(s) reported to {to}",
        data={
            "report": number,
            "animals": [a.reference for a in animals],
            "due_on": row["due_on"],
            "days_late": report.days_late,
        },
    )
    return report


# --- The second clock: notice and proclamation (s.14) ---------------------------------------


@transaction.atomic
def post_notice(*, report, by, posted_on, posted_at):
    """The officer records the day he stuck up the notice in his office: the second clock."""
    report = Report.objects.select_for_update().select_related("pound").get(pk=report.pk)
    pound = report.pound
    authorise(by, Permission.HANDLE_UNCLAIMED, pound)
    if hasattr(report, "notice"):
        raise ValidationError(_("The notice for this report is already recorded."))
    sent = timezone.localtime(report.sent_at).date()
    if posted_on < sent:
        raise ValidationError(
            {
                "posted_on": _("The notice cannot be posted before the report was sent (%(date)s).")
                % {"date": sent.strftime("%d-%m-%Y")}
            }
        )
    if posted_on > _today():
        raise ValidationError(
            {"posted_on": _("Record the notice on or after the day it is posted, not before.")}
        )
    last_day, earliest = notice_dates(posted_on)
    number = _serial("ntc", pound, posted_on.year)
    document = _register_document(
        IssuedDocument.Kind.S14_NOTICE, number, pound, by, "auctions.notice"
    )
    notice = Notice.objects.create(
        report=report,
        pound=pound,
        number=number,
        posted_on=posted_on,
        posted_at=posted_at,
        last_day_to_claim=last_day,
        earliest_sale=earliest,
        recorded_by=by,
        document=document,
    )
    _link_document(document, notice)
    late = (posted_on - sent).days
    record_event(
        action=Action.S14_NOTICE_POSTED,
        section="s.14",
        by=by,
        impoundment=report.impoundment,
        summary=f"{number} posted on {posted_on:%d-%m-%Y} at {posted_at}; claims until "
        f"{last_day:%d-%m-%Y}; sale not before {earliest:%d-%m-%Y}",
        data={
            "notice": number,
            "posted_on": posted_on,
            "last_day": last_day,
            "earliest_sale": earliest,
            "days_after_report": late,
        },
    )
    return notice


@transaction.atomic
def record_proclamation(
    *, notice, by, channel, made_on, made_by, place="", village=None, details="", photo=None
):
    """Proclamation by beat of drum in the village and at the nearest market-place (s.14), or a
    further channel, recorded separately: a further channel never replaces the drum."""
    authorise(by, Permission.HANDLE_UNCLAIMED, notice.pound)
    if made_on < notice.posted_on or made_on > _today():
        raise ValidationError(
            {"made_on": _("The date must fall between the posting of the notice and today.")}
        )
    if channel in (Proclamation.Channel.DRUM_VILLAGE, Proclamation.Channel.DRUM_MARKET) and not (
        place.strip() or village
    ):
        raise ValidationError({"place": _("Name the village or the market-place.")})
    if village is not None and village.district_id != notice.pound.district_id:
        raise ValidationError({"village": _("The village must be in the pound's district.")})
    proclamation = Proclamation(
        notice=notice,
        channel=channel,
        made_on=made_on,
        place=place,
        village=village,
        made_by=made_by,
        details=details,
        recorded_by=by,
    )
    # Check the record before the photo is stored, so that a refusal leaves no stray file.
    proclamation.full_clean(exclude=["notice", "photo"])
    if photo:
        from impounding.services.intake import resize_photo

        proclamation.photo.save("photo.jpg", resize_photo(photo), save=False)
    proclamation.save()
    record_event(
        action=Action.S14_PROCLAIMED,
        section="s.14",
        by=by,
        impoundment=notice.report.impoundment,
        summary=f"{proclamation.get_channel_display()}, {made_on:%d-%m-%Y}, "
        f"{place or village}, by {made_by}",
        data={
            "notice": notice.number,
            "channel": channel,
            "made_on": made_on,
            "place": place,
            "village": village.pk if village else None,
        },
    )
    return proclamation


# --- The District Magistrate's conditions of sale -------------------------------------------


@transaction.atomic
def set_auction_conditions(
    *,
    district,
    by,
    order_reference,
    order_date,
    valid_from,
    place,
    hours,
    reserve_policy,
    earnest_money,
    buyer_declarations,
    chargeable_expenses,
    max_expenses_per_lot=ZERO,
    s16_min_gap_days=1,
    valid_to=None,
):
    """A new standing order; it ends the open-ended order before it (versioned, no overlap)."""
    if not has_permission(by, Permission.PREPARE_ORDERS, district):
        raise PermissionDenied(_("Only the District Magistrate's office sets the conditions."))
    District.objects.select_for_update().get(pk=district.pk)
    same = AuctionConditions.objects.filter(district=district)
    superseded = list(same.filter(valid_to__isnull=True, valid_from__lt=valid_from))
    clash = same.overlapping(valid_from, valid_to).exclude(pk__in=[o.pk for o in superseded])
    if clash.exists():
        raise ValidationError({"valid_from": _("These dates overlap another standing order.")})
    for old in superseded:
        old.valid_to = valid_from - timedelta(days=1)
        old.save(update_fields=["valid_to"])
    conditions = AuctionConditions(
        district=district,
        order_reference=order_reference,
        order_date=order_date,
        valid_from=valid_from,
        valid_to=valid_to,
        place=place,
        hours=hours,
        reserve_policy=reserve_policy,
        earnest_money=Decimal(earnest_money),
        buyer_declarations=buyer_declarations,
        chargeable_expenses=chargeable_expenses,
        max_expenses_per_lot=Decimal(max_expenses_per_lot),
        s16_min_gap_days=s16_min_gap_days,
        created_by=by,
    )
    conditions.full_clean()
    conditions.save()
    record_event(
        action=Action.S14_CONDITIONS_SET,
        section="s.14",
        by=by,
        district=district,
        summary=f"Conditions of sale {order_reference} in force from {valid_from:%d-%m-%Y}",
        data={"conditions": conditions.pk, "superseded": [o.pk for o in superseded]},
    )
    return conditions


def conditions_on(district, day):
    found = AuctionConditions.objects.filter(district=district).in_force(day).first()
    if found is None:
        raise ValidationError(
            _(
                "No standing order of the District Magistrate sets the place, "
                "time and conditions of sale on %(date)s (s.14)."
            )
            % {"date": day.strftime("%d-%m-%Y")}
        )
    return found


# --- Scheduling the auction ------------------------------------------------------------------


def _s16_first_day(case, conditions):
    """The first day of a s.16 sale: the gap the District Magistrate's conditions set after the
    owner's refusal (docs/domain.md §1.1)."""
    return timezone.localtime(case.recorded_at).date() + timedelta(days=conditions.s16_min_gap_days)


def _s16_gap_message(gap):
    return _("The District Magistrate's conditions allow a s.16 sale from %(date)s.") % {
        "date": gap.strftime("%d-%m-%Y")
    }


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
    return True


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
):
    """Schedule a public auction. `lots` is a list of lists of animal ids, in the order of sale.

    A s.14 sale is refused, here and not only in the form, before the eighth day after the
    notice was posted: the message names the lawful date. `at` is when the scheduling was done
    (now, or earlier when a paper record is entered late); it may not be in the future.
    """
    at = at or timezone.now()
    if at > timezone.now() + timedelta(minutes=1):
        raise ValidationError(_("The scheduling cannot be dated in the future."))
    authorise(by, Permission.RUN_AUCTION, pound)
    if not has_permission(officer, Permission.RUN_AUCTION, pound):
        raise ValidationError(
            {"officer": _("The conducting officer must be the officer for this pound.")}
        )
    if deputy is not None and not has_permission(deputy, Permission.RUN_AUCTION, pound):
        raise ValidationError(
            {"deputy": _("The deputed officer must be of the officer's establishment.")}
        )
    day = timezone.localtime(scheduled_for).date()
    if day < timezone.localtime(at).date():
        raise ValidationError({"scheduled_for": _("An auction cannot be scheduled in the past.")})
    conditions = conditions_on(pound.district, day)
    ids = [pk for group in lots for pk in group]
    if not ids or len(ids) != len(set(ids)):
        raise ValidationError({"lots": _("Put each animal in exactly one lot.")})
    animals = list(
        Animal.objects.select_for_update()
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
    busy = LotAnimal.objects.filter(
        animal__in=animals,
        lot__status=Lot.Status.OPEN,
        lot__auction__status=Auction.Status.SCHEDULED,
    )
    if busy.exists():
        raise ValidationError({"lots": _("An animal is already in a lot of another auction.")})
    _lot_groups(animals, lots)
    if kind == Auction.Kind.UNCLAIMED:
        # The owner appeared: his animals are sold under s.16, with the balance to him.
        open_cases = S16Case.objects.filter(animals__in=animals)
        if open_cases.exclude(status=S16Case.Status.CLOSED).exists():
            raise ValidationError({"lots": _("A s.16 sale is already open for these animals.")})
        notices = {a.pk: Notice.objects.filter(report__animals=a).first() for a in animals}
        for animal in animals:
            notice = notices[animal.pk]
            if notice is None and animal.dam_id:
                # A calf born after the report goes under its dam's notice.
                notice = (
                    notices.get(animal.dam_id)
                    or Notice.objects.filter(report__animals=animal.dam_id).first()
                )
            if notice is None:
                raise ValidationError(
                    {
                        "lots": _(
                            "Animal %(animal)s has no notice under s.14: report it and have "
                            "the notice "
                            "posted first."
                        )
                        % {"animal": animal.reference}
                    }
                )
            if day < notice.earliest_sale:
                raise ValidationError(
                    {
                        "scheduled_for": _(
                            "The earliest lawful date of sale for %(animal)s is %(date)s: "
                            "the notice was "
                            "posted on %(posted)s and the owner has seven days after it to claim "
                            "(s.14)."
                        )
                        % {
                            "animal": animal.reference,
                            "date": notice.earliest_sale.strftime("%d-%m-%Y"),
                            "posted": notice.posted_on.strftime("%d-%m-%Y"),
                        }
                    }
                )
    else:
        if s16_case is None or s16_case.status != S16Case.Status.OPEN:
            raise ValidationError(_("A s.16 sale needs the owner's recorded refusal."))
        if set(ids) - set(s16_case.animals.values_list("pk", flat=True)):
            raise ValidationError({"lots": _("Only the owner's animals in the case can be sold.")})
        gap = _s16_first_day(s16_case, conditions)
        if day < gap:
            raise ValidationError({"scheduled_for": _s16_gap_message(gap)})
    auction = Auction.objects.create(
        pound=pound,
        kind=kind,
        number=_serial("auc", pound, day.year),
        scheduled_for=scheduled_for,
        place=place or conditions.place,
        conditions=conditions,
        officer=officer,
        deputy=deputy,
        deputation_order=deputation_order,
        s16_case=s16_case,
        created_by=by,
        created_at=at,
    )
    reserve_prices = reserve_prices or {}
    for seq, group in enumerate(lots, start=1):
        lot = Lot.objects.create(
            auction=auction,
            number=seq,
            sequence=seq,
            reserve_price=Decimal(reserve_prices.get(seq, ZERO)),
        )
        for pk in group:
            LotAnimal.objects.create(lot=lot, animal_id=pk)
    section = "s.14" if kind == Auction.Kind.UNCLAIMED else "s.16"
    record_event(
        action=Action.AUCTION_SCHEDULED,
        section=section,
        by=by,
        pound=pound,
        summary=f"{auction.number} on {timezone.localtime(scheduled_for):%d-%m-%Y %H:%M}"
        f" at {auction.place}: {len(lots)} lot(s)",
        data={
            "auction": auction.number,
            "lots": lots,
            "officer": officer.pk,
            "deputy": deputy.pk if deputy else None,
        },
    )
    return auction


# --- Bidders and the s.19 bar ----------------------------------------------------------------


@transaction.atomic
def register_bidder(*, auction, by, name, address, id_kind, id_number, phone, declaration_signed):
    """Register a bidder. Anyone who may be an officer or pound-keeper is blocked (s.19)."""
    auction = Auction.objects.select_for_update().get(pk=auction.pk)
    authorise(by, Permission.RUN_AUCTION, auction.pound)
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
    matches = staff_matches(name=name, phone=phone, id_number=id_number)
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
    )
    bidder.full_clean(exclude=["auction"])
    bidder.save()
    record_event(
        action=Action.AUCTION_BIDDER_BLOCKED if matches else Action.AUCTION_BIDDER_REGISTERED,
        section="s.19",
        by=by,
        pound=auction.pound,
        summary=f"{auction.number}: bidder {number}"
        + (
            f" blocked: may be staff ({', '.join(m['staff'] for m in matches)})"
            if matches
            else " registered"
        ),
        data={"auction": auction.number, "bidder": number, "matches": matches},
    )
    return bidder


@transaction.atomic
def override_block(*, bidder, by, reason):
    """The Magistrate may let a blocked bidder bid, with a reason, after checking he is not staff
    (a namesake, say). Logged."""
    bidder = Bidder.objects.select_for_update().select_related("auction__pound").get(pk=bidder.pk)
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
        summary=f"{bidder.auction.number}: bidder {bidder.number} cleared: {reason}",
        data={"bidder": bidder.pk, "reason": reason, "matches": bidder.matches},
    )
    return bidder


def _assert_may_buy(bidder):
    if not bidder.declaration_signed:
        raise ValidationError(_("This bidder has not signed the declaration (s.19)."))
    if bidder.blocked and bidder.override_by_id is None:
        raise ValidationError(
            _("This bidder is blocked: he may be an officer or pound-keeper (s.19).")
        )
    # Checked again at the hammer: staff records may have changed since registration.
    fresh = staff_matches(name=bidder.name, phone=bidder.phone, id_number=bidder.id_number)
    new = {m["user"] for m in fresh} - {m["user"] for m in bidder.matches}
    if new:
        raise ValidationError(
            _("This bidder now matches a member of staff (s.19): register him again for the check.")
        )


@transaction.atomic
def record_bid(*, lot, bidder, amount, by):
    lot = Lot.objects.select_for_update().select_related("auction__pound").get(pk=lot.pk)
    authorise(by, Permission.RUN_AUCTION, lot.auction.pound)
    if lot.status != Lot.Status.OPEN:
        raise ValidationError(_("This lot is not open for bids."))
    # From the database, not the caller's copy: the s.19 check must see the stored record.
    bidder = Bidder.objects.get(pk=bidder.pk)
    if bidder.auction_id != lot.auction_id:
        raise ValidationError(_("The bidder is registered for another auction."))
    _assert_may_buy(bidder)
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


# --- The hammer -------------------------------------------------------------------------------


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


def _cash(pound, mode):
    kind = AccountKind.POUND_CASH if mode == PaymentMode.CASH else AccountKind.POUND_DIGITAL
    return ledger.account(district=pound.district, pound=pound, kind=kind)


def _district_account(pound, kind):
    return ledger.account(district=pound.district, kind=kind)


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
            _withdraw(locked.get(pk=lot.pk), by, "No longer in the pound")
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
    # Locks in the order the other paths take them: the s.16 case, the animals, then the lots.
    # A claim locks the animals and then withdraws their lots, so a claim racing the hammer
    # waits for it (or it for the claim) instead of deadlocking.
    case = None
    if auction.s16_case_id is not None:
        case = S16Case.objects.select_for_update().get(pk=auction.s16_case_id)
    animals = list(
        Animal.objects.select_for_update(of=("self",)).filter(lotanimal__lot=lot).order_by("pk")
    )
    # With the lot, a s.16 sale locks the case's other open lots, which it closes when covered.
    lots = Lot.objects.filter(pk=lot.pk)
    if case is not None:
        lots = Lot.objects.filter(Q(pk=lot.pk) | Q(auction__s16_case=case, status=Lot.Status.OPEN))
    list(lots.select_for_update(of=("self",)).order_by("pk"))
    lot.refresh_from_db(fields=["status"])
    if lot.status != Lot.Status.OPEN:
        raise ValidationError(
            _("Lot %(n)s is not open: it is %(status)s.")
            % {"n": lot.number, "status": lot.get_status_display()}
        )
    if auction.status != Auction.Status.SCHEDULED:
        raise ValidationError(_("This auction is closed."))
    buyer = Bidder.objects.select_for_update().get(pk=buyer.pk)
    if buyer.auction_id != auction.pk:
        raise ValidationError(_("The buyer is registered for another auction."))
    _assert_may_buy(buyer)
    price, expenses = Decimal(price), Decimal(expenses)
    if price <= 0:
        raise ValidationError({"price": _("Enter the hammer price.")})
    if price < lot.reserve_price:
        raise ValidationError(
            {
                "price": _("The price is below the reserve of %(reserve)s.")
                % {"reserve": inr(lot.reserve_price)}
            }
        )
    if expenses < 0 or expenses > auction.conditions.max_expenses_per_lot:
        raise ValidationError(
            {
                "expenses": _(
                    "The District Magistrate's conditions allow sale expenses of at most "
                    "%(max)s a lot."
                )
                % {"max": inr(auction.conditions.max_expenses_per_lot)}
            }
        )
    if payment_mode != PaymentMode.CASH and not payment_reference.strip():
        raise ValidationError({"payment_reference": _("Give the payment reference.")})
    at = at or timezone.now()
    if any(a.state != AnimalState.IMPOUNDED for a in animals):
        raise _AnimalGone
    if auction.kind == Auction.Kind.UNCLAIMED:
        day = timezone.localtime(at).date()
        for animal in animals:
            notice = (
                Notice.objects.filter(report__animals=animal).first()
                or Notice.objects.filter(report__animals=animal.dam_id).first()
            )
            if notice is None or day < notice.earliest_sale:
                raise ValidationError(
                    _(
                        "This lot cannot lawfully be sold before the eighth day "
                        "after its notice (s.14)."
                    )
                )
    if case is not None:
        if case.status != S16Case.Status.OPEN:
            raise ValidationError(_("The dues are already covered: no more lots are sold (s.16)."))
        # Refused at the hammer too, not only when the auction is scheduled.
        gap = _s16_first_day(case, auction.conditions)
        if timezone.localtime(at).date() < gap:
            raise ValidationError(_s16_gap_message(gap))
        # One lot at a time, in the officer's order: the sale stops when the dues are covered,
        # so which animals are sold depends on it (docs/domain.md decision 7).
        if auction.lots.filter(status=Lot.Status.OPEN, sequence__lt=lot.sequence).exists():
            raise ValidationError(_("A lot is still open."))
    if at > timezone.now() + timedelta(minutes=1):
        raise ValidationError(_("The sale cannot be dated in the future."))
    if at < auction.scheduled_for:
        # The public were told the hour: a hammer before it shuts out the bidders who came.
        raise ValidationError(
            _("The auction was announced for %(when)s: no lot is sold before then.")
            % {"when": timezone.localtime(auction.scheduled_for).strftime("%d-%m-%Y %H:%M IST")}
        )
    number = f"CERT/{lot.auction.number.split('/', 1)[1]}/{lot.number}"
    certificate = _register_document(
        IssuedDocument.Kind.SALE_CERTIFICATE, number, pound, by, "auctions.sale", at
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
    lines = [(_cash(pound, payment_mode), price)]
    if auction.kind == Auction.Kind.UNCLAIMED:
        statement = dues(
            Animal.objects.filter(pk__in=[a.pk for a in animals])
            .select_related("impoundment__pound__district")
            .prefetch_related("custody_events"),
            as_of=at,
        )
        paid_exp, paid_feed, paid_fines, surplus, short = allocate(
            price, fines=statement.fines, feeding=statement.feeding, expenses=expenses
        )
        sale.fines, sale.feeding, sale.expenses, sale.surplus = (
            paid_fines,
            paid_feed,
            paid_exp,
            surplus,
        )
        sale.shortfall = sum(short.values(), ZERO)
        lines += [
            (_district_account(pound, AccountKind.SALE_EXPENSES), -paid_exp),
            (
                ledger.account(district=pound.district, pound=pound, kind=AccountKind.FEEDING_PK),
                -paid_feed,
            ),
            (_district_account(pound, AccountKind.FINES_DUE_DM), -paid_fines),
            (_district_account(pound, AccountKind.DM_SURPLUS_HELD), -surplus),
        ]
        kind, section = TransactionKind.SALE_S14, "s.17"
    else:
        # s.16: the proceeds wait until the owner's account is settled (settle_s16_case).
        lines.append((_district_account(pound, AccountKind.SALE_PROCEEDS_HELD), -price))
        kind, section = TransactionKind.SALE_S16, "s.16"
    sale.full_clean(exclude=["lot", "buyer", "certificate"])
    sale.save()
    _link_document(certificate, sale)
    if auction.kind == Auction.Kind.UNCLAIMED and sale.shortfall:
        Shortfall.objects.create(
            pound=pound,
            sale=sale,
            fines=short["fines"],
            feeding=short["feeding"],
            expenses=short["expenses"],
        )
    for hook in SALE_HOOKS:
        hook(sale)
    lot.status = Lot.Status.SOLD
    lot.save(update_fields=["status"])
    LotAnimal.objects.filter(lot=lot).update(sold=True)
    for animal in animals:
        ensure_transition(animal, AnimalState.SOLD)
        animal.state, animal.custody_ended_at = AnimalState.SOLD, at
        animal.save(update_fields=["state", "custody_ended_at"])
    ledger.post(
        district=pound.district,
        pound=pound,
        kind=kind,
        section=section,
        by=by,
        memo=f"{auction.number} lot {lot.number} sold to {buyer.name} for ₹{price}",
        source=f"auctions.sale:{sale.pk}",
        at=at,
        impoundment_id=animals[0].impoundment_id,
        lines=lines,
    )
    record_event(
        action=Action.AUCTION_SOLD,
        section="s.14" if case is None else "s.16",
        by=by,
        pound=pound,
        impoundment=animals[0].impoundment,
        summary=f"{auction.number} lot {lot.number} "
        f"({', '.join(a.reference for a in animals)}) sold to bidder {buyer.number} "
        f"for ₹{price}",
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
    if case is not None:
        _check_s16_covered(case, by, at)
    return sale


@transaction.atomic
def mark_unsold(*, lot, by, note=""):
    lot = Lot.objects.select_for_update().select_related("auction__pound").get(pk=lot.pk)
    authorise(by, Permission.RUN_AUCTION, lot.auction.pound)
    if lot.status != Lot.Status.OPEN:
        raise ValidationError(_("This lot is not open."))
    lot.status, lot.note = Lot.Status.UNSOLD, note or "No bid, or no fair price"
    lot.save(update_fields=["status", "note"])
    record_event(
        action=Action.AUCTION_UNSOLD,
        section="s.14",
        by=by,
        pound=lot.auction.pound,
        summary=f"{lot.auction.number} lot {lot.number} not sold: {lot.note}",
        data={"lot": lot.pk},
    )
    return lot


@transaction.atomic
def close_auction(*, auction, by):
    auction = Auction.objects.select_for_update().get(pk=auction.pk)
    authorise(by, Permission.RUN_AUCTION, auction.pound)
    if auction.status != Auction.Status.SCHEDULED:
        raise ValidationError(_("This auction is already closed."))
    if auction.lots.filter(status=Lot.Status.OPEN).exists():
        raise ValidationError(_("Every lot must be sold, withdrawn or marked not sold first."))
    auction.status, auction.closed_at = Auction.Status.CLOSED, timezone.now()
    auction.officer_declaration_at = auction.officer_declaration_at or auction.closed_at
    auction.save(update_fields=["status", "closed_at", "officer_declaration_at"])
    record_event(
        action=Action.AUCTION_CLOSED,
        section="s.14",
        by=by,
        pound=auction.pound,
        summary=f"{auction.number} closed",
        data={"auction": auction.number},
    )
    return auction


def withdraw_claimed_lots(animals, by):
    """Called when animals are released: an open lot holding one of them is withdrawn."""
    _withdraw_lots_of(animals, by, "Claimed before the hammer")


def _withdraw_lots_of(animals, by, note):
    lot_ids = set(
        LotAnimal.objects.filter(
            animal__in=[a.pk for a in animals], lot__status=Lot.Status.OPEN
        ).values_list("lot_id", flat=True)
    )
    locked = Lot.objects.select_for_update(of=("self",)).select_related("auction__pound")
    for lot in locked.filter(pk__in=lot_ids).order_by("pk"):
        _withdraw(lot, by, note)


def _withdraw(lot, by, note):
    if lot.status != Lot.Status.OPEN:
        return
    lot.status, lot.note = Lot.Status.WITHDRAWN, note
    lot.save(update_fields=["status", "note"])
    record_event(
        action=Action.AUCTION_WITHDRAWN,
        section="s.14",
        by=by,
        pound=lot.auction.pound,
        summary=f"{lot.auction.number} lot {lot.number} withdrawn: {note.lower()}",
        data={"lot": lot.pk},
    )


# --- s.16: the owner refuses or omits to pay --------------------------------------------------


@transaction.atomic
def open_s16_case(*, entry, animal_ids, by, owner_name, owner_address, refused=True):
    """Record that the owner appeared and refused or omitted to pay (or to deposit)."""
    authorise(by, Permission.RELEASE_ANIMAL, entry.pound)
    animals = list(Animal.objects.select_for_update().filter(pk__in=animal_ids, impoundment=entry))
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
    )
    case.animals.set(animals)
    record_event(
        action=Action.S16_REFUSED,
        section="s.16",
        by=by,
        impoundment=entry,
        summary=f"{owner_name} {'refused' if refused else 'omitted'} to pay for "
        f"{len(animals)} animal(s): as many as necessary to be sold",
        data={"case": case.pk, "animals": [a.reference for a in animals]},
    )
    return case


def s16_position(case, as_of=None):
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


def _check_s16_covered(case, by, at):
    position = s16_position(case, as_of=at)
    if position["covered"]:
        case.status = S16Case.Status.COVERED
        case.save(update_fields=["status"])
        for lot in Lot.objects.filter(auction__s16_case=case, status=Lot.Status.OPEN):
            lot.status, lot.note = Lot.Status.NOT_NEEDED, "Dues covered"
            lot.save(update_fields=["status", "note"])
        record_event(
            action=Action.S16_COVERED,
            section="s.16",
            by=by,
            impoundment=case.impoundment,
            summary=f"Proceeds ₹{position['proceeds']} cover the dues "
            f"₹{position['owed']}: no more animals are sold",
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
    case = S16Case.objects.select_for_update().select_related("pound__district").get(pk=case.pk)
    pound = case.pound
    authorise(by, Permission.RUN_AUCTION, pound)
    at = at or timezone.now()
    remaining = list(
        Animal.objects.select_for_update()
        .filter(s16_cases=case, state=AnimalState.IMPOUNDED)
        .order_by("pk")
    )
    if case.status == S16Case.Status.CLOSED:
        raise ValidationError(_("This account is already settled."))
    if case.status == S16Case.Status.OPEN and remaining:
        raise ValidationError(
            _("The dues are not yet covered: sell the next lot, or all of them, before settling.")
        )
    if Lot.objects.filter(auction__s16_case=case, status=Lot.Status.OPEN).exists():
        raise ValidationError(_("A lot is still open."))
    if acknowledgement == "register_page" and not register_page.strip():
        raise ValidationError({"register_page": _("Give the page of the register signed.")})
    if acknowledgement == "signature" and not signature:
        raise ValidationError({"signature": _("The owner must sign on the screen.")})
    position = s16_position(case, as_of=at)
    paid_exp, paid_feed, paid_fines, balance, short = allocate(
        position["proceeds"],
        fines=position["fines"],
        feeding=position["feeding"],
        expenses=position["expenses"],
    )
    case.fines, case.feeding, case.expenses = (
        position["fines"],
        position["feeding"],
        position["expenses"],
    )
    case.proceeds, case.balance = position["proceeds"], balance
    case.shortfall = sum(short.values(), ZERO)
    case.status, case.closed_at, case.closed_by = S16Case.Status.CLOSED, at, by
    case.balance_mode, case.balance_reference = balance_mode, balance_reference
    case.acknowledgement, case.register_page = acknowledgement, register_page
    if signature:
        case.signature.save("signature.png", signature, save=False)
    number = f"ACC/{pound.code.upper()}/{case.pk:05d}"
    case.account_document = _register_document(
        IssuedDocument.Kind.S16_ACCOUNT, number, pound, by, "auctions.s16case", at
    )
    case.save()
    _link_document(case.account_document, case)
    if position["proceeds"]:
        ledger.post(
            district=pound.district,
            pound=pound,
            kind=TransactionKind.S16_SETTLED,
            by=by,
            section="s.17",
            source=f"auctions.s16case:{case.pk}",
            at=at,
            impoundment_id=case.impoundment_id,
            memo=f"s.16 account {number}: proceeds ₹{position['proceeds']} applied",
            lines=[
                (_district_account(pound, AccountKind.SALE_PROCEEDS_HELD), position["proceeds"]),
                (_district_account(pound, AccountKind.SALE_EXPENSES), -paid_exp),
                (
                    ledger.account(
                        district=pound.district, pound=pound, kind=AccountKind.FEEDING_PK
                    ),
                    -paid_feed,
                ),
                (_district_account(pound, AccountKind.FINES_DUE_DM), -paid_fines),
                (_district_account(pound, AccountKind.OWNER_BALANCES_DUE), -balance),
            ],
        )
    if balance:
        ledger.post(
            district=pound.district,
            pound=pound,
            kind=TransactionKind.S16_BALANCE_PAID,
            by=by,
            section="s.16",
            source=f"auctions.s16case:{case.pk}",
            at=at,
            impoundment_id=case.impoundment_id,
            memo=f"s.16 balance ₹{balance} paid to {case.owner_name}",
            lines=[
                (_district_account(pound, AccountKind.OWNER_BALANCES_DUE), balance),
                (_cash(pound, balance_mode), -balance),
            ],
        )
    if case.shortfall:
        Shortfall.objects.create(
            pound=pound,
            s16_case=case,
            fines=short["fines"],
            feeding=short["feeding"],
            expenses=short["expenses"],
        )
    # The case names the animals it returns before they leave: the database refuses an animal
    # returned under s.16 without its case.
    case.returned_animals.add(*remaining)
    for animal in remaining:
        ensure_transition(animal, AnimalState.RETURNED_S16)
        animal.state, animal.custody_ended_at = AnimalState.RETURNED_S16, at
        animal.save(update_fields=["state", "custody_ended_at"])
    # An animal returned may still stand in a lot of a s.14 auction.
    _withdraw_lots_of(remaining, by, "Returned to the owner (s.16)")
    record_event(
        action=Action.S16_SETTLED,
        section="s.16",
        by=by,
        impoundment=case.impoundment,
        summary=f"{len(remaining)} animal(s) and ₹{balance} returned to "
        f"{case.owner_name} with account {number}",
        data={
            "case": case.pk,
            "fines": case.fines,
            "feeding": case.feeding,
            "expenses": case.expenses,
            "proceeds": case.proceeds,
            "balance": balance,
            "shortfall": case.shortfall,
            "returned": [a.reference for a in remaining],
        },
    )
    return case


# --- The proviso: disposal by the District Magistrate's order --------------------------------


@transaction.atomic
def propose_disposal(*, pound, animal_ids, by, reason, mode, recipient):
    """The office prepares an order under the proviso to s.14 for the Magistrate."""
    authorise(by, Permission.PREPARE_ORDERS, pound)
    animals = list(
        Animal.objects.filter(
            pk__in=animal_ids, impoundment__pound=pound, state=AnimalState.IMPOUNDED
        )
    )
    if not animals or len(animals) != len(set(animal_ids)):
        raise ValidationError({"animals": _("Choose animals in the pound.")})
    # A calf in the pound goes with its dam (docs/domain.md decision 12).
    calves = Animal.objects.calves_of(animals)
    animals += [c for c in calves if c not in animals]
    if not reason.strip():
        raise ValidationError({"reason": _("Say why a fair price is unlikely at auction.")})
    for animal in animals:
        reported = Report.objects.filter(animals=animal).exists() or (
            animal.dam_id and Report.objects.filter(animals=animal.dam_id).exists()
        )
        if not reported:
            raise ValidationError(
                {
                    "animals": _("Animal %(a)s has not been reported as unclaimed (s.14).")
                    % {"a": animal.reference}
                }
            )
    year = _today().year
    order = DisposalOrder.objects.create(
        pound=pound,
        number=_serial("dsp", pound, year),
        reason=reason,
        mode=mode,
        recipient=recipient,
        prepared_by=by,
    )
    order.animals.set(animals)
    record_event(
        action=Action.DISPOSAL_PROPOSED,
        section="s.14",
        by=by,
        pound=pound,
        summary=f"{order.number}: {len(animals)} animal(s) to {recipient} proposed",
        data={"order": order.number, "animals": [a.reference for a in animals]},
    )
    return order


@transaction.atomic
def decide_disposal(*, order, by, approve, note=""):
    order = DisposalOrder.objects.select_for_update().select_related("pound").get(pk=order.pk)
    if not has_permission(by, Permission.APPROVE, order.pound):
        raise PermissionDenied(_("Only the District Magistrate approves a disposal order."))
    if order.status != DisposalOrder.Status.PROPOSED:
        raise ValidationError(_("This order has already been decided."))
    now = timezone.now()
    order.decided_by, order.decided_at, order.decision_note = by, now, note
    if approve:
        # The order is approved before the animals leave: the database refuses an animal
        # disposed of without an approved order naming it.
        order.status = DisposalOrder.Status.APPROVED
        order.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
        animals = list(Animal.objects.select_for_update().filter(disposal_orders=order))
        for animal in animals:
            if animal.state != AnimalState.IMPOUNDED:
                raise ValidationError(
                    _("Animal %(a)s is no longer in the pound.") % {"a": animal.reference}
                )
            ensure_transition(animal, AnimalState.DISPOSED)
            animal.state, animal.custody_ended_at = AnimalState.DISPOSED, now
            animal.save(update_fields=["state", "custody_ended_at"])
        Lot.objects.filter(status=Lot.Status.OPEN, lotanimal__animal__in=animals).update(
            status=Lot.Status.WITHDRAWN, note="Disposed of by the DM's order"
        )
    else:
        order.status = DisposalOrder.Status.REJECTED
        order.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
    record_event(
        action=Action(f"disposal.{order.status}"),
        section="s.14",
        by=by,
        pound=order.pound,
        summary=f"{order.number} {order.get_status_display()}",
        data={"order": order.number, "note": note},
    )
    return order
