"""What the pound-keeper's field app (issue 22, ADRs 0073 and 0074) reads and sends beyond the
register's own routes, with the phone's device token:

- GET /field/reference/?pound=: the pound's reference data, kept on the phone for the days
  without signal and revalidated by its ETag (304 when nothing changed);
- POST /pounds/{id}/feeding/: a feeding round (s.9);
- POST /animals/{id}/custody-events/: a death, an escape or a birth;
- POST /entries/{id}/photos/: a photo of an animal, sent after its entry (multipart).

Each write needs an Idempotency-Key (api.idempotency), made once on the phone when the record is
saved and sent with every try, and runs the screens' service, so the checks and messages are
theirs. The phone's `captured_at` is kept beside the server's receipt. Another district's pound,
animal or entry is a 404."""

import hashlib
import json
from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Field, Query, Router, Schema
from pydantic import StrictBool, StrictInt

from accounts.models import Pound, StaffAssignment, Village
from accounts.roles import Permission
from impounding import services
from impounding.models import Animal, AnimalState, Sex, Species
from impounding.selectors import animal_for, entry_for, past_feeding_gaps, pound_for
from impounding.services.common import REQUIRED
from impounding.services.field import add_photo
from impounding.tariffs import in_force_in
from kernel import clock

from .common import bad, invalid, json_body, not_allowed, problem, with_etag
from .idempotency import OPENAPI, documented, idempotent, json_response
from .intake import NOT_A_CHOICE, Body, Moment, named_errors
from .schemas import Problem
from .tariffs import order_row, scale_row

router = Router(tags=["field app"])
ANSWERS = {400: Problem, 401: Problem, 403: Problem, 404: Problem, 422: Problem}
MONEY = r"^\d{1,8}(\.\d{1,2})?$"


# --- GET /field/reference/ -----------------------------------------------------------------


class Named(Schema):
    id: int
    name: str


class Choice(Schema):
    value: str
    label: str


class ReferenceOut(Schema):
    version: str
    pound: Named
    villages: list[Named]
    species: list[Choice]
    staff: list[Named]
    tariffs: dict
    missing_feeding_days: int = Field(
        description="Days of the last 30 before today on which animals were in the pound and "
        "no feeding and watering is recorded (s.27)."
    )


def _staff(pound):
    """Who works at the pound or for its district today, by name: the seizers the keeper most
    often writes down."""
    people = (
        StaffAssignment.objects.active()
        .filter(Q(pound=pound) | Q(district_id=pound.district_id))
        .values_list("user_id", "user__first_name", "user__last_name", "user__username")
        .distinct()
    )
    named = {
        pk: " ".join(p for p in (first, last) if p) or login for pk, first, last, login in people
    }
    return [{"id": pk, "name": name} for pk, name in sorted(named.items(), key=lambda i: i[1])]


def _tariffs(pound):
    today = clock.today(pound)  # the pound's own day (ADR 0080)
    scales, orders, applies = in_force_in(pound.district, today, [pound])
    _pound, scale, order = applies[0]
    return {
        "on": today.isoformat(),
        "fine_scale": scale_row(scale) if scale else None,
        "feeding_order": order_row(order) if order else None,
    }


@router.get(
    "/field/reference/",
    response={200: ReferenceOut, 400: Problem, 401: Problem, 404: Problem},
    url_name="field_reference",
    summary="A pound's reference data for the field app",
    description="Its villages, the species, the staff, and the fine scale and feeding rates in "
    "force today. Send If-None-Match with the ETag held: 304 when nothing changed.",
)
def reference(request, pound: Query[str | None] = None):
    if pound is None:  # the keeper of one pound, as a paired phone's is
        only = list(Pound.objects.for_user(request.auth, Permission.RECORD_IMPOUNDMENT)[:2])
        pound = str(only[0].pk) if len(only) == 1 else ""
    if not pound.isdigit():
        return bad("pound", _("Give the pound's number."))
    try:
        place = pound_for(request.auth, int(pound), Permission.RECORD_IMPOUNDMENT)
    except PermissionDenied:
        return not_allowed()
    villages = Village.objects.filter(district_id=place.district_id).order_by("name", "pk")
    body = {
        "pound": {"id": place.pk, "name": place.name},
        "villages": [{"id": pk, "name": name} for pk, name in villages.values_list("pk", "name")],
        "species": [{"value": v, "label": str(label)} for v, label in Species.choices],
        "staff": _staff(place),
        "tariffs": _tariffs(place),
        "missing_feeding_days": len(past_feeding_gaps(place)),
    }
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, default=str).encode()
    body = {"version": hashlib.sha256(text).hexdigest()[:16]} | body
    return with_etag(request, json.loads(json.dumps(body, default=str)))


