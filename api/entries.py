"""The register through the API: the same scope, permission, filters and order as the register
screen (impounding.views.register), a fixed number of queries per page.

An entry's own endpoint adds the dues now, computed as the entry screen computes them
(impounding.dues for the animals in the pound). The list leaves them out: dues read each pound's
tariffs and its district's feeding rule, queries that grow with the pounds on a page. Photos are
links to the API's own photo route, which asks for a token and looks the animal up within the
pounds whose register the token's user reads (the screen's file view, impounding.views.files)."""

import re
from decimal import Decimal

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Field, Query, Router, Schema

from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import has_permission
from impounding.dues import dues
from impounding.forms.register import RegisterSearchForm
from impounding.models import AnimalState, Impoundment
from impounding.selectors import REGISTER_ORDER, REGISTER_PAGE, animals_readable_by, filter_register
from impounding.tariffs import TariffMissing
from kernel.documents import public_url
from kernel.files import serve_stored
from kernel.models import Event
from kernel.views import keyset_page

from .etags import with_etag
from .problems import form_problem, problem
from .schemas import EventOut, Problem

router = Router(tags=["register"])
# The register's keyset cursor: year|serial|id.
CURSOR = re.compile(r"\d{1,18}\|\d{1,18}\|\d{1,18}")
CENT = Decimal("0.01")
MONEY = "An exact amount in rupees, two decimals, as a string: 1234.50."


def iso(moment):
    return timezone.localtime(moment).isoformat()


def money(amount):
    return str(Decimal(amount).quantize(CENT))


def bad_cursor():
    return problem(
        400,
        _("The request has errors."),
        _("Correct the fields named."),
        [("after", _("This is not a page cursor this list gave."))],
    )


def next_link(request, cursor):
    if not cursor:
        return None
    query = request.GET.copy()
    query["after"] = cursor
    return f"{request.path}?{query.urlencode()}"


class RegisterAnimalOut(Schema):
    id: int
    number: int
    species: str
    sex: str
    age_class: str
    state: str
    photo: str | None = Field(
        description="Absolute URL of the animal's photo (GET /api/v1/animals/{pk}/photo/), "
        "served only with a token whose user reads this entry; null when there is none."
    )


class RegisterEntryOut(Schema):
    id: int
    register_number: str
    pound: int
    arrived_at: str
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


class RegisterAnimalDetailOut(RegisterAnimalOut):
    dues: DuesLineOut | None = Field(description="Null for an animal no longer in the pound.")


class RegisterEntryDetailOut(RegisterEntryOut):
    animals: list[RegisterAnimalDetailOut]
    dues: DuesOut | None = Field(
        description="Null when no animal of the entry is in the pound, or no tariff covers a day."
    )
    tariff_problem: str | None = Field(description="Why the dues could not be computed.")
    events: list[EventOut]


def _animal(animal):
    photo = None
    if animal.photo:
        photo = public_url(reverse("api:animal_photo", kwargs={"pk": animal.pk}))
    return {
        "id": animal.pk,
        "number": animal.number,
        "species": animal.species,
        "sex": animal.sex,
        "age_class": animal.age_class,
        "state": animal.state,
        "photo": photo,
    }


def _entry(entry, animals=None):
    return {
        "id": entry.pk,
        "register_number": entry.register_number,
        "pound": entry.pound_id,
        "arrived_at": iso(entry.arrived_at),
        "animals": [_animal(a) for a in (entry.animals.all() if animals is None else animals)],
    }


def _line(line):
    return {
        "fine": money(line.fine),
        "feeding": money(line.feeding),
        "total": money(line.total),
        "feeding_days": line.feeding_days,
        "category_code": line.category_code,
        "category": str(line.category),
        "scale": line.scale,
        "note": line.note,
        "periods": [
            {
                "first": p.first.isoformat(),
                "last": p.last.isoformat(),
                "days": p.days,
                "rate": money(p.rate),
                "order": p.order,
            }
            for p in line.periods
        ],
    }


def _dues(animals):
    """As impounding.views.register.entry: the dues of the animals in the pound, now."""
    in_pound = [a for a in animals if a.state == AnimalState.IMPOUNDED]
    if not in_pound:
        return None, {}, None
    try:
        statement = dues(in_pound)
    except TariffMissing as exc:
        return None, {}, str(exc.messages[0])
    totals = {
        "as_of": iso(statement.as_of),
        "rule": str(statement.rule),
        "fines": money(statement.fines),
        "feeding": money(statement.feeding),
        "total": money(statement.total),
        "feeding_days": statement.feeding_days,
    }
    return totals, {line.animal.pk: _line(line) for line in statement.lines}, None


def _scoped(user):
    if not has_permission(user, Permission.VIEW_RECORDS):
        raise Http404  # the screens' 403; here nothing of the register is the caller's
    return Impoundment.objects.for_user(user, Permission.VIEW_RECORDS)


@router.get(
    "/entries/",
    response={200: RegisterPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="entries",
    summary="Register entries with their animals, newest number first",
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
    form = RegisterSearchForm({k: v for k, v in params.items() if v}, pounds=pounds)
    if not form.is_valid():
        return form_problem(form)
    if after and not CURSOR.fullmatch(after):
        return bad_cursor()
    page, cursor = keyset_page(
        filter_register(qs, form.cleaned_data).prefetch_related("animals"),
        REGISTER_ORDER,
        after=after,
        size=REGISTER_PAGE,
    )
    return with_etag(
        request, {"results": [_entry(e) for e in page], "next": next_link(request, cursor)}
    )


@router.get(
    "/entries/{int:pk}/",
    response={200: RegisterEntryDetailOut, 401: Problem, 404: Problem},
    url_name="entry",
    summary="One register entry, with its animals, their dues now and its events",
)
def entry(request, pk: int):
    found = _scoped(request.auth).select_related("pound__district").filter(pk=pk).first()
    if found is None:
        raise Http404
    animals = list(found.animals.prefetch_related("custody_events").order_by("number"))
    for animal in animals:
        animal.impoundment = found
    totals, lines, tariff_problem = _dues(animals)
    body = _entry(found, animals)
    for row in body["animals"]:
        row["dues"] = lines.get(row["id"])
    events = Event.objects.filter(impoundment_id=found.pk).order_by("at", "seq")
    body |= {
        "dues": totals,
        "tariff_problem": tariff_problem,
        "events": [
            {"action": e.action, "section": e.section, "at": iso(e.at)}
            for e in events.only("action", "section", "at")
        ],
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
