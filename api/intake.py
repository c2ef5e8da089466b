"""Writes to the register: a new entry with its animals (s.8) and a release on payment (s.13).

Each calls the service its screen calls (impounding.services: create_entry, release_on_payment),
validated by the screen's own forms (EntryForm and AnimalFormSet, ClaimForm and ConfirmForm), so
the checks and the messages, in the reader's language, are the screens'. The JSON body is turned
into the form's data field by field: a value of the wrong JSON type, or a name the form does not
have, is a field error, never a 500. Each needs an Idempotency-Key (api.idempotency); the key is
also the service's own, so a retry the API's record does not catch still makes one record.

Permissions are checked as the screens check them, before the key and the body: a role without
the permission anywhere is refused (403, the screens' refusal); another district's entry is a 404.
"""

import base64
import binascii
import json
from datetime import datetime

from django import forms
from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema

from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import has_permission
from impounding import services
from impounding.forms.register import AnimalForm, AnimalFormSet, EntryForm
from impounding.forms.releases import ClaimForm, ConfirmForm
from impounding.models import (
    AgeClass,
    ClaimantRole,
    Impoundment,
    Receipt,
    Release,
    S11Ground,
    S11Site,
    SeizerCapacity,
    SeizureBasis,
    Sex,
    Species,
)
from impounding.warnings import describe_warnings
from kernel.documents import public_url
from kernel.views import add_service_errors
from ledger.models import PaymentMode

from .common import dump, json_body, problem
from .common import form_errors as _form_errors
from .common import invalid as _invalid
from .common import not_allowed as _not_allowed
from .entries import _entry
from .idempotency import documented, idempotent, json_response
from .schemas import EntryOut, Problem

# The release has its own path. The new entry shares /entries/ with the register's list, and one
# path is served by one router in django-ninja: api/urls.py adds it to the register's router.
router = Router(tags=["register"])


# --- The bodies, as the schema publishes them (tests hold them to the forms' fields) --------


class AnimalIn(Schema):
    species: Species
    sex: Sex
    age_class: AgeClass
    colour: str = Field(max_length=80)
    marks: str = Field("", max_length=250)
    ear_tag: str = Field("", max_length=30, description="A 12-digit Pashu Aadhaar tag, if any.")
    tag_confirmed: bool = Field(
        False, description="The tag reads as written: keep it although it fails the check."
    )
    photo: str | None = Field(
        None,
        description="Optional: a JPEG or PNG photo, base64 (a data: URL is accepted), at most "
        "12 MB; resized, and its EXIF data dropped, as on the screen.",
    )


class EntryIn(Schema):
    pound: int | None = Field(None, description="Required when the caller keeps several pounds.")
    arrived_at: datetime
    seized_at: datetime
    seizure_place: str = Field(max_length=200)
    notice_description: str = Field("", max_length=160)
    notice_confirmed: bool = False
    seizure_village: int | None = None
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
    animals: list[AnimalIn] = Field(min_length=1, max_length=100)


class EntryCreatedOut(EntryOut):
    warnings: list[str]