# --- POST /pounds/{id}/feeding/ ------------------------------------------------------------


class FedAnimalIn(Body):
    animal: StrictInt
    quantity: str = Field("", max_length=40)


class FeedingIn(Body):
    date: date
    fodder: str = Field(max_length=250)
    watered: StrictBool = True
    cost: str | None = Field(None, pattern=MONEY)
    animals_fed: StrictInt = Field(ge=1)
    animals: list[FedAnimalIn] = Field([], max_length=500)
    remarks: str = Field("", max_length=1000)
    captured_at: Moment | None = None


class FeedingOut(Schema):
    id: int
    pound: int
    date: str
    round: int


def _fed_animals(pound, body):
    """The per-animal lines, each an animal in this pound's custody, and their errors."""
    ids = [line.animal for line in body.animals]
    held = set(
        Animal.objects.filter(
            pk__in=ids, impoundment__pound=pound, state=AnimalState.IMPOUNDED
        ).values_list("pk", flat=True)
    )
    errors = [(f"animals.{i}.animal", NOT_A_CHOICE) for i, pk in enumerate(ids) if pk not in held]
    if ids and len(ids) != body.animals_fed:
        errors.append(("animals_fed", _("Tick as many animals as the number fed.")))
    return errors


def _remarks(body):
    lines = [body.remarks] if body.remarks else []
    lines += [f"#{line.animal}: {line.quantity}" for line in body.animals if line.quantity]
    return "\n".join(lines)


@router.post(
    "/pounds/{int:pk}/feeding/",
    response={201: FeedingOut, **ANSWERS},
    url_name="pound_feeding",
    summary="Record a feeding round (s.9)",
    description="As the feeding screen: the day's fodder and water, and the animals fed.",
    openapi_extra=documented(FeedingIn),
)
def feeding(request, pk: int):
    try:
        pound = pound_for(request.auth, pk, Permission.RECORD_CUSTODY)
    except PermissionDenied:
        return not_allowed()
    return _feed(request, pound)


@idempotent
def _feed(request, pound):
    body, refusal = json_body(request, FeedingIn)
    if refusal:
        return refusal
    errors = _fed_animals(pound, body)
    if errors:
        return invalid(errors)
    try:
        log = services.log_feeding(
            pound=pound,
            by=request.auth,
            date=body.date,
            animals_fed=body.animals_fed,
            fodder=body.fodder,
            watered=body.watered,
            cost=Decimal(body.cost) if body.cost else None,
            remarks=_remarks(body),
            idempotency_key=request.idempotency_key,
            captured_at=body.captured_at,
        )
    except PermissionDenied:
        return not_allowed()
    except ValidationError as exc:
        return invalid(named_errors(exc))
    answer = {"id": log.pk, "pound": pound.pk, "date": log.date.isoformat(), "round": log.round}
    return json_response(answer, 201)


# --- POST /animals/{id}/custody-events/ ----------------------------------------------------


class CustodyEventIn(Body):
    kind: Literal["death", "escape", "birth"]
    occurred_at: Moment
    remarks: str = Field("", max_length=1000)
    sex: Sex | None = Field(None, description="A birth's: the calf's sex.")
    colour: str = Field("", max_length=80, description="A birth's: the calf's colour.")
    captured_at: Moment | None = None


class CustodyEventOut(Schema):
    kind: str
    animal: int
    calf: int | None = None


def _custody(request, animal, body):
    """The screens' service for the event, its errors named as the app's form names them."""
    common = {"by": request.auth, "at": body.occurred_at, "captured_at": body.captured_at}
    if body.kind == "death":
        services.record_death(animal=animal, cause=body.remarks, **common)
        return None
    if body.kind == "escape":
        services.record_escape(animal=animal, notes=body.remarks, **common)
        return None
    return services.record_birth(
        dam=animal,
        sex=body.sex or "",
        colour=body.colour,
        marks=body.remarks,
        idempotency_key=request.idempotency_key,
        **common,
    )


