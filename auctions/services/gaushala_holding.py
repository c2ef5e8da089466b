"""Who holds a handed-over animal, and for how many days (ADR 0070, "Deaths and transfers").

A body holds an animal from the day of the Magistrate's approval of its handover (or the day it
was transferred in) to the day it died or was transferred out. The DM's office records the
death, as the body reported it, or the transfer to another body of the district's register, as
the authority ordered it; the receiving body then holds the animal and may itself report its
death. A body's capacity counts only the animals it still holds, and its monthly upkeep claim
may not pass the animal-days it actually held them."""

import calendar
from datetime import date, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.roles import Permission
from accounts.scoping import authorise
from impounding.models import Animal
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message
from rulepacks import services as rulepacks
from rulepacks.schema import Route

from ..actions import Action
from ..models import HOLDING_MOVES, MOVED_IN, DisposalOrder, Gaushala, HoldingEnd
from . import gaushala_recovery as recovery
from .common import today

HandedAnimal = DisposalOrder.animals.through
BASED = (
    HoldingEnd.Kind.ESCAPED,
    HoldingEnd.Kind.RETURNED,
    HoldingEnd.Kind.RECAPTURED,
    HoldingEnd.Kind.FOUND_DEAD,
)
DEATHS = (HoldingEnd.Kind.DIED, HoldingEnd.Kind.FOUND_DEAD)  # the ends that keep a cause
# The ends after which no upkeep was paid: a recapture begins a holding again, and an escaped
# animal found dead was not held since its escape (the escape flagged any over-payment).
UNPAID_AFTER = (HoldingEnd.Kind.RECAPTURED, HoldingEnd.Kind.FOUND_DEAD)


def month_bounds(month):
    first = month.replace(day=1)
    last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
    return first, last


def _handover_ended():
    """The end of the holding a handover began (its animal at the body it was handed to), for a
    subquery on a handed-animal row."""
    return HoldingEnd.objects.filter(
        animal_id=OuterRef("animal_id"),
        handover_id=OuterRef("disposalorder__handover__id"),
        began_by__isnull=True,
    )


def _transfer_ended():
    """The end of the holding a transfer in began, for a subquery on the transfer's row: a
    holding is named by what began it, so an animal moved back on the day it left (or the day
    it was handed over) starts a holding of its own."""
    return HoldingEnd.objects.filter(began_by=OuterRef("pk"))


def held_by(body, *, pending=False):
    """Head of cattle `body` holds: handed to it by approved orders (and, with `pending`, by
    those awaiting the Magistrate's approval) or transferred in, less those dead or moved on."""
    statuses = [DisposalOrder.Status.APPROVED]
    if pending:
        statuses.append(DisposalOrder.Status.PROPOSED)
    handed = (
        HandedAnimal.objects.filter(
            disposalorder__handover__gaushala=body, disposalorder__status__in=statuses
        )
        .exclude(Exists(_handover_ended()))
        .count()
    )
    moved_in = (
        HoldingEnd.objects.filter(to_gaushala=body).exclude(Exists(_transfer_ended())).count()
    )
    return handed + moved_in


def animal_days(body, month):
    """The animal-days of `month` the body held its cattle: each animal from the day it was
    handed over or transferred in to the day before it died or was transferred out (or the
    month's last day). Two grouped queries."""
    first, last = month_bounds(month)
    handed = (
        HandedAnimal.objects.filter(
            disposalorder__handover__gaushala=body,
            disposalorder__status=DisposalOrder.Status.APPROVED,
            disposalorder__handover__received_on__lte=last,
        )
        .values(
            start=F("disposalorder__handover__received_on"),
            end=Subquery(_handover_ended().values("on")[:1]),
        )
        .annotate(n=Count("pk"))
    )
    moved_in = (
        HoldingEnd.objects.filter(to_gaushala=body, on__lte=last)
        .values(start=F("on"), end=Subquery(_transfer_ended().values("on")[:1]))
        .annotate(n=Count("pk"))
    )
    total = 0
    for row in [*handed, *moved_in]:
        start = max(row["start"], first)
        stop = last if row["end"] is None else min(row["end"] - timedelta(days=1), last)
        total += max(0, (stop - start).days + 1) * row["n"]
    return total


