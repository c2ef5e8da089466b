"""Writes to the register: a new entry with its animals (s.8) and a release on payment (s.13).

The JSON body is read as its schema (api.common.json_body: a value of the wrong type, or a name
the body does not have, is a field error, never a 500), then through the rules the screens' forms
apply too (impounding.services: check_entry, check_animal, claim_errors, read_signature), then by
the service the screens call (create_entry; release_statement and release_on_payment), so the
checks and the messages, in the reader's language, are the screens'. Each needs an
Idempotency-Key (api.idempotency); the key is also the service's own, so a retry the API's record
does not catch still makes one record.

Permissions are checked as the screens check them, before the key and the body: a role without
the permission anywhere is refused (403, the screens' refusal); another district's entry is a 404.
"""

import base64
import binascii
import json
from datetime import datetime
from decimal import Decimal
from typing import Annotated

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema
from pydantic import AfterValidator, BeforeValidator, ConfigDict, StrictBool, StrictInt

from accounts.models import Pound, Village
from accounts.roles import Permission
from accounts.scoping import has_permission
from impounding import services
from impounding.models import (
    AgeClass,
    ClaimantRole,
    Receipt,
    Release,
    S11Ground,
    S11Site,
    SeizerCapacity,
    SeizureBasis,
    Sex,
    Species,
)
from impounding.registry import suggested_owners
from impounding.selectors import entry_for
from impounding.services.common import REQUIRED
from impounding.services.intake import check_animal, check_entry
from impounding.services.releases import claim_errors, read_signature
from impounding.warnings import describe_warnings
from ledger.models import PaymentMode

from .common import call_service, dump, invalid, json_body, not_allowed, problem
from .custody import ReceiptOut, receipt_row
from .entries import RegisterEntryOut, StatementOut, entry_row, statement_row
from .idempotency import device_time, documented, idempotent, json_response
from .schemas import Problem

# The release has its own path. The new entry shares /entries/ with the register's list, and one
# path is served by one router in django-ninja: api/urls.py adds it to the register's router.
router = Router(tags=["register"])
NOT_A_CHOICE = forms.ModelChoiceField.default_error_messages["invalid_choice"]
# The problems both writes may answer with, for the schema.
ANSWERS = {400: Problem, 401: Problem, 413: Problem, 422: Problem}


# --- The bodies, as the schema publishes them (tests hold them to the forms' fields) --------


def _aware(moment):
    """A moment without its offset is India's, as a screen's date and time field reads it."""
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


def _list_of(kind):
    """A list whose items are all `kind` (null is an empty one), else an error of the list's own
    name: a JSON `true` is no id."""

    def read(value):
        value = [] if value is None else value
        if not isinstance(value, list) or not all(kind(v) for v in value):
            raise ValueError("not a list of the items it takes")
        return value

    return BeforeValidator(read)


Moment = Annotated[datetime, AfterValidator(_aware)]
OBJECTS = _list_of(lambda v: isinstance(v, dict))
IDS = _list_of(lambda v: isinstance(v, int) and not isinstance(v, bool))


class Body(Schema):
    # Strings are stripped, as a form's fields strip them; a name the body does not have is an
    # error of that name.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class AnimalIn(Body):
    species: Species
    sex: Sex
    age_class: AgeClass
    colour: str = Field(max_length=80)
    marks: str = Field("", max_length=250)
    ear_tag: str = Field("", max_length=30, description="A 12-digit Pashu Aadhaar tag, if any.")
    tag_confirmed: StrictBool = Field(
        False, description="The tag reads as written: keep it although it fails the check."
    )
    photo: str | None = Field(
        None,
        description="Optional: a JPEG or PNG photo, base64 (a data: URL is accepted), at most "
        "12 MB; resized, and its EXIF data dropped, as on the screen.",
    )


class EntryIn(Body):
    pound: StrictInt | None = Field(
        None, description="Required when the caller keeps several pounds."
    )
    arrived_at: Moment
    seized_at: Moment
    seizure_place: str = Field(max_length=200)
    notice_description: str = Field("", max_length=160)
    notice_confirmed: StrictBool = False
    seizure_village: StrictInt | None = None
    basis: SeizureBasis
    basis_other: str = Field("", max_length=200)
    s11_site: S11Site | None = None
    s11_ground: S11Ground | None = None
    damage_description: str = ""
    pound_choice_reason: str = Field("", max_length=200)
    seizer_name: str = Field(max_length=150)
    seizer_residence: str = Field(max_length=250)
    seizer_capacity: SeizerCapacity
    seizer_phone: str = Field("", max_length=15)
    owner_name: str = Field("", max_length=150)
    owner_residence: str = Field("", max_length=250)
    owner_phone: str = Field("", max_length=15, pattern=r"^(\+?[0-9]{10,13})?$")
    owner_from_tag: str = Field(
        "",
        max_length=30,
        description="The ear tag whose owner, as the State's registry named it, the keeper "
        "confirmed (ADR 0078): recorded when the owner given is that owner.",
    )
    # No animal at all is refused with the screen's own words (_animals), not the schema's.
    animals: Annotated[list[AnimalIn], OBJECTS] = Field(
        max_length=100, json_schema_extra={"minItems": 1}
    )
    captured_at: Moment | None = Field(
        None,
        description="The field app's: when the entry was made on the phone, by its clock. Kept "
        "beside the server's receipt; the statutory clocks run from seized_at and arrived_at.",
    )