class ReleaseIn(Schema):
    animals: list[int] = Field(
        min_length=1, description="Ids of the animals; a calf born in the pound goes with its dam."
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
    replaces: int | None = Field(None, description="The cancelled receipt this one corrects.")


class ReceiptOut(Schema):
    number: str
    amount: str
    fines: str
    feeding: str
    payment_mode: str
    issued_at: str
    verification_url: str


class ReleaseOut(Schema):
    entry: int
    animals: list[int]
    receipt: ReceiptOut


class AnimalDuesOut(Schema):
    id: int
    fine: str
    feeding: str
    feeding_days: int


class DuesOut(Schema):
    as_of: str
    total: str
    fines: str
    feeding: str
    animals: list[AnimalDuesOut]


class DuesProblem(Problem):
    dues: DuesOut | None = None


# --- JSON to form data ---------------------------------------------------------------------

ENTRY_FIELDS = {k: f for k, f in EntryForm.base_fields.items() if k != "idempotency_key"}
ANIMAL_FIELDS = {
    k: f for k, f in AnimalForm.base_fields.items() if k not in ("photo", "photo_held")
}
CLAIM_FIELDS = ClaimForm.base_fields | {
    # Added by ClaimForm itself when the entry has a cancelled receipt to replace.
    "replaces": forms.ModelChoiceField(queryset=None, required=False),
    "amount": ConfirmForm.base_fields["amount"],
    "signature_data": ConfirmForm.base_fields["signature_data"],
}
CONFIRM_FIELDS = ("amount", "signature_data")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _post_value(field, value):
    """`value` as a form's POST data carries it for `field`; None when its JSON type is wrong."""
    if isinstance(field, forms.BooleanField):
        return ("on" if value else "") if isinstance(value, bool) else None
    if isinstance(field, forms.ModelMultipleChoiceField):
        ok = isinstance(value, list) and all(_is_int(v) for v in value)
        return [str(v) for v in value] if ok else None
    if isinstance(field, forms.ModelChoiceField):
        return str(value) if _is_int(value) else None
    return value if isinstance(value, str) else None


def _as_post(fields, values, *, prefix="", where=""):
    """The JSON object as POST data for a form with `fields`, and the field errors of its types."""
    data, errors = {}, []
    for name, value in values.items():
        field = fields.get(name)
        if field is None:
            errors.append((f"{where}{name}", _("There is no such field.")))
            continue
        if value is None:
            continue
        posted = _post_value(field, value)
        if posted is None:
            errors.append((f"{where}{name}", _("This value is not valid.")))
        elif posted != "":
            data[f"{prefix}{name}"] = posted
    return data, errors


def _photo(text, number):
    """A base64 photo as an upload; bytes that are not base64 go on as they are, for the form's
    own ImageField to refuse with its own message."""
    if text.startswith("data:") and "," in text:
        text = text.split(",", 1)[1]
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raw = text.encode()
    return SimpleUploadedFile(f"animal-{number}.jpg", raw)


def _animal_rows(animals):
    """The animals as the formset's POST data and files, and the field errors of their types."""
    data = {"animals-TOTAL_FORMS": "0", "animals-INITIAL_FORMS": "0"}
    if animals is None:
        animals = []
    if not isinstance(animals, list) or not all(isinstance(a, dict) for a in animals):
        return data, {}, [("animals", _("This value is not valid."))]
    data["animals-TOTAL_FORMS"] = str(len(animals))
    files, errors = {}, []
    for i, animal in enumerate(animals):
        animal = dict(animal)
        photo = animal.pop("photo", None)
        rows, more = _as_post(ANIMAL_FIELDS, animal, prefix=f"animals-{i}-", where=f"animals.{i}.")
        data |= rows
        errors += more
        if isinstance(photo, str):
            if photo:  # an empty one is no photo, as on the screen
                files[f"animals-{i}-photo"] = _photo(photo, i + 1)
        elif photo is not None:
            errors.append((f"animals.{i}.photo", _("This value is not valid.")))
    return data, files, errors


def _formset_errors(formset):
    errors = []
    for i, form in enumerate(formset.forms):
        errors += _form_errors(form, f"animals.{i}.")
    return errors + [("animals", m) for m in formset.non_form_errors()]


# --- POST /entries/ ------------------------------------------------------------------------


# Its operation, for api/urls.py to add to the register's router (GET /entries/ is there).
CREATE_ENTRY = {
    "response": {
        201: EntryCreatedOut,
        400: Problem,
        401: Problem,
        403: Problem,
        413: Problem,
        422: Problem,
    },
    "url_name": "entry_create",
    "summary": "Enter cattle in the register on arrival (s.8)",
    "description": "As the arrival screen: the same checks and messages. Photos are optional.",
    "openapi_extra": documented(EntryIn),
}


def create_entry(request):
    user = request.auth
    pounds = (
        Pound.objects.for_user(user, Permission.RECORD_IMPOUNDMENT)
        .select_related("district")
        .order_by("name")
    )
    if not has_permission(user, Permission.RECORD_IMPOUNDMENT) or not pounds:
        return _not_allowed()  # the arrival screen's 403
    body, refusal = json_body(request)
    return refusal or _enter(request, body, pounds)


@idempotent
def _enter(request, body, pounds):
    values = dict(body)
    rows, files, errors = _animal_rows(values.pop("animals", None))
    data, more = _as_post(ENTRY_FIELDS, values)
    errors += more
    if len(pounds) == 1 and "pound" not in values:
        data["pound"] = str(pounds[0].pk)  # the screen's hidden field
    data["idempotency_key"] = str(request.idempotency_key)
    form = EntryForm(data, pounds=pounds)
    formset = AnimalFormSet(rows, files, prefix="animals")
    errors += _form_errors(form) + _formset_errors(formset)
    if errors:
        return _invalid(errors)
    cleaned = dict(form.cleaned_data)
    pound = cleaned.pop("pound")
    animals = [
        {k: v for k, v in f.cleaned_data.items() if k != "photo_held"}
        for f in formset.forms
        if f.cleaned_data
    ]
    try:
        entry = services.create_entry(pound=pound, by=request.auth, animals=animals, **cleaned)
    except PermissionDenied:
        return _not_allowed()
    except DjangoValidationError as exc:
        add_service_errors(form, exc)
        return _invalid(_form_errors(form))
    answer = _entry(entry) | {"warnings": [str(w) for w in describe_warnings(entry.warnings)]}
    return json_response(answer, 201, reverse("api:entry", args=[entry.pk]))


# --- POST /entries/{pk}/release/ -----------------------------------------------------------


def _dues(statement):
    animals = [
        dump(AnimalDuesOut, line, id=line.animal.pk, fine=str(line.fine), feeding=str(line.feeding))
        for line in statement.lines
    ]
    money = {k: str(getattr(statement, k)) for k in ("total", "fines", "feeding")}
    return dump(DuesOut, statement, animals=animals, **money)


def _dues_differ(messages, statement):
    """409: the amount tendered is not the dues now, which the answer carries to check again."""
    response = problem(409, _("The amount tendered is not the dues now."), messages[0])
    body = json.loads(response.content) | {"dues": _dues(statement)}
    response.content = json.dumps(body, ensure_ascii=False)
    return response


def _released(release, chosen):
    receipt = release.receipt
    return {
        "entry": release.impoundment_id,
        "animals": sorted(a.pk for a in chosen),
        "receipt": dump(
            ReceiptOut,
            receipt,
            amount=str(receipt.amount),
            fines=str(release.fines),
            feeding=str(release.feeding),
            verification_url=public_url(receipt.document.get_absolute_url()),
        ),
    }


@router.post(
    "/entries/{int:pk}/release/",
    response={
        201: ReleaseOut,
        400: Problem,
        401: Problem,
        403: Problem,
        404: Problem,
        409: DuesProblem,
        413: Problem,
        422: Problem,
    },
    url_name="entry_release",
    summary="Release animals on payment of the dues (s.13)",
    description="As the release screen: the dues are computed here, now, and the amount "
    "tendered must be exactly them. Answers with the receipt.",
    openapi_extra=documented(ReleaseIn),
)
def release(request, pk: int):
    user = request.auth
    if not has_permission(user, Permission.RELEASE_ANIMAL):
        return _not_allowed()
    entry = Impoundment.objects.for_user(user).select_related("pound__district")
    entry = entry.filter(pk=pk).first()
    if entry is None:
        raise Http404
    if not has_permission(user, Permission.RELEASE_ANIMAL, entry.pound):
        return _not_allowed()
    body, refusal = json_body(request)
    return refusal or _release(request, entry, body)


def _claim_forms(request, entry, animals, body):
    data, errors = _as_post(CLAIM_FIELDS, body)
    confirm_data = {k: data.pop(k) for k in CONFIRM_FIELDS if k in data}
    confirm_data["idempotency_key"] = str(request.idempotency_key)
    form = ClaimForm(
        data,
        animals=animals.choosable(),
        replaceable=Receipt.objects.replaceable_for(entry),
    )
    if "replaces" in data and "replaces" not in form.fields:
        errors.append(("replaces", _("This value is not valid.")))
    confirm = ConfirmForm(confirm_data)
    return form, confirm, errors + _form_errors(form) + _form_errors(confirm)


@idempotent
def _release(request, entry, body):
    try:
        animals = services.claimable_animals(entry)
    except services.ReleaseRefused as exc:
        return problem(409, exc.messages[0])
    form, confirm, errors = _claim_forms(request, entry, animals, body)
    if errors:
        return _invalid(errors)
    data = dict(form.cleaned_data)
    chosen = [a.pk for a in data.pop("animals")]
    try:
        statement = services.release_statement(entry=entry, animal_ids=chosen)
    except services.ReleaseRefused as exc:
        if not hasattr(exc, "error_dict"):
            return problem(409, exc.messages[0])  # no tariff covers a day
        return _refused(exc, form, statement=None)
    try:
        made = services.release_on_payment(
            entry=entry,
            by=request.auth,
            animal_ids=[a.pk for a in statement.animals],
            idempotency_key=confirm.cleaned_data["idempotency_key"],
            amount_tendered=confirm.cleaned_data["amount"],
            signature=confirm.cleaned_data["signature_data"],
            **data,
        )
    except PermissionDenied:
        return _not_allowed()
    except services.ReleaseRefused as exc:
        return _refused(exc, form, statement=statement.dues)
    location = reverse("api:verify", kwargs={"code": made.receipt.document.token})
    return json_response(_released(made, statement.animals), 201, location)


def _refused(exc, form, *, statement):
    """The problem a refused release answers with: the dues moved on are a conflict that carries
    them; any other reason is a field's error (or the request's), as the screen shows it."""
    named = getattr(exc, "message_dict", {})
    if "amount" in named and statement is not None:
        return _dues_differ(named["amount"], statement)
    if "signature" in named:
        return _invalid([("signature_data", m) for m in named["signature"]])
    add_service_errors(form, exc)
    return _invalid(_form_errors(form))
