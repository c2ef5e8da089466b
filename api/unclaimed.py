"""Unclaimed cattle and their sale through the API: the s.14 reports, notices and proclamations,
the auctions with their lots, and the sales. Each endpoint asks the permission and takes the
scope of the screen that shows the same record (auctions.views.unclaimed, auctions.views.auction,
auctions.views.documents, auctions.views.files), so another district's record is a 404; a fixed
number of queries a page, whatever the number of rows."""

import re
from datetime import datetime, time, timedelta

from django import forms
from django.db.models import Exists, OuterRef, Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Query, Router, Schema

from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import has_permission
from auctions.models import Notice, Proclamation, Report
from auctions.selectors import AWAITING, IN_PERIOD, MAY_BE_SOLD
from impounding.models import Animal, AnimalState
from kernel.files import serve_stored

from .common import PoundFilters, dump, filters, keyset_list, require, with_etag
from .schemas import AnimalOut, Problem, page_of

router = Router(tags=["unclaimed cattle and sales"])
PAGE_SIZE = 25
CLOSED = "closed"  # none of the report's animals is in the pound any more
REPORT_STATES = (AWAITING, IN_PERIOD, MAY_BE_SOLD, CLOSED)

# Keyset cursors: the sort key of the page's last row, then its id. A moment is written as
# keyset_page writes it (str() of the UTC datetime the database gives).
_ID = r"\|\d{1,18}"
_DAY = r"\d{4}-\d{2}-\d{2}"
_MOMENT = _DAY + r" \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?\+00:00"
MOMENT_CURSOR = re.compile(_MOMENT + _ID)
DAY_CURSOR = re.compile(_DAY + _ID)

# The list of reports' rule (auctions.views.unclaimed.reports); a 404 rather than its 403.
READS_UNCLAIMED = (Permission.VIEW_RECORDS, Permission.HANDLE_UNCLAIMED)
REPORT_ORDER = ["-sent_at", "-pk"]
NOTICE_ORDER = ["-posted_on", "-pk"]
PROCLAMATION_ORDER = ["-made_on", "-pk"]

PDF = {
    "200": {
        "description": "The file as stored",
        "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
    }
}
PHOTO = {
    "200": {
        "description": "The photo as stored",
        "content": {
            "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
            "image/png": {"schema": {"type": "string", "format": "binary"}},
        },
    }
}


# --- Shapes -----------------------------------------------------------------------------------


class NamedOut(Schema):
    id: int
    name: str


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


# --- Filters, pages and scope -------------------------------------------------------------------


class ListFilter(PoundFilters):
    """The lists' filters, validated as the screens validate theirs: a pound of the caller's, a
    date range, and for some lists a state."""

    date_from = forms.DateField(required=False)
    date_to = forms.DateField(required=False)
    state = forms.ChoiceField(required=False)

    def __init__(self, data, *, pounds, states=()):
        super().__init__(data, pounds=pounds)
        if states:
            self.fields["state"].choices = [(s, s) for s in states]
        else:
            del self.fields["state"]

    def clean(self):
        data = super().clean()
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and end < start:
            self.add_error("date_to", _("The end date cannot be before the start date."))
        return data


def list_filters(user, params, states=()):
    """(the cleaned filters, None), or (None, their 400)."""
    pounds = Pound.objects.for_user(user, Permission.VIEW_RECORDS)
    return filters(ListFilter, params, pounds=pounds, states=states)


def in_dates(qs, field, data, *, moment):
    """Rows whose `field` falls within date_from..date_to (IST calendar days, both included)."""
    start, end = data.get("date_from"), data.get("date_to")
    if moment:
        start = start and timezone.make_aware(datetime.combine(start, time.min))
        end = end and timezone.make_aware(datetime.combine(end + timedelta(days=1), time.min))
        if start:
            qs = qs.filter(**{f"{field}__gte": start})
        if end:
            qs = qs.filter(**{f"{field}__lt": end})
        return qs
    if start:
        qs = qs.filter(**{f"{field}__gte": start})
    if end:
        qs = qs.filter(**{f"{field}__lte": end})
    return qs