RENAMED = {"cause": "remarks", "notes": "remarks", "marks": "remarks", "at": "occurred_at"}


@router.post(
    "/animals/{int:pk}/custody-events/",
    response={201: CustodyEventOut, **ANSWERS},
    url_name="animal_custody_event",
    summary="Record a death, an escape or a birth in the pound",
    description="As the custody screens: a death ends custody (its cause in `remarks`), an "
    "escape pauses it, a birth enters the calf beside its dam (with `sex` and `colour`).",
    openapi_extra=documented(CustodyEventIn),
)
def custody_event(request, pk: int):
    try:
        animal = animal_for(request.auth, pk, Permission.RECORD_CUSTODY)
    except PermissionDenied:
        return not_allowed()
    return _record_custody(request, animal)


@idempotent
def _record_custody(request, animal):
    body, refusal = json_body(request, CustodyEventIn)
    if refusal:
        return refusal
    if body.kind == "birth":
        missing = [(f, REQUIRED) for f in ("sex", "colour") if not getattr(body, f)]
        if missing:
            return invalid(missing)
    try:
        calf = _custody(request, animal, body)
    except PermissionDenied:
        return not_allowed()
    except ValidationError as exc:
        return invalid([(RENAMED.get(f, f), m) for f, m in named_errors(exc)])
    answer = {"kind": body.kind, "animal": animal.pk, "calf": calf.pk if calf else None}
    return json_response(answer, 201)


# --- POST /entries/{id}/photos/ ------------------------------------------------------------


class PhotoOut(Schema):
    entry: int
    animal: int
    photo: bool


PHOTO_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["photo", "animal"],
                    "properties": {
                        "photo": {"type": "string", "format": "binary"},
                        "animal": {"type": "integer"},
                        "taken_at": {"type": "string", "format": "date-time"},
                        "place": {"type": "string", "maxLength": 200},
                    },
                }
            }
        },
    }
}


def _photo_fields(request, entry):
    """(the animal, the upload, when and where it was taken), and the errors of each."""
    errors = []
    upload = request.FILES.get("photo")
    if upload is None:
        errors.append(("photo", REQUIRED))
    raw = request.POST.get("animal", "")
    animal = entry.animals.filter(pk=int(raw)).first() if raw.isdigit() else None
    if animal is None:
        errors.append(("animal", NOT_A_CHOICE))
    taken_at = None
    if raw_time := request.POST.get("taken_at", ""):
        try:
            taken_at = datetime.fromisoformat(raw_time.replace("Z", "+00:00"))
        except ValueError:
            errors.append(("taken_at", _("This value is not valid.")))
    place = request.POST.get("place", "")[:200]
    return (animal, upload, taken_at, place), errors


@router.post(
    "/entries/{int:pk}/photos/",
    response={201: PhotoOut, 409: Problem, **ANSWERS},
    url_name="entry_photo",
    summary="Add a photo of an animal of an entry (s.8)",
    description="Multipart: `photo` (JPEG or PNG, at most 12 MB; shrunk and its EXIF dropped), "
    "`animal` (its id), and when and where it was taken. An animal has one photo.",
    openapi_extra=OPENAPI | PHOTO_BODY,
)
def photo(request, pk: int):
    try:
        entry = entry_for(request.auth, pk, Permission.RECORD_IMPOUNDMENT)
    except PermissionDenied:
        return not_allowed()
    return _add_photo(request, entry)


@idempotent
def _add_photo(request, entry):
    (animal, upload, taken_at, place), errors = _photo_fields(request, entry)
    if errors:
        return invalid(errors)
    if taken_at is not None and timezone.is_naive(taken_at):
        taken_at = timezone.make_aware(taken_at)
    try:
        add_photo(animal=animal, by=request.auth, photo=upload, taken_at=taken_at, place=place)
    except PermissionDenied:
        return not_allowed()
    except ValidationError as exc:
        named = named_errors(exc)
        if any(m == _("This animal already has a photo.") for _f, m in named):
            return problem(409, named[0][1])
        return invalid(named)
    return json_response({"entry": entry.pk, "animal": animal.pk, "photo": True}, 201)