def standing(handover, animal_id):
    """(the animal's state at the bodies, the body that holds or last held it, the day that
    holding began, the last end: None before any). The state is "held" or the kind of the
    last end that left it not held (`HOLDING_MOVES`); the ends are few (one per holding), each
    naming the one before it."""
    state, body_id, since, last = "held", handover.gaushala_id, handover.received_on, None
    ends = {
        end.began_by_id: end
        for end in HoldingEnd.objects.filter(handover=handover, animal_id=animal_id)
    }
    while (end := ends.get(last.pk if last else None)) is not None:
        last = end
        if end.kind in MOVED_IN:
            state, body_id, since = "held", end.to_gaushala_id, end.on
        else:
            state, since = end.kind, end.on
    return state, body_id, since, last


def holding_of(handover, animal_id):
    """(the body holding the animal now, the day it began, the end that began it: None for the
    handover) or None when no body holds it (it died, escaped or went back to its owner)."""
    state, body_id, since, last = standing(handover, animal_id)
    return (body_id, since, last) if state == "held" else None


@transaction.atomic
def record_end(
    *,
    handover,
    animal_id,
    kind,
    on,
    reference,
    by,
    cause="",
    to_gaushala_id=None,
    basis="",
    idempotency_key=None,
):
    """The office records what became of an animal at the bodies: its death, its transfer to
    another body of the district's register (whose capacity is checked under its row lock), its
    escape, its return to the owner, or after an escape its recapture or its being found dead
    (no upkeep follows: it stopped at the escape); only the moves
    `HOLDING_MOVES` allows from the animal's state."""
    order = handover.order
    authorise(by, Permission.PREPARE_ORDERS, order.pound)
    animal = (
        Animal.objects.select_for_update(of=("self",))
        .filter(pk=animal_id, disposal_orders=order)
        .select_related("impoundment__pound__district")
        .first()
    )
    done = made_with_key(HoldingEnd, idempotency_key, recorded_by_id=by.pk)
    if done is not None:
        return done
    if animal is None or order.status != DisposalOrder.Status.APPROVED:
        raise ValidationError(_("Only an animal of an approved handover is recorded here."))
    state, body_id, since, last = standing(handover, animal.pk)
    if kind not in HOLDING_MOVES.get(state, set()):
        raise ValidationError({"kind": refusal(state)})
    body = Gaushala.objects.get(pk=body_id)
    errors = _check_end(kind, on, since, reference, cause, basis)
    target = None
    if kind == HoldingEnd.Kind.TRANSFERRED:
        target = _receiving_body(body, to_gaushala_id, errors)
    elif kind == HoldingEnd.Kind.RECAPTURED:
        target = _room_at(body.district_id, body.pk, errors)
    if errors:
        raise ValidationError(errors)
    end = HoldingEnd(
        handover=handover,
        animal=animal,
        gaushala=body,
        since=since,
        began_by=last,
        kind=kind,
        on=on,
        cause=cause.strip() if kind in DEATHS else "",
        reference=reference.strip(),
        to_gaushala=target,
        recorded_by=by,
        idempotency_key=idempotency_key,
    )
    if kind in BASED:
        end.basis, end.basis_note, end.rule_pack = legal_basis(kind, animal, body, basis)
    end.save()
    _record(end, animal=animal, by=by)
    if kind not in UNPAID_AFTER:  # a month already claimed paid for days after it
        recovery.flag_overpayments(end, by=by)
    return end


def refusal(state):
    """Why no move but the allowed ones is recorded from `state`."""
    return {
        "held": _("A body holds this animal: record its death, transfer, escape or return."),
        HoldingEnd.Kind.ESCAPED: _(
            "This animal escaped: only its recapture, or that it was found dead, is recorded now."
        ),
        HoldingEnd.Kind.DIED: _("This animal's death is already recorded."),
        HoldingEnd.Kind.RETURNED: _("This animal has gone back to its owner."),
        HoldingEnd.Kind.FOUND_DEAD: _("This animal was found dead after its escape."),
    }[state]


