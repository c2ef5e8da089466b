"""The proviso to s.14: cattle unlikely to fetch a fair price at auction are disposed of as the
District Magistrate thinks fit. His office proposes the order; only the Magistrate decides."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import todos
from accounts.roles import Permission
from accounts.scoping import authorise, has_permission
from impounding.models import Animal, AnimalState
from impounding.services.custody import end_custody
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import THE_BUYER, Message, in_both

from ..actions import Action
from ..models import DisposalOrder, DisposalTerms, Gaushala, Lot, Report
from .common import serial, today
from .disposal_terms import check_buyer, check_terms, settle_disposal
from .routes import check_may_dispose, declared_sale


@transaction.atomic
def propose_disposal(
    *,
    pound,
    animal_ids,
    by,
    reason,
    mode,
    recipient,
    terms=None,
    idempotency_key=None,
    handover=False,
):
    """The office prepares an order under the proviso to s.14 for the Magistrate, with the
    terms of its kind (`disposal_terms.check_terms`), of a kind the rule pack each animal's
    entry pinned allows for its species (`routes.check_may_dispose`). `handover`: a handover to
    a body of the district's register (`gaushala.propose_handover`); where the register has a
    gaushala, a transfer to a gaushala is made that way only. Once for each `idempotency_key`:
    the same form sent again returns the order it prepared."""
    authorise(by, Permission.PREPARE_ORDERS, pound)
    type(pound).objects.select_for_update(of=("self",)).get(pk=pound.pk)  # one sending at a time
    done = made_with_key(DisposalOrder, idempotency_key, pound_id=pound.pk, prepared_by_id=by.pk)
    if done is not None:
        return done
    animals = list(
        Animal.objects.in_custody()
        .filter(pk__in=animal_ids, impoundment__pound=pound)
        .select_related("impoundment")
    )
    if not animals or len(animals) != len(set(animal_ids)):
        raise ValidationError({"animals": _("Choose animals in the pound.")})
    # A calf in the pound goes with its dam (docs/domain.md decision 12).
    calves = Animal.objects.calves_of(animals)
    animals += [c for c in calves if c not in animals]
    if not reason.strip():
        raise ValidationError({"reason": _("Say why a fair price is unlikely at auction.")})
    check_may_dispose(animals, mode)
    if mode == DisposalOrder.Mode.GAUSHALA and not handover:
        _check_not_in_register(pound)
    terms = check_terms(
        mode=mode, recipient=recipient, terms=terms, declared=declared_sale(animals, mode)
    )
    private = mode == DisposalOrder.Mode.PRIVATE_SALE
    if private:
        check_buyer(recipient=recipient, terms=terms)  # s.19, as for a bidder
    _check_reported(animals)
    order = DisposalOrder.objects.create(
        pound=pound,
        number=serial("dsp", pound, today(pound).year),
        reason=reason,
        mode=mode,
        recipient=recipient,
        prepared_by=by,
        idempotency_key=idempotency_key,
    )
    order.animals.set(animals)
    DisposalTerms.objects.create(order=order, **terms)
    record_event(
        action=Action.DISPOSAL_PROPOSED,
        section="s.14",
        by=by,
        pound=pound,
        summary=Message(
            gettext_noop("%(number)s: %(count)s animal(s) to %(recipient)s proposed"),
            number=order.number,
            count=len(animals),
            # A buyer by private treaty is a member of the public: his name is kept apart from
            # the link, for the retention rule to erase (ADR 0010); a body's name is not.
            recipient=THE_BUYER if private else recipient,
        ),
        personal={"recipient": recipient} if private else None,
        data={
            "order": order.number,
            "mode": mode,
            "animals": [a.reference for a in animals],
            "price": terms["price"],
        },
    )
    return order


def _check_reported(animals):
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


def _check_not_in_register(pound):
    """A transfer to a gaushala typed in by hand is refused where the district's register has a
    gaushala: the handover order names the body, minds its capacity and settles the dues
    (ADR 0070)."""
    if Gaushala.objects.filter(
        district_id=pound.district_id, active=True, kind=Gaushala.Kind.GAUSHALA
    ).exists():
        raise ValidationError(
            {
                "mode": _(
                    "This district keeps a register of gaushalas: hand the animals to one of "
                    "them by a handover order (Gaushalas and welfare bodies, then Prepare a "
                    "handover order)."
                )
            }
        )


def _check_route(order, animals):
    """At the decision, again: the rule pack each entry pinned still governs the order, and a
    declared sale carries the buyer's declaration and permit number."""
    check_may_dispose(animals, order.mode)
    if declared_sale(animals, order.mode):
        terms = DisposalTerms.objects.filter(order=order).first()
        if terms is None or not (terms.use_declared and terms.permit_number):
            raise ValidationError(
                _(
                    "The State's law allows this sale only to a buyer who declares the use and "
                    "gives his permit number: the order does not record them."
                )
            )


@transaction.atomic
def decide_disposal(*, order, by, approve, note=""):
    order = (
        DisposalOrder.objects.select_for_update(of=("self",))
        .select_related("pound", "prepared_by")
        .get(pk=order.pk)
    )
    if not has_permission(by, Permission.APPROVE, order.pound):
        raise PermissionDenied(_("Only the District Magistrate approves a disposal order."))
    if order.status != DisposalOrder.Status.PROPOSED:
        raise ValidationError(_("This order has already been decided."))
    # Maker-checker: the Magistrate does not approve an order he prepared himself.
    order.check_decider(by)
    now = timezone.now()
    order.decided_by, order.decided_at, order.decision_note = by, now, note
    if approve:
        # The order is approved before the animals leave: the database refuses an animal
        # disposed of without an approved order naming it.
        order.status = DisposalOrder.Status.APPROVED
        order.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
        animals = list(
            Animal.objects.select_for_update(of=("self",))
            .filter(disposal_orders=order)
            .select_related("impoundment")
        )
        _check_route(order, animals)
        for animal in animals:
            if animal.state != AnimalState.IMPOUNDED:
                raise ValidationError(
                    _("Animal %(a)s is no longer in the pound.") % {"a": animal.reference}
                )
        # Its money, before the animals leave: the dues run to the moment of the order.
        terms = settle_disposal(order=order, animals=animals, by=by, at=now)
        end_custody(animals, state=AnimalState.DISPOSED, at=now)
        Lot.objects.open().filter(lotanimal__animal__in=animals).leave_open(
            Lot.Status.WITHDRAWN, note="Disposed of by the DM's order"
        )
    else:
        terms = None
        order.status = DisposalOrder.Status.REJECTED
        order.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
    _record_decision(order, by=by, note=note, terms=terms)
    todos.close(f"disposal_decide:{order.pk}")
    return order


def _record_decision(order, *, by, note, terms):
    money = {}
    if terms is not None:
        money = {
            "mode": order.mode,
            "price": terms.price,
            "fines_due": terms.fines_due,
            "feeding_due": terms.feeding_due,
            "fines": terms.fines,
            "feeding": terms.feeding,
            "surplus": terms.surplus,
            "shortfall": terms.shortfall,
        }
    record_event(
        action=Action(f"disposal.{order.status}"),
        section="s.14",
        by=by,
        pound=order.pound,
        summary=Message(
            gettext_noop("%(number)s %(status)s by %(by)s, prepared by %(prepared_by)s"),
            number=order.number,
            status=in_both(order.get_status_display),
            by=by.username,
            prepared_by=order.prepared_by.username,
        ),
        data={
            "order": order.number,
            "note": note,
            "prepared_by": order.prepared_by_id,
            "decided_by": by.pk,
            **money,
        },
    )
