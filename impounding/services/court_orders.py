"""Releases by order of a court (s.19, s.22), checked before the animals leave.

s.19: nothing impounded is released but as the Act provides or by a court's order. The
pound-keeper records the order with its scan (`record_court_order`); the animals it names stay in
the pound, flagged as awaiting the check. Someone else - the District Magistrate's office, the
clerk or the Magistrate of the district, never whoever recorded it - checks the order against the
court's own record (`check_court_order`) and either confirms it, and only then are the animals
released, or rejects it with a reason, and they stay (docs/decisions/0056).
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import todos
from accounts.roles import Permission, Role
from accounts.scoping import authorise
from auctions import services as sales
from kernel import clock
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message
from kernel.uploads import clean_scan

from ..actions import Action
from ..dues import dues
from ..models import AnimalState, CourtOrder, CourtOrderCheck, Impoundment
from .custody import end_custody
from .releases import lock_animals

# The to-dos an order opens: the office's check, and the keeper's wait (then his rejection).
TO_CHECK = "court_order_review:"
WAITING = "court_order_waiting:"
REJECTED = "court_order_rejected:"


def _section(order):
    return "s.22" if order.kind == CourtOrder.Kind.S22 else "s.19"


def _ensure_not_awaiting_another(animals):
    """An animal is named in one order awaiting its check at a time."""
    taken = CourtOrder.objects.filter(
        status=CourtOrder.Status.AWAITING, animals_named__in=animals
    ).first()
    if taken is not None:
        raise ValidationError(
            {
                "animals": _("An animal chosen is named in order %(order)s, awaiting its check.")
                % {"order": taken}
            }
        )


def _open_todos(order, entry):
    pound = entry.pound
    title = Message(
        gettext_noop("Check the court order %(case)s recorded at %(pound)s (s.19)"),
        case=order.case_number,
        pound=pound.name,
    )
    review = reverse("office:court_order_review", args=[order.pk])
    todos.upsert(
        key=f"{TO_CHECK}{order.pk}",
        role=Role.DM_CLERK,
        district=pound.district,
        pound=pound,
        title=title,
        url=review,
        section="s.19",
    )
    todos.upsert(
        key=f"{WAITING}{order.pk}",
        role=Role.POUND_KEEPER,
        district=pound.district,
        pound=pound,
        title=Message(
            gettext_noop("Court order %(case)s awaits the office's check: the animals stay"),
            case=order.case_number,
        ),
        url=entry.get_absolute_url(),
        section="s.19",
        mail=False,
    )


@transaction.atomic
def record_court_order(
    *,
    entry,
    animal_ids,
    by,
    kind,
    court,
    case_number,
    order_date,
    scan,
    order_text="",
    conditions="",
    dues_payable_by="",
    complaint=None,
    idempotency_key=None,
):
    """The keeper records a court's order releasing cattle, with its scan. Nothing leaves the
    pound: the order awaits its check. Once for each `idempotency_key`."""
    authorise(by, Permission.RELEASE_ANIMAL, entry.pound)
    entry = Impoundment.objects.select_for_update(of=("self",)).get(pk=entry.pk)
    done = made_with_key(CourtOrder, idempotency_key, impoundment_id=entry.pk, recorded_by_id=by.pk)
    if done is not None:
        return done
    # Checked, and an image written again without its EXIF data (the phone, the place).
    stored_scan = clean_scan(scan)
    if order_date > clock.today(entry.pound):
        raise ValidationError({"order_date": _("The order cannot be dated in the future.")})
    if complaint is not None and complaint.impoundment_id != entry.pk:
        raise ValidationError(_("That complaint belongs to another register entry."))
    if kind == CourtOrder.Kind.S22 and complaint is None:
        complaint = entry.complaints.filter(outcome="upheld").order_by("-decided_on").first()
    animals = lock_animals(entry, animal_ids)
    _ensure_not_awaiting_another(animals)
    statement = dues(animals, as_of=clock.now(entry.pound))
    order = CourtOrder(
        impoundment=entry,
        complaint=complaint,
        kind=kind,
        court=court,
        case_number=case_number,
        order_date=order_date,
        order_text=order_text,
        conditions=conditions,
        unpaid_fines=statement.fines,
        unpaid_feeding=statement.feeding,
        dues_payable_by=dues_payable_by,
        recorded_by=by,
        idempotency_key=idempotency_key,
    )
    order.scan.save(stored_scan.name, stored_scan, save=False)
    order.full_clean(exclude=["scan"])
    order.save()
    order.animals_named.set(animals)
    record_event(
        action=Action.COURT_ORDER_RECORDED,
        section=_section(order),
        summary=Message(
            gettext_noop(
                "Order of %(court)s, case %(case)s, recorded for %(count)s animal(s): "
                "they stay until it is checked"
            ),
            count=len(animals),
            court=court,
            case=case_number,
        ),
        by=by,
        impoundment=entry,
        data={
            "order": order.pk,
            "animals": [a.reference for a in animals],
            "court": court,
            "case": case_number,
            "order_date": order_date,
            "order_text": order_text,
        },
    )
    _open_todos(order, entry)
    return order


def _release(order, by, now):
    """Confirmed: the named animals leave the pound, the dues left unpaid counted to now."""
    named = list(order.animals_named.values_list("pk", flat=True))
    animals = lock_animals(order.impoundment, named)
    statement = dues(animals, as_of=now)
    order.unpaid_fines, order.unpaid_feeding = statement.fines, statement.feeding
    order.status = CourtOrder.Status.RELEASED
    order.save(update_fields=["unpaid_fines", "unpaid_feeding", "status"])
    end_custody(animals, state=AnimalState.RELEASED_BY_ORDER, at=now, court_order=order)
    # A lot still open for one of these animals is withdrawn: claimed before the hammer.
    sales.withdraw_claimed_lots(animals, by=by)
    return animals


def _lock_order(order, by):
    order = (
        CourtOrder.objects.select_for_update(of=("self",))
        .select_related("impoundment__pound__district")
        .get(pk=order.pk)
    )
    authorise(
        by,
        Permission.PREPARE_ORDERS,
        order.impoundment.pound,
        _("The District Magistrate's office checks court orders."),
    )
    order.check_decider(by)
    return order


def _refuse_unless_open(order, outcome):
    if order.status == CourtOrder.Status.AWAITING:
        return
    if order.status == CourtOrder.Status.RELEASED and order.reviewed_at is None:
        # Released before the check was required: the check is recorded, it cannot undo it.
        if outcome == CourtOrderCheck.Outcome.REJECTED:
            raise ValidationError(
                {"outcome": _("These animals were released before the check was required.")}
            )
        return
    raise ValidationError(_("This order has already been checked."))


def _tell_the_keeper(order, reason):
    entry, pound = order.impoundment, order.impoundment.pound
    todos.upsert(
        key=f"{REJECTED}{order.pk}",
        role=Role.POUND_KEEPER,
        district=pound.district,
        pound=pound,
        title=Message(
            gettext_noop("Court order %(case)s rejected on the check: %(reason)s"),
            case=order.case_number,
            reason=reason[:150],
        ),
        url=entry.get_absolute_url(),
        section="s.19",
    )


@transaction.atomic
def check_court_order(*, order, by, outcome, how, reference, reason="", idempotency_key=None):
    """The office checks a recorded order against the court's record: `outcome` confirmed
    releases the animals it names, rejected (with a `reason`) leaves them in the pound and tells
    the keeper. Never by whoever recorded it. Once for each `idempotency_key`."""
    order = _lock_order(order, by)
    if made_with_key(CourtOrderCheck, idempotency_key, order_id=order.pk, checked_by_id=by.pk):
        return order
    _refuse_unless_open(order, outcome)
    reason = reason.strip()
    if outcome == CourtOrderCheck.Outcome.REJECTED and not reason:
        raise ValidationError({"reason": _("Say why the order is rejected.")})
    now = timezone.now()
    check = CourtOrderCheck(
        order=order,
        outcome=outcome,
        how=how,
        reference=reference.strip(),
        reason=reason,
        checked_by=by,
        checked_at=now,
        idempotency_key=idempotency_key,
    )
    check.full_clean(exclude=["order"])
    check.save()
    already_released = order.status == CourtOrder.Status.RELEASED
    order.reviewed_by, order.reviewed_at = by, now
    order.review_note = (reason or check.reference)[:300]
    animals = []
    if outcome == CourtOrderCheck.Outcome.CONFIRMED and not already_released:
        animals = _release(order, by, now)
    elif outcome == CourtOrderCheck.Outcome.REJECTED:
        order.status = CourtOrder.Status.REJECTED
    order.save(update_fields=["reviewed_by", "reviewed_at", "review_note", "status"])
    _record_check(order, check, animals, already_released)
    todos.close(f"{TO_CHECK}{order.pk}")
    todos.close(f"{WAITING}{order.pk}")
    if order.status == CourtOrder.Status.REJECTED:
        _tell_the_keeper(order, reason)
    return order


def _record_check(order, check, animals, already_released):
    data = {
        "order": order.pk,
        "court": order.court,
        "case": order.case_number,
        "order_date": order.order_date,
        "recorded_by": order.recorded_by_id,
        "how": check.how,
        "reference": check.reference,
    }
    common = {"section": _section(order), "by": check.checked_by, "impoundment": order.impoundment}
    if check.outcome == CourtOrderCheck.Outcome.REJECTED:
        record_event(
            action=Action.COURT_ORDER_REJECTED,
            summary=Message(
                gettext_noop("Court order %(case)s rejected on the check: %(reason)s"),
                case=order.case_number,
                reason=check.reason,
            ),
            data=data | {"reason": check.reason},
            **common,
        )
    elif already_released:
        record_event(
            action=Action.COURT_ORDER_CHECKED,
            summary=Message(
                gettext_noop("Court order %(case)s checked against the court's record"),
                case=order.case_number,
            ),
            data=data,
            **common,
        )
    else:
        record_event(
            action=Action.RELEASE_COURT_ORDER,
            summary=Message(
                gettext_noop(
                    "%(count)s animal(s) released by order of %(court)s, case %(case)s, "
                    "checked against the court's record"
                ),
                count=len(animals),
                court=order.court,
                case=order.case_number,
            ),
            data=data
            | {
                "animals": [a.reference for a in animals],
                "unpaid_fines": order.unpaid_fines,
                "unpaid_feeding": order.unpaid_feeding,
                "payable_by": order.dues_payable_by,
            },
            **common,
        )