def legal_basis(kind, animal, body, given):
    """(basis, note, pack) of an escape, a return, a recapture or a finding dead: for a return,
    the court's order or the provision the office names; else the entry's pack's citation of the
    gaushala route for the animal's species, else the body's agreement, else a note that none is
    cited.
    No section is supplied where the pack gives none."""
    pinned = rulepacks.pack_of(animal.impoundment.rule_pack_id)
    pack = f"{pinned.code} {pinned.version}"[:40]
    if kind == HoldingEnd.Kind.RETURNED:
        return given.strip()[:250], "", pack
    for rule in pinned.rules.disposal:
        if Route.GAUSHALA in rule.routes and animal.species in rule.species:
            cite = rule.cite
            return f"{cite.instrument} {cite.section or ''}".strip()[:250], "", pack
    if body.rate_authority:
        return body.rate_authority[:250], gettext_noop("the body's agreement"), pack
    return (
        "",
        gettext_noop("the rule pack cites no rule for it and the body has no agreement"),
        pack,
    )


def _check_end(kind, on, since, reference, cause, basis):
    errors = {}
    if kind not in HoldingEnd.Kind.values:
        errors["kind"] = _("Say what happened to the animal.")
    if on is None or on > today():
        errors["on"] = _("The date may not be in the future.")
    elif on < since:
        errors["on"] = _(
            "The body has held this animal since %(since)s: the date may not be before it."
        ) % {"since": since.strftime("%d-%m-%Y")}
    if not (reference or "").strip():
        errors["reference"] = _("Give the body's letter or the order's reference.")
    if kind == HoldingEnd.Kind.DIED and not (cause or "").strip():
        errors["cause"] = _("Give the cause of death as the body reported it.")
    if kind == HoldingEnd.Kind.RETURNED and not (basis or "").strip():
        errors["basis"] = _(
            "Name the court's order or the provision of the Act it is released under."
        )
    return errors


def _receiving_body(body, to_gaushala_id, errors):
    """The body of the same district the animal goes to, locked, with room for it."""
    return _room_at(body.district_id, to_gaushala_id, errors, leaving=body.pk)


def _room_at(district_id, body_id, errors, *, leaving=None):
    """The active body `body_id` of the district, locked, if it has room for one more head."""
    target = (
        Gaushala.objects.select_for_update(of=("self",))
        .filter(pk=body_id, district_id=district_id, active=True)
        .exclude(pk=leaving)
        .first()
    )
    if target is None:
        errors["to_gaushala"] = _("Choose another body from the district's register.")
    elif held_by(target, pending=True) + 1 > target.capacity:
        errors["to_gaushala"] = _(
            "%(name)s has room for %(capacity)s head of cattle and holds them all."
        ) % {"name": target.name, "capacity": target.capacity}
    return target


SUMMARIES = {
    HoldingEnd.Kind.DIED: (
        Action.GAUSHALA_ANIMAL_DIED,
        gettext_noop("Animal %(number)s of %(entry)s died at %(body)s on %(on)s (%(reference)s)"),
    ),
    HoldingEnd.Kind.TRANSFERRED: (
        Action.GAUSHALA_ANIMAL_TRANSFERRED,
        gettext_noop(
            "Animal %(number)s of %(entry)s moved from %(body)s to %(to)s on %(on)s (%(reference)s)"
        ),
    ),
    HoldingEnd.Kind.ESCAPED: (
        Action.GAUSHALA_ANIMAL_ESCAPED,
        gettext_noop(
            "Animal %(number)s of %(entry)s escaped from %(body)s on %(on)s (%(reference)s)"
        ),
    ),
    HoldingEnd.Kind.RETURNED: (
        Action.GAUSHALA_ANIMAL_RETURNED,
        gettext_noop(
            "Animal %(number)s of %(entry)s went back to its owner from %(body)s on %(on)s "
            "(%(reference)s)"
        ),
    ),
    HoldingEnd.Kind.FOUND_DEAD: (
        Action.GAUSHALA_ANIMAL_FOUND_DEAD,
        gettext_noop(
            "Animal %(number)s of %(entry)s, escaped from %(body)s, found dead on %(on)s "
            "(%(reference)s)"
        ),
    ),
    HoldingEnd.Kind.RECAPTURED: (
        Action.GAUSHALA_ANIMAL_RECAPTURED,
        gettext_noop(
            "Animal %(number)s of %(entry)s recaptured by %(to)s on %(on)s (%(reference)s)"
        ),
    ),
}


