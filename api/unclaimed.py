"""Unclaimed cattle through the API: the s.14 reports, notices and proclamations. Each endpoint
asks the permission and takes the scope of the screen that shows the same record
(auctions.views.unclaimed, auctions.views.documents, auctions.views.files), so another district's
record is a 404; a fixed number of queries a page, whatever the number of rows."""

from functools import partial

from django import forms
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from django.urls import reverse
from ninja import Query, Router, Schema

from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import visible_pound_ids
from accounts.training import day_of
from auctions import selectors
from auctions.models import Notice, Proclamation, Report
from kernel import clock
from kernel.files import serve_stored

from .common import DatedFilters, cursor_of, dump, filters, in_days, keyset_list, require, with_etag
from .schemas import AnimalOut, Problem, page_of, shape, stored_file

router = Router(tags=["unclaimed cattle and sales"])
PAGE_SIZE = 25
PDF = stored_file("The file as stored", "application/pdf")
PHOTO = stored_file("The photo as stored", "image/jpeg", "image/png")
# A list's parameters are declared on its endpoint for the schema, each `Q`, and read by
# `listing` from the query string (as ninja reads them: the last value of a repeated one).
Q = Query[str | None]


def get(path, out, summary, router=router):
    """A GET of `router` named as its view, answering `out`: a record's shape, a list's page
    (which may also be a 400), or a file (`stored_file`); a 404 outside the caller's scope."""
    file = isinstance(out, dict)
    page = not file and "results" in out.model_fields
    response = ({} if file else {200: out}) | ({400: Problem} if page else {})
    response |= {401: Problem, 404: Problem}
    extra = {"openapi_extra": out} if file else {}

    def register(view):
        named = {"url_name": view.__name__, "summary": summary, **extra}
        return router.get(path, response=response, **named)(view)

    return register


NamedOut = shape("NamedOut", id=int, name=str)


class ReportOut(Schema):
    id: int
    number: str
    pound: int
    entry: int
    register_number: str
    police_station: NamedOut
    officer: str | None
    due_on: str
    sent_at: str
    days_late: int
    state: str
    notice: int | None
    animals: list[AnimalOut]


ReportPage = page_of(ReportOut)


class ProclamationOut(Schema):
    id: int
    notice: int
    channel: str
    is_drum: bool
    made_on: str
    place: str
    village: str | None
    made_by: str
    details: str
    photo: str | None


ProclamationPage = page_of(ProclamationOut)


class NoticeOut(Schema):
    id: int
    number: str
    report: int
    pound: int
    posted_on: str
    posted_at: str
    last_day_to_claim: str
    earliest_sale: str
    pdf: str | None
    proclamations: list[ProclamationOut]


NoticePage = page_of(NoticeOut)


class ListFilters(DatedFilters):
    """The lists' filters, validated as the screens validate theirs; a state for some."""

    state = forms.ChoiceField(required=False)

    def __init__(self, data, *, pounds, states=()):
        super().__init__(data, pounds=pounds)
        self.fields["state"].choices = [(s, s) for s in states]
        if not states:
            del self.fields["state"]


def listing(request, qs, order, row, *, pound="pound", states=(), in_state=None):
    """One page of `qs` in `order` from the cursor `after`, each row through `row`, filtered as
    the query string asks: a pound of the caller's (reached through `pound`), a state of
    `states` (`in_state`, else the status), and the IST days of the order's first field."""
    pounds = Pound.objects.for_user(request.auth, Permission.VIEW_RECORDS)
    data, error = filters(ListFilters, request.GET, pounds=pounds, states=states)
    if error:
        return error
    if data.get("pound"):
        qs = qs.filter(**{pound: data["pound"]})
    if data.get("state"):
        qs = in_state(qs, data["state"]) if in_state else qs.filter(status=data["state"])
    qs, after = in_days(qs, order[0].lstrip("-"), data), request.GET.get("after")
    return keyset_list(request, qs, order, cursor_of(qs, order), after, row, PAGE_SIZE)


def s14(request, model):
    """The s.14 lists' rule (a 404 for the screen's 403), then the caller's pounds' records."""
    require(request.auth, *selectors.READS_UNCLAIMED)
    return model.objects.for_user(request.auth, Permission.VIEW_RECORDS)


def one(request, qs, pk, row):
    """The record `pk` of `qs` through `row`, with an ETag; a 404 if `qs` holds no such record."""
    return with_etag(request, row(get_object_or_404(qs, pk=pk)))


def animals_out(animals):
    return [dump(AnimalOut, a) for a in animals]


# --- Reports (s.14) ---------------------------------------------------------------------------


