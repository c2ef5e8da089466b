"""Periodic returns (s.7) and exports: the monthly return of a pound, the district's
consolidation, the daily cash book, each as PDF or CSV, and CSV exports of the register and the
ledger.

All GET, all read-only, except that printing a return for a month that is over registers it
(once) as an IssuedDocument. Pound-keepers see their pounds' returns and cash books; the
District Magistrate's office and auditors see their districts', and the consolidation. A pound
or district outside the user's jurisdiction is a 404; one inside it without the right is a 403.
"""

import re
import uuid
from datetime import date

from django.http import Http404, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.decorators import require_permission
from accounts.models import Pound
from accounts.roles import Permission
from kernel import clock
from kernel.documents import pdf_response
from kernel.replica import pinned, reads_from_replica

from .. import exports, return_documents
from .. import returns as figures
from ..forms.returns import ReturnsForm
from ..returns import ANIMAL_COLUMNS, CASH_COLUMNS, COLUMN_LABELS, MONEY_COLUMNS
from ..selectors import (
    RETURN_FORMATS,
    consolidating_district,
    consolidating_districts,
    export_scope,
    ledger_pound,
    period_stamp,
    return_month,
)

DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _day(text, pound):
    if not DAY.match(text):
        raise Http404
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise Http404 from None
    if day > clock.today(pound):  # the pound's own day (ADR 0080)
        raise Http404
    return day