def _may_read(user, record):
    """The s.14 report screen's rule: the records of the pound, or its unclaimed cattle."""
    return has_permission(user, Permission.VIEW_RECORDS, record) or has_permission(
        user, Permission.HANDLE_UNCLAIMED, record
    )


def animal_out(a):
    return dump(AnimalOut, a)


def animals_prefetch(through="animals"):
    return Prefetch(through, queryset=Animal.objects.order_by("number"))


# --- Reports (s.14) ---------------------------------------------------------------------------


def _reports(qs):
    in_pound = Report.animals.through.objects.filter(
        report_id=OuterRef("pk"), animal__state=AnimalState.IMPOUNDED
    )
    return (
        qs.annotate(in_custody=Exists(in_pound))
        .select_related("impoundment", "police_station", "officer", "notice")
        .prefetch_related(animals_prefetch())
    )


def _report_state(report, today):
    notice = getattr(report, "notice", None)
    if not report.in_custody:
        return CLOSED
    if notice is None:
        return AWAITING
    return IN_PERIOD if today <= notice.last_day_to_claim else MAY_BE_SOLD


def _by_state(qs, state, today):
    if state == CLOSED:
        return qs.filter(in_custody=False)
    qs = qs.filter(in_custody=True)
    if state == AWAITING:
        return qs.filter(notice__isnull=True)
    if state == IN_PERIOD:
        return qs.filter(notice__last_day_to_claim__gte=today)
    return qs.filter(notice__earliest_sale__lte=today)


def _report(r, today):
    notice = getattr(r, "notice", None)
    return dump(
        ReportOut,
        r,
        entry=r.impoundment_id,
        register_number=r.impoundment.register_number,
        police_station={"id": r.police_station_id, "name": r.police_station.label},
        officer=r.officer.display_name if r.officer_id else None,
        state=_report_state(r, today),
        notice=notice.pk if notice else None,
        animals=[animal_out(a) for a in r.animals.all()],
    )


