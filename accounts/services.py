"""Account workflows: appointing staff to roles, ending appointments, issuing appointment cards,
reissuing a kept document, API tokens (personal ones and the State systems' service tokens), and
the relatives a member of staff declares for the s.19 check.

Each staff workflow is atomic and writes a StaffEvent in the same transaction; a reissue writes
an event on the document's pound's chain (or its district's).
"""

from datetime import datetime, time, timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, override

from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import Message, label

from .actions import Action
from .apitokens import ApiToken, digest_of, new_secret
from .models import (
    Counter,
    DeclaredRelative,
    EarlierFile,
    IssuedDocument,
    StaffAssignment,
    StaffEvent,
    User,
)
from .relatives import staff_in_reach
from .roles import Permission, Role
from .scoping import authorise, forget_grants, has_permission


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
    """Draw a kept document again, explicitly and for a reason (ADR 0011: a kept PDF is never
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
# A paired phone's last sync (and so its sliding expiry) is written at most this often: an
# outbox of 200 entries sent at once is one write, not 200 (ADR 0074).
DEVICE_SYNC_RESOLUTION = timedelta(minutes=5)


# A personal token expires: PERSONAL_TOKEN_DAYS after today unless its owner chooses another
# day, and a year at most (ASVS 5.0 L2: no key runs on for ever).
PERSONAL_TOKEN_DAYS = 90
TOKEN_MAX_DAYS = 366


def default_token_expiry():
    return timezone.localdate() + timedelta(days=PERSONAL_TOKEN_DAYS)


def _check_token_expiry(expires_on):
    today = timezone.localdate()
    if expires_on <= today:
        raise ValidationError({"expires_on": _("The expiry date must be after today.")})
    if expires_on > today + timedelta(days=TOKEN_MAX_DAYS):
        raise ValidationError(
            {"expires_on": _("A token runs for a year at most: choose an earlier date.")}
        )


def create_api_token(*, user, name, idempotency_key=None, expires_on=None):
    """Make a token for `user`, serving to the end of `expires_on` (by default
    PERSONAL_TOKEN_DAYS from today, a year at most); returns (token, secret). The secret exists
    only in this return value: a replayed form (the same key) gives the first token and None
    for the secret."""
    if idempotency_key is not None:
        if (token := ApiToken.objects.filter(idempotency_key=idempotency_key).first()) is not None:
            return token, None
    expires_on = expires_on or default_token_expiry()
    _check_token_expiry(expires_on)
    return issue_token(
        user=user, idempotency_key=idempotency_key, name=name, expires_at=expiry_moment(expires_on)
    )


def issue_token(*, user, idempotency_key, before=None, **fields):
    """Make and record one token of `user` with `fields`; returns (token, secret). `before` runs
    first in the same transaction (a phone's earlier token revoked). A form that committed first
    under the same key wins: its token is returned, with None for the secret."""
    secret = new_secret()
    try:
        with transaction.atomic():
            if before is not None:
                before()
            token = ApiToken(
                user=user,
                digest=digest_of(secret),
                hint=secret[:8],
                idempotency_key=idempotency_key,
                **fields,
            )
            token.full_clean(exclude=["idempotency_key"])
            token.save()
            StaffEvent.objects.create(
                user=user, action=StaffEvent.Action.TOKEN_CREATED, by=user, note=str(token)
            )
    except IntegrityError:
        # The same form committed first, while this one waited on the key's unique index.
        first = ApiToken.objects.filter(idempotency_key=idempotency_key).first()
        if first is None:
            raise
        return first, None
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
    """The active user whose live token this is, or None."""
    token = live_api_token(secret)
    return None if token is None else token.user


def live_api_token(secret):
    """The live (unrevoked, unexpired) token of an active user with this secret, or None.
    Marks the token used, at most once a minute (a conditional UPDATE: two servers at once
    write it once)."""
    token = (
        ApiToken.objects.live()
        .select_related("user")
        .filter(digest=digest_of(secret), user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    every = DEVICE_SYNC_RESOLUTION if token.is_device else TOKEN_USE_RESOLUTION
    if token.last_used_at is None or now - token.last_used_at >= every:
        changes: dict = {"last_used_at": now}
        if token.is_device:  # the sliding expiry (ADR 0074): each sync moves it on
            changes["expires_at"] = now + timedelta(days=settings.FIELD_DEVICE_IDLE_DAYS)
        ApiToken.objects.filter(pk=token.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lte=now - every)
        ).update(**changes)
    return token


# --- Service tokens: a State system's key (docs/decisions/0041) ----------------------------

# The longest a service token runs: a State system's key is renewed, never left to run on.
SERVICE_TOKEN_MAX_DAYS = TOKEN_MAX_DAYS


def expiry_moment(day):
    """The start of the day after `day` in IST: a token expiring on a day serves all of it."""
    return timezone.make_aware(datetime.combine(day + timedelta(days=1), time.min))


def place_of(assignment):
    """The jurisdiction an assignment names (None for a system-wide one)."""
    return assignment.state or assignment.district or assignment.police_station or assignment.pound


def _check_service_token(*, by, name, role, places, expires_on):
    errors = {}
    if not name.strip():
        errors["name"] = _("Give the token a name.")
    if role not in Role.values or role == Role.ADMINISTRATOR:
        errors["role"] = _("Choose the role of a member of staff: not the administrator's.")
    today = timezone.localdate()
    if expires_on <= today:
        errors["expires_on"] = _("The expiry date must be after today.")
    elif expires_on > today + timedelta(days=SERVICE_TOKEN_MAX_DAYS):
        errors["expires_on"] = _("A service token runs for a year at most: choose an earlier date.")
    if errors:
        raise ValidationError(errors)
    chosen = [place for place in places.values() if place is not None]
    if len(chosen) != 1:
        raise ValidationError(
            _("Choose one jurisdiction: a State, a district, a police station or a pound.")
        )
    authorise(by, Permission.MANAGE_STAFF, chosen[0])


def create_service_token(
    *,
    by,
    name,
    role,
    expires_on,
    state=None,
    district=None,
    police_station=None,
    pound=None,
    rate_per_minute=None,
    idempotency_key=None,
):
    """Make a State system's token: a service account that cannot sign in, appointed to `role`
    in one jurisdiction until `expires_on`, and its token, which expires with it. Returns
    (token, secret); a replayed form (the same key) gives the first token and None."""
    if idempotency_key is not None:
        if (token := ApiToken.objects.filter(idempotency_key=idempotency_key).first()) is not None:
            return token, None
    places = {
        "state": state,
        "district": district,
        "police_station": police_station,
        "pound": pound,
    }
    _check_service_token(by=by, name=name, role=role, places=places, expires_on=expires_on)
    secret = new_secret()
    try:
        with transaction.atomic():
            # The account's name has a colon, which the admin's user forms refuse (as the
            # daily run's does): no person's account can take it.
            serial = Counter.next("service_account")
            account = User(
                username=f"service:{serial:05d}", first_name=name[:150], is_service_account=True
            )
            account.set_unusable_password()
            account.save()
            assignment = assign_role(
                user=account,
                role=role,
                by=by,
                valid_from=timezone.localdate(),
                valid_to=expires_on,
                order_reference=f"API service token: {name}"[:120],
                **places,
            )
            token = ApiToken(
                user=account,
                name=name,
                digest=digest_of(secret),
                hint=secret[:8],
                idempotency_key=idempotency_key,
                expires_at=expiry_moment(expires_on),
                rate_per_minute=rate_per_minute,
            )
            token.full_clean(exclude=["idempotency_key"])
            token.save()
            StaffEvent.objects.create(
                user=account,
                assignment=assignment,
                action=StaffEvent.Action.TOKEN_CREATED,
                by=by,
                note=str(token),
            )
    except IntegrityError:
        token = ApiToken.objects.filter(idempotency_key=idempotency_key).first()
        if token is None:
            raise
        return token, None
    return token, secret


@transaction.atomic
def revoke_service_token(*, token, by):
    """Revoke a service token: the token is refused at once, the account's appointment ends
    today and the account is made inactive. Revoking it again changes nothing."""
    token = ApiToken.objects.select_for_update(of=("self",)).select_related("user").get(pk=token.pk)
    account = token.user
    if not account.is_service_account:
        raise PermissionDenied(_("This is a personal token: only its owner revokes it."))
    assignment = account.assignments.select_related("state", "district", "pound").first()
    place = place_of(assignment) if assignment is not None else None
    if place is None or not has_permission(by, Permission.MANAGE_STAFF, place):
        raise PermissionDenied(_("Your role does not allow this here."))
    revoke_api_token(token=token, by=by)
    today = timezone.localdate()
    if assignment.valid_to is None or assignment.valid_to > today:
        end_assignment(assignment=assignment, by=by, on=today, reason="API service token revoked")
    User.objects.filter(pk=account.pk).update(is_active=False)
    token.refresh_from_db()
    return token


# --- Declared relatives (s.19) -------------------------------------------------------------------

RELATIVE_FIELDS = ("name", "name_hi", "relation", "phone", "id_number")


def _check_keeper(by, user):
    """A declaration is kept by its staff member, or by an administrator of her district."""
    if not User.objects.filter(staff_in_reach(by)).filter(pk=user.pk).exists():
        raise PermissionDenied(_("You may not keep this person's declaration."))


@transaction.atomic
def declare_relative(*, user, by, idempotency_key=None, **fields):
    """Add one relative to `user`'s declaration. Once for each `idempotency_key`."""
    _check_keeper(by, user)
    User.objects.select_for_update(of=("self",)).get(
        pk=user.pk
    )  # one declaration written at a time
    done = made_with_key(DeclaredRelative, idempotency_key, user_id=user.pk, declared_by_id=by.pk)
    if done is not None:
        return done
    relative = DeclaredRelative(
        user=user, declared_by=by, idempotency_key=idempotency_key, **fields
    )
    relative.full_clean(exclude=["idempotency_key"])
    relative.save()
    StaffEvent.objects.create(
        user=user,
        action=StaffEvent.Action.RELATIVE_DECLARED,
        by=by,
        note=relative.get_relation_display(),
    )
    return relative


@transaction.atomic
def amend_relative(*, relative, by, **fields):
    """Correct a declared relative's particulars; the staff event says who and when."""
    relative = DeclaredRelative.objects.select_for_update(of=("self",)).get(pk=relative.pk)
    _check_keeper(by, relative.user)
    changed = [f for f in RELATIVE_FIELDS if f in fields and fields[f] != getattr(relative, f)]
    if not changed:
        return relative
    for field in changed:
        setattr(relative, field, fields[field])
    relative.full_clean(exclude=["idempotency_key"])
    relative.save(update_fields=changed)
    StaffEvent.objects.create(
        user=relative.user,
        action=StaffEvent.Action.RELATIVE_AMENDED,
        by=by,
        note=", ".join(changed),
    )
    return relative


@transaction.atomic
def remove_relative(*, relative, by):
    """Withdraw one relative from the declaration: bidders are no longer checked against him."""
    relative = (
        DeclaredRelative.objects.select_for_update(of=("self",)).filter(pk=relative.pk).first()
    )
    if relative is None:
        return None  # withdrawn already: sent twice
    _check_keeper(by, relative.user)
    relative.delete()
    StaffEvent.objects.create(
        user=relative.user,
        action=StaffEvent.Action.RELATIVE_REMOVED,
        by=by,
        note=relative.get_relation_display(),
    )
    return relative