def _csv_response(content, filename):
    response = HttpResponse(content, content_type=return_documents.CSV_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


def _send(content, fmt, stem):
    if fmt == "pdf":
        return pdf_response(content, f"{stem}.pdf")
    return _csv_response(content, f"{stem}.csv")


@require_GET
@require_permission(Permission.VIEW_LEDGER)
@reads_from_replica
def monthly_return(request, pk, year, month, fmt):
    pound = ledger_pound(request.user, pk)
    year, month = return_month(year, month, fmt, pound)
    stem = f"return-{pound.code}-{year:04d}-{month:02d}"
    if fmt == "csv":
        content = return_documents.monthly_return_csv(pound, year, month)
    else:
        content = return_documents.monthly_return_pdf(pound, year, month, by=request.user)
    return _send(content, fmt, stem)


@require_GET
@require_permission(Permission.VIEW_REPORTS)
@reads_from_replica
def district_return(request, pk, year, month, fmt):
    district = consolidating_district(request.user, pk)
    year, month = return_month(year, month, fmt, district)
    stem = f"district-return-{district.code}-{year:04d}-{month:02d}"
    if fmt == "csv":
        content = return_documents.district_return_csv(district, year, month)
    else:
        content = return_documents.district_return_pdf(district, year, month, by=request.user)
    return _send(content, fmt, stem)


@require_GET
@require_permission(Permission.VIEW_LEDGER)
@reads_from_replica
def cash_book(request, pk, day, fmt):
    pound = ledger_pound(request.user, pk)
    day = _day(day, pound)
    if fmt not in RETURN_FORMATS:
        raise Http404
    stem = f"cash-book-{pound.code}-{day.isoformat()}"
    if fmt == "csv":
        content = return_documents.cash_book_csv(pound, day)
    else:
        content = return_documents.cash_book_pdf(pound, day)
    return _send(content, fmt, stem)


# --- Exports --------------------------------------------------------------------------------


def _stream(header, queryset, filename):
    response = StreamingHttpResponse(
        exports.stream_csv(header, queryset), content_type=return_documents.CSV_CONTENT_TYPE
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


@require_GET
@require_permission(Permission.VIEW_LEDGER)
@reads_from_replica
def export_register(request):
    """Every animal of the register entries that arrived in the period, one row each."""
    pound_ids, _districts, period = export_scope(request.user, request.GET)
    if period is None:
        return HttpResponseBadRequest(_("Give the dates as YYYY-MM-DD."))
    queryset = pinned(exports.register_queryset(pound_ids, *period))
    return _stream(exports.register_header(), queryset, f"register-{period_stamp(period)}.csv")


@require_GET
@require_permission(Permission.VIEW_LEDGER)
@reads_from_replica
def export_ledger(request):
    """Every posting of the period, one row each with its transaction."""
    pound_ids, district_ids, period = export_scope(request.user, request.GET)
    if period is None:
        return HttpResponseBadRequest(_("Give the dates as YYYY-MM-DD."))
    queryset = pinned(exports.ledger_queryset(pound_ids, district_ids, *period))
    return _stream(exports.ledger_header(), queryset, f"ledger-{period_stamp(period)}.csv")


# --- The page to choose a return ------------------------------------------------------------


def _table(columns, rows, totals=None):
    """Headings and rows of figures for a screen table; rows are (label, [values])."""
    return {
        "headings": [COLUMN_LABELS[c] for c in columns],
        "rows": [(label, [values[c] for c in columns]) for label, values in rows],
        "totals": [totals[c] for c in columns] if totals is not None else None,
    }


def _links(name, args):
    return {fmt: reverse(f"office:{name}", args=[*args, fmt]) for fmt in RETURN_FORMATS}


def _prepare(what, **fields):
    """The hidden fields of a button that asks the worker for a file (office/views/prepared.py),
    each with its own idempotency key."""
    return {"what": what, "key": uuid.uuid4(), **fields}


def _prepare_buttons(kind, subject, first, r):
    what = "monthly_return" if kind == "pound" else "district_return"
    month = {"pk": subject.pk, "year": first.year, "month": first.month}
    period = {"from": r["first"].isoformat(), "to": r["last"].isoformat()}
    if kind == "pound":
        period["pound"] = subject.pk
    return {
        "return_pdf": _prepare(what, fmt="pdf", **month),
        "return_csv": _prepare(what, fmt="csv", **month),
        "register": _prepare("register", **period),
        "ledger": _prepare("ledger", **period),
    }


def _pound_context(pound, first, day):
    r = figures.pound_return(pound, first.year, first.month)
    return {
        "r": r,
        "animals": _table(
            ANIMAL_COLUMNS, [(row["label"], row) for row in r["animals"]], r["totals"]
        ),
        "money": [(COLUMN_LABELS[c], r["money"][c]) for c in MONEY_COLUMNS],
        "cash": [(COLUMN_LABELS[c], r["money"][c]) for c in CASH_COLUMNS],
        "book": figures.cash_book(pound, day),
        "book_links": _links("cash_book", [pound.pk, day.isoformat()]),
        "prepare": _prepare_buttons("pound", pound, first, r),
    }


def _district_context(district, first):
    pounds = Pound.objects.filter(district=district).order_by("name")
    r = figures.district_return(district, first.year, first.month, pounds)
    rows = [(row["pound"].label, row["totals"]) for row in r["pounds"]]
    money_rows = [(row["pound"].label, row["money"]) for row in r["pounds"]]
    return {
        "r": r,
        "animals": _table(ANIMAL_COLUMNS, rows, r["totals"]),
        "money_table": _table(MONEY_COLUMNS + CASH_COLUMNS, money_rows, r["money"]),
        "prepare": _prepare_buttons("district", district, first, r),
    }


@require_GET
@require_permission(Permission.VIEW_LEDGER)
@reads_from_replica
def returns(request):
    """Choose a pound (or the whole district) and a month, or a day for the cash book, and see
    the figures with links to the PDF and CSV of each."""
    user = request.user
    pounds = list(
        Pound.objects.for_user(user, Permission.VIEW_LEDGER)
        .select_related("district")
        .order_by("district__name", "name")
    )
    districts = list(consolidating_districts(user))
    form = ReturnsForm(request.GET or None, pounds=pounds, districts=districts)
    choices = [value for _group, options in form.fields["of"].choices for value, _l in options]
    if not request.GET and choices:
        form = ReturnsForm(form.defaults(choices[0]), pounds=pounds, districts=districts)
    context = {"form": form, "has_choices": bool(choices)}
    if choices and form.is_valid():
        kind, subject = form.cleaned_data["of"]
        first, day = form.cleaned_data["month"], form.cleaned_data["day"]
        context |= {"kind": kind, "subject": subject, "first": first, "day": day}
        if kind == "pound":
            context |= _pound_context(subject, first, day)
        else:
            context |= _district_context(subject, first)
    return render(request, "office/returns/returns.html", context)
