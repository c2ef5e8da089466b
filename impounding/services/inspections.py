"""The veterinary inspection at intake (ADR 0071): the pound-keeper records the visiting officer's
findings, animal by animal, where the entry's rule pack requires an inspection."""

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
from ..inspections import SECTION, TODO, requirement
from ..models import AnimalState, Finding, Fitness, Impoundment, Inspection
from .directions import open_direction_todos

FINDING_FIELDS = ("condition", "injuries", "marks", "marking_applied", "fitness")


def _check_visit(entry, visited_at):
    if visited_at > clock.now(entry.pound):  # a training district's clock (ADR 0080)
        raise ValidationError({"visited_at": _("The visit cannot be in the future.")})
    if visited_at < entry.arrived_at:
        raise ValidationError(
            {"visited_at": _("The visit cannot be before the animals came to the pound.")}
        )


def _check_findings(entry, findings):
    """One finding for each animal named, every one of them this entry's and in the pound."""
    if not findings:
        raise ValidationError(_("Record the officer's findings for at least one animal."))
    ids = [f["animal_id"] for f in findings]
    in_pound = set(
        entry.animals.filter(pk__in=ids, state=AnimalState.IMPOUNDED).values_list("pk", flat=True)
    )
    if len(set(ids)) != len(ids) or set(ids) != in_pound:
        raise ValidationError(_("Record findings only for this entry's animals in the pound."))


def _summary(inspection, findings):
    counts = {f: sum(1 for x in findings if x.fitness == f) for f in Fitness.values}
    return Message(
        gettext_noop(
            "Veterinary inspection by %(officer)s: %(fit)s fit, %(treatment)s needing "
            "treatment, %(unfit)s unfit"
        ),
        officer=inspection.officer_name,
        fit=counts[Fitness.FIT],
        treatment=counts[Fitness.TREATMENT],
        unfit=counts[Fitness.UNFIT],
    )


@transaction.atomic
def record_inspection(
    *,
    entry,
    by,
    visited_at,
    officer_name,
    officer_designation,
    officer_registration,
    findings,
    remarks="",
    idempotency_key=None,
):
    """Record a veterinary officer's visit to the entry's animals in the pound, with a finding
    for each (a dict of `animal_id` and FINDING_FIELDS), and close the entry's to-do. Once for
    each `idempotency_key`."""
    authorise(by, Permission.RECORD_CUSTODY, entry.pound)
    entry = (
        Impoundment.objects.select_for_update(of=("self",))
        .select_related("pound__district")
        .get(pk=entry.pk)
    )
    done = made_with_key(Inspection, idempotency_key, impoundment_id=entry.pk, recorded_by_id=by.pk)
    if done is not None:
        return done
    _check_visit(entry, visited_at)
    _check_findings(entry, findings)
    inspection = Inspection(
        impoundment=entry,
        visited_at=visited_at,
        officer_name=officer_name.strip(),
        officer_designation=officer_designation.strip(),
        officer_registration=officer_registration.strip(),
        remarks=remarks,
        recorded_by=by,
        # On the pound's clock, as the visit is (a training district's, ADR 0080): the visit
        # may not be after its record.
        recorded_at=clock.now(entry.pound),
        idempotency_key=idempotency_key,
    )
    inspection.full_clean(exclude=["idempotency_key"])
    inspection.save()
    rows = [
        Finding(
            inspection=inspection, animal_id=f["animal_id"], **{k: f[k] for k in FINDING_FIELDS}
        )
        for f in findings
    ]
    for row in rows:
        row.full_clean(exclude=["inspection", "animal"])
    Finding.objects.bulk_create(rows)
    cite = requirement(entry).cite
    summary = _summary(inspection, rows)
    record_event(
        action=Action.INSPECTION_RECORDED,
        section=SECTION,
        summary=summary,
        by=by,
        impoundment=entry,
        data={
            "inspection": inspection.pk,
            "visited_at": visited_at,
            "officer": inspection.officer_name,
            "designation": inspection.officer_designation,
            "registration": inspection.officer_registration,
            "findings": {str(r.animal_id): r.fitness for r in rows},
            "rule": {"instrument": cite.instrument, "section": cite.section},
        },
    )
    todos.close(f"{TODO}{entry.pk}")
    open_direction_todos(entry, inspection)
    return inspection


def todo_fields(entry, rule):
    """The pound-keeper's to-do while the entry's inspection is due (upsert's fields, as the
    daily run's `todos.sync` takes them too)."""
    return {
        "role": Role.POUND_KEEPER,
        "district": entry.pound.district,
        "pound": entry.pound,
        "title": Message(
            gettext_noop("Record the veterinary inspection of %(number)s"),
            number=entry.register_number,
        ),
        "url": reverse("impounding:inspection_new", args=[entry.pk]),
        "section": SECTION,
        "due_on": timezone.localdate(rule.due_at) if rule.due_at else None,
    }


def open_inspection_todo(entry):
    """At intake: the to-do, where the entry's pack requires an inspection."""
    rule = requirement(entry)
    if rule.required:
        todos.upsert(key=f"{TODO}{entry.pk}", **todo_fields(entry, rule))
