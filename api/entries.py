"""The register through the API: the same scope, permission, filters and order as the register
screen (impounding.views.register), a fixed number of queries per page.

An entry's own endpoint adds the dues now, computed as the entry screen computes them
(impounding.dues for the animals in the pound). The list leaves them out: dues read each pound's
tariffs and its district's feeding rule, queries that grow with the pounds on a page. Photos are
links to the API's own photo route, which asks for a token and looks the animal up within the
pounds whose register the token's user reads (the screen's file view, impounding.views.files)."""

import re

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from django.urls import reverse
from ninja import Field, Query, Router, Schema

from accounts.models import Pound
from accounts.roles import Permission
from impounding.dues import dues
from impounding.forms.register import RegisterSearchForm
from impounding.models import Animal, AnimalState, Impoundment
from impounding.selectors import (
    REGISTER_ORDER,
    REGISTER_PAGE,
    animals_readable_by,
    filter_register,
    inspection_record,
    register_order,
)
from impounding.tariffs import TariffMissing
from kernel.documents import public_url
from kernel.files import serve_stored
from kernel.models import Event

from .common import (
    MOMENT_CURSOR,
    MONEY,
    dump,
    filters,
    iso,
    keyset_list,
    money,
    require,
    with_etag,
)
from .schemas import AnimalOut, EntryOut, EventOut, Problem

router = Router(tags=["register"])
# The list reads the columns its rows answer (RegisterEntryOut, RegisterAnimalOut) and the
# keyset's, not the whole entry and animal: the seizure, the seizer, the notes are not in it.
LIST_COLUMNS = ("register_number", "pound", "arrived_at", "register_year", "register_serial")
LIST_ANIMAL_COLUMNS = ("impoundment", "number", "species", "sex", "age_class", "state", "photo")
# The register's keyset cursor: year|serial|id; searched between dates, arrival|id (the
# register's order then, impounding.selectors.register_order).
CURSOR = re.compile(r"\d{1,18}\|\d{1,18}\|\d{1,18}")


class RegisterAnimalOut(AnimalOut):
    photo: str | None = Field(
        description="Absolute URL of the animal's photo (GET /api/v1/animals/{pk}/photo/), "
        "served only with a token whose user reads this entry; null when there is none."
    )


class RegisterEntryOut(EntryOut):
    animals: list[RegisterAnimalOut]


class RegisterPage(Schema):
    """A page of the register. Dues are not in the list: read them on an entry's own endpoint,
    GET /api/v1/entries/{pk}/, which computes them now."""

    results: list[RegisterEntryOut]
    next: str | None


class FeedingPeriodOut(Schema):
    first: str
    last: str
    days: int
    rate: str = Field(description=MONEY)
    order: str


class DuesLineOut(Schema):
    """One animal's dues now, as the entry screen itemises them."""

    fine: str = Field(description=MONEY)
    feeding: str = Field(description=MONEY)
    total: str = Field(description=MONEY)
    feeding_days: int
    category_code: str
    category: str
    scale: str
    note: str
    periods: list[FeedingPeriodOut]


class DuesOut(Schema):
    """The dues of the entry's animals in the pound, now (impounding.dues)."""

    as_of: str
    rule: str
    fines: str = Field(description=MONEY)
    feeding: str = Field(description=MONEY)
    total: str = Field(description=MONEY)
    feeding_days: int


class FindingOut(Schema):
    animal: int
    condition: str
    injuries: str
    marks: str
    marking_applied: str
    fitness: str = Field(description="fit, treatment (needs treatment) or unfit")


class InspectionOut(Schema):
    """A veterinary officer's visit to the entry's animals, as the keeper recorded it."""

    visited_at: str
    officer_name: str
    officer_designation: str
    officer_registration: str
    remarks: str
    findings: list[FindingOut]


class InspectionStateOut(Schema):
    """The veterinary inspection at intake (ADR 0071), read-only."""

    required: bool = Field(description="Whether the entry's rule pack requires one.")
    due_at: str | None = Field(description="Null when the State has published no time limit.")
    overdue: bool
    latest: InspectionOut | None = Field(description="The latest visit recorded, or null.")


class RegisterAnimalDetailOut(RegisterAnimalOut):
    dues: DuesLineOut | None = Field(description="Null for an animal no longer in the pound.")


class RegisterEntryDetailOut(RegisterEntryOut):
    animals: list[RegisterAnimalDetailOut]
    dues: DuesOut | None = Field(
        description="Null when no animal of the entry is in the pound, or no tariff covers a day."
    )
    tariff_problem: str | None = Field(description="Why the dues could not be computed.")
    events: list[EventOut]
    inspection: InspectionStateOut


class AnimalDuesOut(DuesLineOut):
    id: int


class StatementOut(DuesOut):
    """The dues of the animals a release would take, now, each itemised."""

    animals: list[AnimalDuesOut]


def _animal(animal):
    photo = None
    if animal.photo:
        photo = public_url(reverse("api:animal_photo", kwargs={"pk": animal.pk}))
    return dump(RegisterAnimalOut, animal, photo=photo)


