"""The register through the API: the same scope, permission, filters and order as the register
screen (impounding.views.register), a fixed number of queries per page."""

import re

from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Query, Router

from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import has_permission
from impounding.forms.register import RegisterSearchForm
from impounding.models import Impoundment
from impounding.selectors import filter_register
from impounding.views.register import PAGE_SIZE, REGISTER_ORDER
from poundadmin.models import Event
from poundadmin.views import keyset_page

from .etags import with_etag
from .problems import form_problem, problem
from .schemas import EntryDetailOut, EntryPage, Problem

router = Router(tags=["register"])
# The register's keyset cursor: year|serial|id.
CURSOR = re.compile(r"\d{1,18}\|\d{1,18}\|\d{1,18}")


def iso(moment):
    return timezone.localtime(moment).isoformat()


def _entry(entry):
    return {
        "id": entry.pk,
        "register_number": entry.register_number,
        "pound": entry.pound_id,
        "arrived_at": iso(entry.arrived_at),
        "animals": [
            {
                "id": a.pk,
                "number": a.number,
                "species": a.species,
                "sex": a.sex,
                "age_class": a.age_class,
                "state": a.state,
            }
            for a in entry.animals.all()
        ],
    }


def _scoped(user):
    if not has_permission(user, Permission.VIEW_RECORDS):
        raise Http404  # the screens' 403; here nothing of the register is the caller's
    return Impoundment.objects.for_user(user, Permission.VIEW_RECORDS)


@router.get(
    "/entries/",
    response={200: EntryPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="entries",
    summary="Register entries with their animals, newest number first",
)
def entries(
    request,
    pound: Query[str | None] = None,
    date_from: Query[str | None] = None,
    date_to: Query[str | None] = None,
    after: Query[str | None] = None,
):
    qs = _scoped(request.auth)
    pounds = Pound.objects.for_user(request.auth, Permission.VIEW_RECORDS)
    params = {"pound": pound, "date_from": date_from, "date_to": date_to}
    form = RegisterSearchForm({k: v for k, v in params.items() if v}, pounds=pounds)
    if not form.is_valid():
        return form_problem(form)
    if after and not CURSOR.fullmatch(after):
        return problem(
            400,
            _("The request has errors."),
            _("Correct the fields named."),
            [("after", _("This is not a page cursor this list gave."))],
        )
    page, cursor = keyset_page(
        filter_register(qs, form.cleaned_data).prefetch_related("animals"),
        REGISTER_ORDER,
        after=after,
        size=PAGE_SIZE,
    )
    next_url = None
    if cursor:
        query = request.GET.copy()
        query["after"] = cursor
        next_url = f"{request.path}?{query.urlencode()}"
    return with_etag(request, {"results": [_entry(e) for e in page], "next": next_url})


@router.get(
    "/entries/{int:pk}/",
    response={200: EntryDetailOut, 401: Problem, 404: Problem},
    url_name="entry",
    summary="One register entry, with its animals and its events",
)
def entry(request, pk: int):
    found = _scoped(request.auth).prefetch_related("animals").filter(pk=pk).first()
    if found is None:
        raise Http404
    events = Event.objects.filter(impoundment_id=found.pk).order_by("at", "seq")
    body = _entry(found) | {
        "events": [
            {"action": e.action, "section": e.section, "at": iso(e.at)}
            for e in events.only("action", "section", "at")
        ]
    }
    return with_etag(request, body)
