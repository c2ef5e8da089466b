"""Account workflows: appointing staff to roles, ending appointments, issuing appointment cards,
and reissuing a kept document.

Each staff workflow is atomic and writes a StaffEvent in the same transaction; a reissue writes
an event on the document's pound's chain (or its district's).
"""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, override

from poundadmin.events import record_event
from poundadmin.messages import Message, label

from .actions import Action
from .models import Counter, EarlierFile, IssuedDocument, StaffAssignment, StaffEvent
from .roles import Permission
from .scoping import forget_grants, has_permission


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


def may_reissue(user, document):
    """The pound-keeper may reissue a pound's documents; the District Magistrate's office, any
    of its district's. A document of no pound or district (an appointment card) is not kept."""
    if document.pound_id is not None and has_permission(
        user, Permission.RECORD_IMPOUNDMENT, document.pound
    ):
        return True
    place = document.pound or document.district
    return place is not None and has_permission(user, Permission.PREPARE_ORDERS, place)


@transaction.atomic
def reissue_document(*, document, by, reason):
    """Draw a kept document again, explicitly and for a reason (issue 10: a kept PDF is never
    drawn again otherwise). The file issued so far is kept, with its SHA-256, as an EarlierFile
    that /verify/ still lists; the document's own file is set aside, so its next download draws
    and keeps the new one, served from then on. Same number, same token: the paper's QR code
    still leads to it."""
    document = (
        IssuedDocument.objects.select_for_update(of=("self",))
        .select_related("pound__district", "district")
        .get(pk=document.pk)
    )
    if not may_reissue(by, document):
        raise PermissionDenied(_("You may not reissue this document."))
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": _("Say why the document is being reissued.")})
    if document.revoked_at is not None:
        raise ValidationError(_("A cancelled document is not reissued."))
    if not document.file:
        raise ValidationError(_("This document has not been drawn yet: its first download will."))
    earlier = EarlierFile.objects.create(
        document=document,
        file=document.file.name,
        sha256=document.sha256,
        set_aside_by=by,
        reason=reason[:200],
    )
    IssuedDocument.objects.filter(pk=document.pk).update(file="", sha256="")
    record_event(
        action=Action.DOCUMENT_REISSUED,
        section="",
        summary=Message(
            gettext_noop("%(document)s %(number)s reissued: %(reason)s"),
            document=label(document.get_kind_display()),
            number=document.number,
            reason=reason,
        ),
        by=by,
        pound=document.pound,
        district=document.district,
        data={
            "document": document.pk,
            "number": document.number,
            "earlier_file": earlier.pk,
            "earlier_sha256": earlier.sha256,
            "reason": reason,
        },
    )
    document.file.name, document.sha256 = "", ""
    return earlier