class EntryCreatedOut(RegisterEntryOut):
    warnings: list[str]


class ReleaseIn(Body):
    animals: Annotated[list[int], IDS] = Field(
        description="Ids of the animals; a calf born in the pound goes with its dam.",
        json_schema_extra={"minItems": 1},
    )
    amount: str = Field(
        pattern=r"^\d{1,10}(\.\d{1,2})?$",
        description="The amount tendered, in rupees: exactly the dues now, or the release is "
        "refused with the dues in the answer.",
    )
    claimant_name: str = Field(max_length=150)
    claimant_address: str = Field(max_length=250)
    claimant_phone: str = Field("", max_length=15)
    claimant_role: ClaimantRole
    owner_name: str = Field("", max_length=150)
    agent_authority: str = Field("", max_length=250)
    id_document: str = Field("", max_length=120)
    payment_mode: PaymentMode
    payment_reference: str = Field("", max_length=120)
    acknowledgement: Release.Acknowledgement
    register_page: str = Field("", max_length=30)
    signature_data: str | None = Field(
        None, description="The claimant's signature: a data:image/png;base64 URL."
    )
    replaces: StrictInt | None = Field(None, description="The cancelled receipt this one corrects.")


class ReleaseOut(Schema):
    entry: int
    animals: list[int]
    receipt: ReceiptOut


class DuesProblem(Problem):
    dues: StatementOut | None = None


def named_errors(exc, where=""):
    """A service's ValidationError as (field, message) pairs, each field under `where`; its errors
    of no field go under `where` itself, or "request"."""
    pairs = exc.error_dict.items() if hasattr(exc, "error_dict") else [(NON_FIELD_ERRORS, [exc])]
    whole = where.rstrip(".") or "request"
    return [
        (whole if field == NON_FIELD_ERRORS else where + field, message)
        for field, errors in pairs
        for error in errors
        for message in error.messages
    ]


def _checked(check, values, where=""):
    """`values` through `check` (one of the screens' rules), and the errors it names."""
    try:
        return check(values), []
    except ValidationError as exc:
        return values, named_errors(exc, where)


# --- POST /entries/ ------------------------------------------------------------------------


# Its operation, for api/urls.py to add to the register's router (GET /entries/ is there).
CREATE_ENTRY = {
    "response": {201: EntryCreatedOut, 403: Problem, **ANSWERS},
    "url_name": "entry_create",
    "summary": "Enter cattle in the register on arrival (s.8)",
    "description": "As the arrival screen: the same checks and messages. Photos are optional.",
    "openapi_extra": documented(EntryIn),
}


def create_entry(request):
    user = request.auth
    pounds = Pound.objects.for_user(user, Permission.RECORD_IMPOUNDMENT).select_related("district")
    pounds = {p.pk: p for p in pounds}
    if not has_permission(user, Permission.RECORD_IMPOUNDMENT) or not pounds:
        return not_allowed()  # the arrival screen's 403
    return _enter(request, pounds)


def _photo(text, number):
    """A base64 photo as an upload; bytes that are not base64 go on as they are, for the
    screen's own check to refuse with its own message."""
    if text.startswith("data:") and "," in text:
        text = text.split(",", 1)[1]
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raw = text.encode()
    return SimpleUploadedFile(f"animal-{number}.jpg", raw)


def _animals(body):
    """The animals as the service takes them, and the errors of each, named by its place."""
    animals, errors = [], []
    for i, animal in enumerate(body.animals):
        values = animal.model_dump(exclude={"photo"})
        values["photo"] = _photo(animal.photo, i + 1) if animal.photo else None
        values, wrong = _checked(check_animal, values, f"animals.{i}.")
        animals.append(values)
        errors += wrong
    if not animals:
        errors.append(("animals", _("Enter at least one animal.")))
    return animals, errors


def _choice(pk, choices, field, errors):
    """The record `pk` of `choices` (a dict by id); a field error when it is not one of them."""
    if pk is not None and pk not in choices:
        errors.append((field, NOT_A_CHOICE))
    return choices.get(pk)