def _record(end, *, animal, by):
    action, text = SUMMARIES[end.kind]
    record_event(
        action=Action(action),  # a member of the kind's table above
        section="s.14",
        by=by,
        animal=animal,
        summary=Message(
            text,
            number=animal.number,
            entry=animal.impoundment.register_number,
            body=end.gaushala.name,
            to=end.to_gaushala.name if end.to_gaushala else "",
            on=end.on.strftime("%d-%m-%Y"),
            reference=end.reference,
        ),
        data={
            "handover": end.handover_id,
            "gaushala": end.gaushala_id,
            "since": end.since,
            "kind": end.kind,
            "on": end.on,
            "cause": end.cause,
            "reference": end.reference,
            "to_gaushala": end.to_gaushala_id,
            "basis": end.basis,
            "basis_note": end.basis_note,
            "rule_pack": end.rule_pack,
        },
    )


def _cursor(after):
    """The (day, animal id) an `after` cursor "YYYY-MM-DD|id" names, or None for the first page."""
    day, _, animal = (after or "").partition("|")
    try:
        return date.fromisoformat(day), int(animal)
    except ValueError:
        return None


def _later(since, animal, cursor):
    """Rows after the cursor in (since, animal) order."""
    if cursor is None:
        return Q()
    return Q(**{f"{since}__gt": cursor[0]}) | Q(**{since: cursor[0], f"{animal}__gt": cursor[1]})


def animals_held(bodies, *, after=None, size=25):
    """One page of [(animal, body's name, since)] the bodies hold now, oldest first, and the next
    page's cursor (None on the last page): keyset pages on (since, animal), four queries however
    many the bodies hold and however deep the page."""
    cursor = _cursor(after)
    handed = (
        HandedAnimal.objects.filter(
            _later("disposalorder__handover__received_on", "animal_id", cursor),
            disposalorder__handover__gaushala__in=bodies,
            disposalorder__status=DisposalOrder.Status.APPROVED,
        )
        .exclude(Exists(_handover_ended()))
        .order_by("disposalorder__handover__received_on", "animal_id")
        .values_list(
            "animal_id",
            "disposalorder__handover__gaushala_id",
            "disposalorder__handover__received_on",
        )[: size + 1]
    )
    moved_in = (
        HoldingEnd.objects.filter(_later("on", "animal_id", cursor), to_gaushala__in=bodies)
        .exclude(Exists(_transfer_ended()))
        .order_by("on", "animal_id")
        .values_list("animal_id", "to_gaushala_id", "on")[: size + 1]
    )
    held = sorted([*handed, *moved_in], key=lambda row: (row[2], row[0]))[: size + 1]
    next_cursor = None
    if len(held) > size:
        held = held[:size]
        next_cursor = f"{held[-1][2]}|{held[-1][0]}"
    animals = Animal.objects.select_related("impoundment").in_bulk([row[0] for row in held])
    names = dict(Gaushala.objects.filter(pk__in=bodies).values_list("pk", "name"))
    return [(animals[a], names.get(b or 0, ""), since) for a, b, since in held], next_cursor


def animals_escaped(bodies):
    """The escapes from `bodies` not yet followed by a recapture, oldest first (one query)."""
    return (
        HoldingEnd.objects.filter(
            gaushala__in=bodies, kind=HoldingEnd.Kind.ESCAPED, next_end__isnull=True
        )
        .select_related("animal__impoundment", "gaushala")
        .order_by("on", "id")
    )


def held_count():
    """An annotation of a Gaushala queryset: the head of cattle each body holds now (approved
    handovers and transfers in, less deaths and transfers out), in the list's one query."""
    handed = (
        HandedAnimal.objects.filter(
            disposalorder__handover__gaushala=OuterRef("pk"),
            disposalorder__status=DisposalOrder.Status.APPROVED,
        )
        .exclude(Exists(_handover_ended()))
        .order_by()
        .values("disposalorder__handover__gaushala")
        .annotate(c=Count("pk"))
    )
    handed_count = handed.values("c")  # type: ignore[misc]  # the plugin misses `c` here
    moved_in = (
        HoldingEnd.objects.filter(to_gaushala=OuterRef("pk"))
        .exclude(Exists(_transfer_ended()))
        .order_by()
        .values("to_gaushala")
        .annotate(c=Count("pk"))
        .values("c")
    )
    return Coalesce(Subquery(handed_count), 0) + Coalesce(Subquery(moved_in), 0)
