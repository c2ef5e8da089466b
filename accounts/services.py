"""Account workflows: appointing staff to roles, ending appointments, issuing appointment cards.

Each function is atomic and writes a StaffEvent in the same transaction.
"""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import override

from .models import Counter, IssuedDocument, StaffAssignment, StaffEvent
from .scoping import forget_grants


@transaction.atomic
def assign_role(
    *,
    user,
    role,
    by,
    valid_from,
    valid_to=None,
    order_reference="",
    state=None,
    district=None,
    police_station=None,
    pound=None,
):
    """Give `user` a role in one jurisdiction: a state, district, police station or pound."""
    assignment = StaffAssignment(
        user=user,
        role=role,
        valid_from=valid_from,
        valid_to=valid_to,
        order_reference=order_reference,
        state=state,
        district=district,
        police_station=police_station,
        pound=pound,
    )
    assignment.full_clean()
    assignment.save()
    StaffEvent.objects.create(
        user=user,
        assignment=assignment,
        action=StaffEvent.Action.ASSIGNED,
        by=by,
        note=order_reference,
    )
    forget_grants(user)
    return assignment


@transaction.atomic
def end_assignment(*, assignment, by, on, reason):
    """End an appointment on `on` (inclusive) and cancel the appointment cards issued for it."""
    assignment = StaffAssignment.objects.select_for_update(of=("self",)).get(pk=assignment.pk)
    assignment.valid_to = on
    assignment.full_clean()
    assignment.save(update_fields=["valid_to"])
    IssuedDocument.objects.filter(
        kind=IssuedDocument.Kind.APPOINTMENT_CARD,
        subject_type="accounts.staffassignment",
        subject_id=assignment.pk,
        revoked_at__isnull=True,
    ).update(valid_until=on)
    StaffEvent.objects.create(
        user=assignment.user,
        assignment=assignment,
        action=StaffEvent.Action.ENDED,
        by=by,
        note=reason,
    )
    forget_grants(assignment.user)
    return assignment


def _office_of(assignment):
    district = assignment.district_of_scope
    if district is None:
        state = assignment.state
        if state is not None:
            return state.name, state.name_hi, None
        return "PoundAdmin", "पाउंडएडमिन", None
    with override("en"):
        office_en = str(district.office_label)
    with override("hi"):
        office_hi = str(district.office_label)
    return office_en, office_hi, district


@transaction.atomic
def appointment_card_for(*, assignment, by):
    """The appointment card for an assignment: the valid one already issued, or a new one."""
    existing = (
        IssuedDocument.objects.filter(
            kind=IssuedDocument.Kind.APPOINTMENT_CARD,
            subject_type="accounts.staffassignment",
            subject_id=assignment.pk,
            revoked_at__isnull=True,
        )
        .order_by("-issued_at")
        .first()
    )
    if existing is not None:
        return existing
    # Lock the assignment so that two simultaneous first downloads issue one card, not two.
    StaffAssignment.objects.select_for_update(of=("self",)).get(pk=assignment.pk)
    existing = IssuedDocument.objects.filter(
        kind=IssuedDocument.Kind.APPOINTMENT_CARD,
        subject_type="accounts.staffassignment",
        subject_id=assignment.pk,
        revoked_at__isnull=True,
    ).first()
    if existing is not None:
        return existing
    year = timezone.localdate().year
    serial = Counter.next(f"appointment_card:{year}")
    office_en, office_hi, district = _office_of(assignment)
    document = IssuedDocument.objects.issue(
        kind=IssuedDocument.Kind.APPOINTMENT_CARD,
        number=f"APPT-{year}-{serial:05d}",
        by=by,
        district=district,
        pound=assignment.pound,
        office=(office_en, office_hi),
        valid_until=assignment.valid_to,
        subject_type="accounts.staffassignment",
        subject_id=assignment.pk,
    )
    StaffEvent.objects.create(
        user=assignment.user,
        assignment=assignment,
        action=StaffEvent.Action.CARD_ISSUED,
        by=by,
        note=document.number,
    )
    return document