@idempotent
def _enter(request, pounds):
    body, refusal = json_body(request, EntryIn)
    if refusal:
        return refusal
    values = body.model_dump(exclude={"pound", "seizure_village", "animals", "captured_at"})
    values |= {"s11_site": body.s11_site or "", "s11_ground": body.s11_ground or ""}
    animals, errors = _animals(body)
    chosen = body.pound if body.pound is not None or len(pounds) > 1 else next(iter(pounds))
    if chosen is None:
        errors.append(("pound", REQUIRED))  # the screen's hidden field when he keeps one pound
    pound = _choice(chosen, pounds, "pound", errors)
    villages = Village.objects.filter(pk=body.seizure_village) if body.seizure_village else []
    districts = {p.district_id for p in pounds.values()}
    villages = {v.pk: v for v in villages if v.district_id in districts}
    village = _choice(body.seizure_village, villages, "seizure_village", errors)
    values, wrong = _checked(check_entry, values)
    if errors + wrong:
        return invalid(errors + wrong)
    try:
        entry = services.create_entry(
            idempotency_key=request.idempotency_key,
            pound=pound,
            by=request.auth,
            seizure_village=village,
            animals=animals,
            captured_at=body.captured_at,
            device_now=device_time(request),
            **values,
        )
    except PermissionDenied:
        return not_allowed()
    except ValidationError as exc:
        return invalid(named_errors(exc))
    _ask_registry(entry, animals)
    answer = entry_row(entry) | {"warnings": [str(w) for w in describe_warnings(entry.warnings)]}
    return json_response(answer, 201, reverse("api:entry", args=[entry.pk]))


def _ask_registry(entry, animals):
    """The field app's entries ask the ear-tag registry as the arrival screen's check page does
    (ADR 0078, addendum): the same cached lookup, within the same short timeout in all, once
    the entry is committed (no transaction waits on the registry), a failure only "no
    suggestion". The keeper confirms the owner it names on the entry's page."""
    tags = [a.get("ear_tag") or "" for a in animals]
    known = (entry.owner_name, entry.owner_phone)
    if any(tags) and not getattr(entry, "replayed", False):
        transaction.on_commit(lambda: suggested_owners(tags, known=known), robust=True)


# --- POST /entries/{pk}/release/ -----------------------------------------------------------


@router.post(
    "/entries/{int:pk}/release/",
    response={201: ReleaseOut, 403: Problem, 404: Problem, 409: DuesProblem, **ANSWERS},
    url_name="entry_release",
    summary="Release animals on payment of the dues (s.13)",
    description="As the release screen: the dues are computed here, now, and the amount "
    "tendered must be exactly them. Answers with the receipt.",
    openapi_extra=documented(ReleaseIn),
)
def release(request, pk: int):
    if not has_permission(request.auth, Permission.RELEASE_ANIMAL):
        return not_allowed()
    # Another district's entry is a 404 (Http404); one of a pound where he may not release, a 403.
    entry, refusal = call_service(
        entry_for, title=_("Not allowed"), user=request.auth, pk=pk, perm=Permission.RELEASE_ANIMAL
    )
    return refusal or _release(request, entry)


def _claim(entry, body):
    """The claimant's answers as the service takes them, and the errors of the screens' rules."""
    answers = body.model_dump(exclude={"animals", "amount", "signature_data", "replaces"})
    errors = list(claim_errors(answers, owner_named=True).items())
    answers["signature"], wrong = _checked(read_signature, body.signature_data)
    errors += _signaturenamed_errors(wrong)
    replaceable = {r.pk: r for r in Receipt.objects.replaceable_for(entry)} if body.replaces else {}
    answers["replaces"] = _choice(body.replaces, replaceable, "replaces", errors)
    return answers, errors


@idempotent
def _release(request, entry):
    try:
        services.claimable_animals(entry)
    except services.ReleaseRefused as exc:
        return problem(409, exc.messages[0])
    body, refusal = json_body(request, ReleaseIn)
    if refusal:
        return refusal
    answers, errors = _claim(entry, body)
    try:
        statement = services.release_statement(entry=entry, animal_ids=body.animals)
    except services.ReleaseRefused as exc:
        if not hasattr(exc, "error_dict"):
            return problem(409, exc.messages[0])  # no tariff covers a day
        statement, errors = None, errors + named_errors(exc)
    if errors:
        return invalid(errors)
    try:
        made = services.release_on_payment(
            entry=entry,
            by=request.auth,
            animal_ids=[a.pk for a in statement.animals],
            idempotency_key=request.idempotency_key,
            amount_tendered=Decimal(body.amount),
            **answers,
        )
    except PermissionDenied:
        return not_allowed()
    except services.ReleaseRefused as exc:
        return _refused(exc, statement.dues)
    location = reverse("api:verify", kwargs={"code": made.receipt.document.token})
    animals = sorted(a.pk for a in statement.animals)
    answer = dump(
        ReleaseOut, made, entry=entry.pk, animals=animals, receipt=receipt_row(made.receipt)
    )
    return json_response(answer, 201, location)


def _refused(exc, statement):
    """The problem a refused release answers with: the dues moved on are a conflict (409) that
    carries them to check again; any other reason is a field's error, as the screen shows it."""
    named = getattr(exc, "message_dict", {})
    if "amount" in named:
        response = problem(409, _("The amount tendered is not the dues now."), named["amount"][0])
        body = json.loads(response.content) | {"dues": statement_row(statement)}
        response.content = json.dumps(body, ensure_ascii=False)
        return response
    return invalid(_signaturenamed_errors(named_errors(exc)))


def _signaturenamed_errors(errors):
    """The services' `signature` is the body's `signature_data`."""
    return [("signature_data" if f == "signature" else f, m) for f, m in errors]
