"""Account workflows: appointing staff to roles, ending appointments, issuing appointment cards,
and reissuing a kept document.

Each staff workflow is atomic and writes a StaffEvent in the same transaction; a reissue writes
an event on the document's pound's chain (or its district's).
"""

from datetime import timedelta

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, override

from poundadmin.events import record_event
from poundadmin.messages import Message, label

from .actions import Action
from .apitokens import ApiToken, digest_of, new_secret
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


# --- Personal API tokens -------------------------------------------------------------------

# The last use is written at most this often: not a write for every request of a busy client.
TOKEN_USE_RESOLUTION = timedelta(minutes=1)


def create_api_token(*, user, name, idempotency_key=None):
    """Make a token for `user`; returns (token, secret). The secret exists only in this return
    value: a replayed form (the same key) gives the first token and None for the secret."""
    if idempotency_key is not None:
        if (token := ApiToken.objects.filter(idempotency_key=idempotency_key).first()) is not None:
            return token, None
    secret = new_secret()
    try:
        with transaction.atomic():
            token = ApiToken(
                user=user,
                name=name,
                digest=digest_of(secret),
                hint=secret[:8],
                idempotency_key=idempotency_key,
            )
            token.full_clean(exclude=["idempotency_key"])
            token.save()
            StaffEvent.objects.create(
                user=user, action=StaffEvent.Action.TOKEN_CREATED, by=user, note=str(token)
            )
    except IntegrityError:
        # The same form committed first, while this one waited on the key's unique index.
        token = ApiToken.objects.filter(idempotency_key=idempotency_key).first()
        if token is None:
            raise
        return token, None
    return token, secret


@transaction.atomic
def revoke_api_token(*, token, by):
    token = ApiToken.objects.select_for_update(of=("self",)).get(pk=token.pk)
    if token.revoked_at is not None:
        return token
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    StaffEvent.objects.create(
        user=token.user, action=StaffEvent.Action.TOKEN_REVOKED, by=by, note=str(token)
    )
    return token


def user_of_api_token(secret):
    """The active user whose live token this is, or None. Marks the token used, at most once a
    minute (a conditional UPDATE: two servers at once write it once)."""
    token = (
        ApiToken.objects.live()
        .select_related("user")
        .filter(digest=digest_of(secret), user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= TOKEN_USE_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lte=now - TOKEN_USE_RESOLUTION)
        ).update(last_used_at=now)
    return token.user