@router.get(
    "/reports/",
    response={200: ReportPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="reports",
    summary="Reports of cattle unclaimed for seven days (s.14), the latest sent first",
)
def reports(
    request,
    pound: Query[str | None] = None,
    state: Query[str | None] = None,
    date_from: Query[str | None] = None,
    date_to: Query[str | None] = None,
    after: Query[str | None] = None,
):
    user = request.auth
    require(user, *READS_UNCLAIMED)
    params = {"pound": pound, "state": state, "date_from": date_from, "date_to": date_to}
    data, error = list_filters(user, params, REPORT_STATES)
    if error:
        return error
    today = timezone.localdate()
    qs = _reports(Report.objects.for_user(user, Permission.VIEW_RECORDS))
    if data.get("pound"):
        qs = qs.filter(pound=data["pound"])
    if data.get("state"):
        qs = _by_state(qs, data["state"], today)
    qs = in_dates(qs, "sent_at", data, moment=True)
    return keyset_list(
        request, qs, REPORT_ORDER, MOMENT_CURSOR, after, lambda r: _report(r, today), PAGE_SIZE
    )


@router.get(
    "/reports/{int:pk}/",
    response={200: ReportOut, 401: Problem, 404: Problem},
    url_name="report",
    summary="One report of unclaimed cattle (s.14), with its animals",
)
def report(request, pk: int):
    found = _reports(Report.objects.for_user(request.auth)).filter(pk=pk).first()
    if found is None or not _may_read(request.auth, found):
        raise Http404
    return with_etag(request, _report(found, timezone.localdate()))


# --- Notices and proclamations (s.14) ---------------------------------------------------------


def _proclamation(p):
    photo = None
    if p.photo:
        photo = reverse("api:proclamation_photo", kwargs={"pk": p.pk})
    return dump(ProclamationOut, p, village=p.village.label if p.village_id else None, photo=photo)


def _notices(qs):
    return qs.select_related("document").prefetch_related(
        Prefetch(
            "proclamations",
            queryset=Proclamation.objects.select_related("village").order_by("made_on", "pk"),
        )
    )


def _notice(n):
    pdf = reverse("api:notice_pdf", kwargs={"pk": n.pk}) if n.document.file else None
    proclamations = [_proclamation(p) for p in n.proclamations.all()]
    return dump(NoticeOut, n, pdf=pdf, proclamations=proclamations)


@router.get(
    "/notices/",
    response={200: NoticePage, 400: Problem, 401: Problem, 404: Problem},
    url_name="notices",
    summary="Notices of unclaimed cattle (s.14), the latest posted first",
)
def notices(
    request,
    pound: Query[str | None] = None,
    date_from: Query[str | None] = None,
    date_to: Query[str | None] = None,
    after: Query[str | None] = None,
):
    user = request.auth
    require(user, *READS_UNCLAIMED)
    data, error = list_filters(user, {"pound": pound, "date_from": date_from, "date_to": date_to})
    if error:
        return error
    qs = _notices(Notice.objects.for_user(user, Permission.VIEW_RECORDS))
    if data.get("pound"):
        qs = qs.filter(pound=data["pound"])
    qs = in_dates(qs, "posted_on", data, moment=False)
    return keyset_list(request, qs, NOTICE_ORDER, DAY_CURSOR, after, _notice, PAGE_SIZE)


@router.get(
    "/notices/{int:pk}/",
    response={200: NoticeOut, 401: Problem, 404: Problem},
    url_name="notice",
    summary="One notice of unclaimed cattle (s.14), with its proclamations",
)
def notice(request, pk: int):
    found = _notices(Notice.objects.for_user(request.auth)).filter(pk=pk).first()
    if found is None or not _may_read(request.auth, found):
        raise Http404
    return with_etag(request, _notice(found))


@router.get(
    "/notices/{int:pk}/pdf/",
    response={401: Problem, 404: Problem},
    openapi_extra={"responses": PDF},
    url_name="notice_pdf",
    summary="The notice's PDF as issued, once it has been drawn and stored",
)
def notice_pdf(request, pk: int):
    # As auctions.views.documents.notice_pdf: the records of the notice's pound.
    scoped = Notice.objects.for_user(request.auth, Permission.VIEW_RECORDS)
    found = get_object_or_404(scoped.select_related("document"), pk=pk)
    name = "notice-" + found.number.replace("/", "-")
    return serve_stored(found.document.file, download_name=name, attachment=True)


def _proclamations(user, perm=None):
    return Proclamation.objects.for_user(user, perm).select_related("village", "notice")


@router.get(
    "/proclamations/",
    response={200: ProclamationPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="proclamations",
    summary="Proclamations of the notices (s.14), by beat of drum and further channels",
)
def proclamations(
    request,
    pound: Query[str | None] = None,
    date_from: Query[str | None] = None,
    date_to: Query[str | None] = None,
    after: Query[str | None] = None,
):
    user = request.auth
    require(user, *READS_UNCLAIMED)
    data, error = list_filters(user, {"pound": pound, "date_from": date_from, "date_to": date_to})
    if error:
        return error
    qs = _proclamations(user, Permission.VIEW_RECORDS)
    if data.get("pound"):
        qs = qs.filter(notice__pound=data["pound"])
    qs = in_dates(qs, "made_on", data, moment=False)
    return keyset_list(request, qs, PROCLAMATION_ORDER, DAY_CURSOR, after, _proclamation, PAGE_SIZE)


@router.get(
    "/proclamations/{int:pk}/",
    response={200: ProclamationOut, 401: Problem, 404: Problem},
    url_name="proclamation",
    summary="One proclamation (s.14)",
)
def proclamation(request, pk: int):
    found = _proclamations(request.auth).filter(pk=pk).first()
    if found is None or not _may_read(request.auth, found.notice):
        raise Http404
    return with_etag(request, _proclamation(found))


@router.get(
    "/proclamations/{int:pk}/photo/",
    response={401: Problem, 404: Problem},
    openapi_extra={"responses": PHOTO},
    url_name="proclamation_photo",
    summary="The proclamation's photo",
)
def proclamation_photo(request, pk: int):
    # As auctions.views.files.proclamation_photo: the records of the notice's pound.
    found = get_object_or_404(_proclamations(request.auth, Permission.VIEW_RECORDS), pk=pk)
    return serve_stored(found.photo, download_name=f"proclamation-{found.pk}")