def entry_row(entry, animals=None):
    """An entry with its animals, as the register's list and a new entry answer it."""
    animals = entry.animals.all() if animals is None else animals
    return dump(RegisterEntryOut, entry, animals=[_animal(a) for a in animals])


def _line(line):
    periods = [dump(FeedingPeriodOut, p, rate=money(p.rate)) for p in line.periods]
    amounts = {k: money(getattr(line, k)) for k in ("fine", "feeding", "total")}
    return dump(
        AnimalDuesOut,
        line,
        id=line.animal.pk,
        category=str(line.category),
        periods=periods,
        **amounts,
    )


def statement_row(statement):
    """A dues statement (impounding.dues): its totals and each animal's line."""
    amounts = {k: money(getattr(statement, k)) for k in ("fines", "feeding", "total")}
    lines = [_line(line) for line in statement.lines]
    return dump(StatementOut, statement, rule=str(statement.rule), animals=lines, **amounts)


def _dues(animals):
    """As impounding.views.register.entry: the dues of the animals in the pound, now; their
    totals, each animal's line by its id, and why they could not be computed."""
    in_pound = [a for a in animals if a.state == AnimalState.IMPOUNDED]
    if not in_pound:
        return None, {}, None
    try:
        row = statement_row(dues(in_pound))
    except TariffMissing as exc:
        return None, {}, str(exc.messages[0])
    lines = {line.pop("id"): line for line in row.pop("animals")}
    return row, lines, None


def _inspection(entry):
    record = inspection_record(entry)
    latest = record["inspection"]
    if latest is not None:
        findings = [dump(FindingOut, f) for f in latest.findings.all()]
        latest = dump(InspectionOut, latest, findings=findings)
    due_at = record["due_at"]
    return {
        "required": record["required"],
        "due_at": iso(due_at) if due_at else None,
        "overdue": record["overdue"],
        "latest": latest,
    }


def _scoped(user):
    require(user, Permission.VIEW_RECORDS)  # the screens' 403: nothing of it is the caller's
    return Impoundment.objects.for_user(user, Permission.VIEW_RECORDS)


@router.get(
    "/entries/",
    response={200: RegisterPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="entries",
    summary="Register entries with their animals, newest number first",
    description="Searched between dates (date_from, date_to), the latest arrival first.",
)
def entries(
    request,
    q: Query[str | None] = None,
    pound: Query[str | None] = None,
    date_from: Query[str | None] = None,
    date_to: Query[str | None] = None,
    after: Query[str | None] = None,
):
    qs = _scoped(request.auth)
    pounds = Pound.objects.for_user(request.auth, Permission.VIEW_RECORDS)
    params = {"q": q, "pound": pound, "date_from": date_from, "date_to": date_to}
    data, error = filters(RegisterSearchForm, params, pounds=pounds)
    if error:
        return error
    # Each entry's animals by number, as Animal's own order gives them, without its join to the
    # entries for their order (the entry's id orders them as well).
    animals = Animal.objects.only(*LIST_ANIMAL_COLUMNS).order_by("impoundment_id", "number")
    animals = Prefetch("animals", queryset=animals)
    qs = filter_register(qs, data).only(*LIST_COLUMNS).prefetch_related(animals)
    order = register_order(data)
    cursor = CURSOR if order is REGISTER_ORDER else MOMENT_CURSOR
    return keyset_list(request, qs, order, cursor, after, entry_row, REGISTER_PAGE)


@router.get(
    "/entries/{int:pk}/",
    response={200: RegisterEntryDetailOut, 401: Problem, 404: Problem},
    url_name="entry",
    summary="One register entry, with its animals, their dues now and its events",
)
def entry(request, pk: int):
    found = get_object_or_404(_scoped(request.auth).select_related("pound__district"), pk=pk)
    animals = list(found.animals.prefetch_related("custody_events").order_by("number"))
    for animal in animals:
        animal.impoundment = found
    totals, lines, tariff_problem = _dues(animals)
    body = entry_row(found, animals)
    for row in body["animals"]:
        row["dues"] = lines.get(row["id"])
    events = Event.objects.filter(impoundment_id=found.pk).order_by("at", "seq")
    body |= {
        "dues": totals,
        "tariff_problem": tariff_problem,
        "events": [dump(EventOut, e) for e in events.only("action", "section", "at")],
        "inspection": _inspection(found),
    }
    return with_etag(request, body)


PHOTO_TYPES = {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}
PHOTO_TYPES["image/png"] = PHOTO_TYPES["image/jpeg"]


@router.get(
    "/animals/{int:pk}/photo/",
    response={401: Problem, 404: Problem},
    url_name="animal_photo",
    summary="An animal's photo, for a token whose user reads its register entry",
    openapi_extra={
        "responses": {
            "200": {"description": "The photo", "content": PHOTO_TYPES},
            "302": {"description": "On an object store: a presigned URL that lives a minute"},
        }
    },
)
def animal_photo(request, pk: int):
    # As the screen's: the animal within the pounds whose register the user reads, else 404
    # (another district, a role without the register, no photo).
    animal = get_object_or_404(animals_readable_by(request.user), pk=pk)
    return serve_stored(animal.photo, download_name=f"animal-{animal.pk}")
