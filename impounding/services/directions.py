"""An animal found unfit at the veterinary inspection (ADR 0071, "Found unfit"): the keeper
records the Magistrate's direction under rule 3(b) of the Prevention of Cruelty to Animals (Care
and Maintenance of Case Property Animals) Rules, 2017, to house it at an infirmary, pinjrapole,
SPCA, animal welfare organisation or gaushala while the case is pending."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import todos
from accounts.roles import Permission, Role
from accounts.scoping import authorise
from kernel import clock
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message

from ..actions import Action
from ..inspections import RULE_3B, UNFIT_SECTION, UNFIT_TODO
from ..models import AnimalState, Direction, Finding, Fitness, Impoundment

DIRECTION_FIELDS = ("place_kind", "place_name", "magistrate_name", "order_reference", "ordered_on")


def direction_todo(finding, entry):
    """The keeper's to-do while the unfit animal's direction is not recorded (upsert's fields,
    as the daily run's `todos.sync` takes them too). No due date: the Rules give none."""
    return {
        "role": Role.POUND_KEEPER,
        "district": entry.pound.district,
        "pound": entry.pound,
        "title": Message(
            gettext_noop(
                "Unfit animal %(animal)s: record the Magistrate's direction (rule 3(b) of "
                "the 2017 Rules)"
            ),
            animal=f"{entry.register_number}/{finding.animal.number}",
        ),
        "url": reverse("impounding:direction_new", args=[entry.pk, finding.pk]),
        "section": UNFIT_SECTION,
        "due_on": None,
    }


def open_direction_todos(entry, inspection):
    """After an inspection: a to-do for each animal it found unfit."""
    unfit = inspection.findings.filter(fitness=Fitness.UNFIT).select_related("animal")
    for finding in unfit:
        todos.upsert(key=f"{UNFIT_TODO}{finding.pk}", **direction_todo(finding, entry))


def _check(finding, ordered_on):
    if finding.fitness != Fitness.UNFIT:
        raise ValidationError(_("The officer did not find this animal unfit."))
    if finding.animal.state != AnimalState.IMPOUNDED:
        raise ValidationError(_("This animal is no longer in the pound."))
    if Direction.objects.filter(finding=finding).exists():
        raise ValidationError(_("The Magistrate's direction for this finding is recorded already."))
    if ordered_on > clock.today(finding.animal.impoundment.pound):
        raise ValidationError({"ordered_on": _("The order cannot be dated in the future.")})
    if ordered_on < timezone.localdate(finding.inspection.visited_at):
        raise ValidationError(
            {"ordered_on": _("The order cannot be before the inspection that found it unfit.")}
        )


@transaction.atomic
def record_direction(*, finding, by, idempotency_key=None, **fields):
    """Record the Magistrate's direction (DIRECTION_FIELDS) for an animal the officer found
    unfit, and close the keeper's to-do. Once for each `idempotency_key`."""
    entry = finding.inspection.impoundment
    authorise(by, Permission.RECORD_CUSTODY, entry.pound)
    entry = (
        Impoundment.objects.select_for_update(of=("self",)).select_related("pound").get(pk=entry.pk)
    )
    done = made_with_key(Direction, idempotency_key, finding_id=finding.pk, recorded_by_id=by.pk)
    if done is not None:
        return done
    finding = Finding.objects.select_related("inspection", "animal__impoundment").get(pk=finding.pk)
    _check(finding, fields["ordered_on"])
    direction = Direction(
        finding=finding,
        recorded_by=by,
        idempotency_key=idempotency_key,
        **{
            k: fields[k].strip() if isinstance(fields[k], str) else fields[k]
            for k in DIRECTION_FIELDS
        },
    )
    direction.full_clean(exclude=["idempotency_key", "finding"])
    direction.save()
    record_event(
        action=Action.UNFIT_DIRECTED,
        section=UNFIT_SECTION,
        summary=Message(
            gettext_noop(
                "Unfit animal %(animal)s to be housed at %(place)s by the Magistrate's order "
                "%(order)s (rule 3(b))"
            ),
            animal=finding.animal.reference,
            place=direction.place_name,
            order=direction.order_reference,
        ),
        by=by,
        impoundment=entry,
        animal=finding.animal,
        data={
            "direction": direction.pk,
            "finding": finding.pk,
            "inspection": finding.inspection_id,
            "place_kind": direction.place_kind,
            "place": direction.place_name,
            "magistrate": direction.magistrate_name,
            "order": direction.order_reference,
            "ordered_on": direction.ordered_on,
            "rule": RULE_3B,
        },
    )
    todos.close(f"{UNFIT_TODO}{finding.pk}")
    return direction