def _reports(qs):
    related = qs.select_related("impoundment", "police_station", "officer")
    return selectors.with_state(related).prefetch_related(selectors.animals_by_number())


def _report(r, today):
    notice, station = getattr(r, "notice", None), r.police_station
    return dump(
        ReportOut,
        r,
        entry=r.impoundment_id,
        register_number=r.impoundment.register_number,
        police_station=dump(NamedOut, station, name=station.label),
        officer=r.officer.display_name if r.officer_id else None,
        state=selectors.report_state(r, today),
        notice=notice.pk if notice else None,
        animals=animals_out(r.animals.all()),
    )


@get(
    "/reports/",
    ReportPage,
    "Reports of cattle unclaimed for seven days (s.14), the latest sent first",
)
def reports(
    request,
    pound: Q = None,
    state: Q = None,
    date_from: Q = None,
    date_to: Q = None,
    after: Q = None,
):
    # The caller's pounds' day (ADR 0080): a training district's clock may run ahead.
    today = day_of(visible_pound_ids(request.auth, Permission.VIEW_RECORDS))
    qs = _reports(s14(request, Report))
    row, in_state = partial(_report, today=today), partial(selectors.in_state, today=today)
    states = selectors.REPORT_STATES
    return listing(request, qs, ["-sent_at", "-pk"], row, states=states, in_state=in_state)


@get("/reports/{int:pk}/", ReportOut, "One report of unclaimed cattle (s.14), with its animals")
def report(request, pk: int):
    readable = _reports(selectors.unclaimed_readable(request.auth, Report.objects))
    return one(request, readable, pk, lambda r: _report(r, today=clock.today(r.pound)))


# --- Notices and proclamations (s.14) ---------------------------------------------------------


def _proclamation(p):
    photo = reverse("api:proclamation_photo", kwargs={"pk": p.pk}) if p.photo else None
    return dump(ProclamationOut, p, village=p.village.label if p.village_id else None, photo=photo)


def _notices(qs):
    proclamations = Proclamation.objects.select_related("village").order_by("made_on", "pk")
    return qs.select_related("document").prefetch_related(
        Prefetch("proclamations", queryset=proclamations)
    )


def _notice(n):
    pdf = reverse("api:notice_pdf", kwargs={"pk": n.pk}) if n.document.file else None
    proclamations = [_proclamation(p) for p in n.proclamations.all()]
    return dump(NoticeOut, n, pdf=pdf, proclamations=proclamations)


@get("/notices/", NoticePage, "Notices of unclaimed cattle (s.14), the latest posted first")
def notices(request, pound: Q = None, date_from: Q = None, date_to: Q = None, after: Q = None):
    return listing(request, _notices(s14(request, Notice)), ["-posted_on", "-pk"], _notice)


@get(
    "/notices/{int:pk}/", NoticeOut, "One notice of unclaimed cattle (s.14), with its proclamations"
)
def notice(request, pk: int):
    readable = _notices(selectors.unclaimed_readable(request.auth, Notice.objects))
    return one(request, readable, pk, _notice)


@get("/notices/{int:pk}/pdf/", PDF, "The notice's PDF as issued, once it has been drawn and stored")
def notice_pdf(request, pk: int):
    # As auctions.views.documents.notice_pdf: the records of the notice's pound.
    scoped = Notice.objects.for_user(request.auth, Permission.VIEW_RECORDS)
    found = get_object_or_404(scoped.select_related("document"), pk=pk)
    name = "notice-" + found.number.replace("/", "-")
    return serve_stored(found.document.file, download_name=name, attachment=True)


@get(
    "/proclamations/",
    ProclamationPage,
    "Proclamations of the notices (s.14), by beat of drum and further channels",
)
def proclamations(
    request, pound: Q = None, date_from: Q = None, date_to: Q = None, after: Q = None
):
    qs, order = s14(request, Proclamation).select_related("village"), ["-made_on", "-pk"]
    return listing(request, qs, order, _proclamation, pound="notice__pound")


@get("/proclamations/{int:pk}/", ProclamationOut, "One proclamation (s.14)")
def proclamation(request, pk: int):
    readable = selectors.unclaimed_readable(request.auth, Proclamation.objects)
    return one(request, readable.select_related("village"), pk, _proclamation)


@get("/proclamations/{int:pk}/photo/", PHOTO, "The proclamation's photo")
def proclamation_photo(request, pk: int):
    # As auctions.views.files.proclamation_photo: the records of the notice's pound.
    scoped = Proclamation.objects.for_user(request.auth, Permission.VIEW_RECORDS)
    found = get_object_or_404(scoped, pk=pk)
    return serve_stored(found.photo, download_name=f"proclamation-{found.pk}")
