"""Unclaimed cattle before the auction (s.14): the pound-keeper's report, the officer's notice
and proclamations, and the public notice board.

Records are looked up through the user's jurisdiction first, so another district's entry,
report or notice is a 404 to everyone; then the action is checked (403). That is why the views
on one record carry no @require_permission: it would answer 403 to another district's officer
or pound-keeper before the lookup could say 404.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.decorators import require_permission
from accounts.roles import Permission
from accounts.scoping import has_permission, visible_pound_ids
from impounding.models import AnimalState
from impounding.selectors import entry_for
from kernel import clock
from kernel.confirmations import show_panel
from kernel.views import add_service_errors

from .. import clocks, selectors, services
from ..forms.unclaimed import BoardFilterForm, NoticeForm, ProclamationPageForm, ReportSendForm
from ..models import Notice, Proclamation, Report


def _get_report(request, pk, perm=None):
    report = get_object_or_404(
        Report.objects.for_user(request.user).select_related(
            "pound__district", "police_station", "impoundment__seizure_village", "officer"
        ),
        pk=pk,
    )
    allowed = (
        has_permission(request.user, perm, report.pound)
        if perm
        else selectors.may_read_unclaimed(request.user, report.pound)
    )
    if not allowed:
        raise PermissionDenied
    return report


def _get_notice(request, pk, perm):
    notice = get_object_or_404(
        Notice.objects.for_user(request.user).select_related(
            "pound__district",
            "report__police_station",
            "report__impoundment__seizure_village",
        ),
        pk=pk,
    )
    if not has_permission(request.user, perm, notice.pound):
        raise PermissionDenied
    return notice


def _dates_message(notice):
    return _(
        "Claims may be made until %(last)s; the cattle may be sold by public auction from %(sale)s."
    ) % {
        "last": notice.last_day_to_claim.strftime("%d-%m-%Y"),
        "sale": notice.earliest_sale.strftime("%d-%m-%Y"),
    }


# --- The pound-keeper: the report (s.14) ------------------------------------------------------


@require_permission(Permission.SEND_REPORT)
def reports_due(request):
    rows = clocks.reports_due(visible_pound_ids(request.user, Permission.SEND_REPORT))
    return render(request, "auctions/unclaimed/reports_due.html", {"rows": rows})


def _recipient(pound):
    """To whom the report goes: the officer the District Magistrate appointed for the pound, or
    else the officer in charge of the pound's nearest police station."""
    return clocks.appointed_officer(pound), pound.nearest_police_station


@require_http_methods(["GET", "POST"])
@require_permission(Permission.SEND_REPORT)
def report_send(request, pk):
    entry = entry_for(request.user, pk, Permission.SEND_REPORT)
    row = next(
        (
            r
            for r in clocks.reports_due([entry.pound_id], clock.today(entry.pound))
            if r["entry"].pk == entry.pk
        ),
        None,
    )
    # A confirmation without fields: bound on every POST, even one that carries no data.
    form = ReportSendForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            report = services.send_report(entry=entry, by=request.user)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            show_panel(
                request,
                title=_("Report %(number)s sent to %(to)s.")
                % {"number": report.number, "to": _report_to(report)},
                reference=report.number,
                document_url=reverse("auctions:report_pdf", kwargs={"pk": report.pk}),
                document_label=_("Print the report (PDF)"),
            )
            return redirect(report)
    officer, station = _recipient(entry.pound)
    return render(
        request,
        "auctions/unclaimed/report_send.html",
        {
            "entry": entry,
            "row": row,
            "form": form,
            "officer": officer,
            "station": station,
            "earlier": entry.reports.order_by("-sent_at").first(),
            "due_on": clocks.report_due(entry),
            "today": clock.today(entry.pound),
        },
    )


def _report_to(report):
    if report.officer_id:
        return report.officer.display_name
    return _("the officer in charge, %(station)s") % {"station": report.police_station.label}


# --- The officer: incoming reports, the notice and the proclamations (s.14) -----------------


def reports(request):
    user = request.user
    if not selectors.may_read_unclaimed(user):
        raise PermissionDenied
    only = request.GET.get("list")
    if only not in selectors.SECTIONS:
        only = None
    sections = selectors.officer_sections(user, only=only, after=request.GET.get("after"))
    return render(
        request,
        "auctions/unclaimed/reports.html",
        {"sections": sections, "only": only, "is_first_page": not request.GET.get("after")},
    )


def report(request, pk):
    report = _get_report(request, pk)
    animals = list(
        report.animals.select_related("release__receipt").order_by("impoundment_id", "number")
    )
    for animal in animals:
        animal.impoundment = report.impoundment
    notice = getattr(report, "notice", None)
    proclamations = list(notice.proclamations.select_related("village")) if notice else []
    drums = [p for p in proclamations if p.is_drum]
    channels = {p.channel for p in drums}
    today = clock.today(report.impoundment.pound)
    user, pound = request.user, report.pound
    return render(
        request,
        "auctions/unclaimed/report.html",
        {
            "report": report,
            "entry": report.impoundment,
            "animals": animals,
            "in_pound": [a for a in animals if a.state == AnimalState.IMPOUNDED],
            "notice": notice,
            "drums": drums,
            "further": [p for p in proclamations if not p.is_drum],
            "missing_village_drum": notice and Proclamation.Channel.DRUM_VILLAGE not in channels,
            "missing_market_drum": notice and Proclamation.Channel.DRUM_MARKET not in channels,
            "in_period": notice and today <= notice.last_day_to_claim,
            "may_be_sold": notice and today >= notice.earliest_sale,
            "report_to": _report_to(report),
            "can_handle": has_permission(user, Permission.HANDLE_UNCLAIMED, pound),
            "can_auction": has_permission(user, Permission.RUN_AUCTION, pound),
            "can_open_entry": has_permission(user, Permission.VIEW_RECORDS, pound),
        },
    )


@require_http_methods(["GET", "POST"])
def notice_post(request, pk):
    report = _get_report(request, pk, Permission.HANDLE_UNCLAIMED)
    existing = getattr(report, "notice", None)
    form = NoticeForm(request.POST or None, report=report)
    if request.method == "POST" and form.is_valid():
        try:
            notice = services.post_notice(report=report, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            show_panel(
                request,
                title=" ".join(
                    [
                        _("Notice %(number)s recorded as posted on %(date)s.")
                        % {"number": notice.number, "date": notice.posted_on.strftime("%d-%m-%Y")},
                        str(_dates_message(notice)),
                    ]
                ),
                reference=notice.number,
                document_url=reverse("auctions:notice_pdf", kwargs={"pk": notice.pk}),
                document_label=_("Print the notice (PDF)"),
            )
            return redirect(report)
    try:
        last_day, earliest = clocks.notice_dates(
            clock.today(report.impoundment.pound), entry=report.impoundment
        )
        if_today = {"last_day": last_day, "earliest": earliest}
    except ValidationError:
        if_today = None  # the pack leaves the period to the State: the form says why on sending
    return render(
        request,
        "auctions/unclaimed/notice_post.html",
        {
            "report": report,
            "entry": report.impoundment,
            "animals": report.animals.order_by("number"),
            "form": form,
            "existing": existing,
            "if_today": if_today,
        },
    )


@require_http_methods(["GET", "POST"])
def proclamation_new(request, pk):
    notice = _get_notice(request, pk, Permission.HANDLE_UNCLAIMED)
    # Suggest the drum proclamation still missing: the village first, then the market-place.
    made = set(notice.proclamations.values_list("channel", flat=True))
    drums = (Proclamation.Channel.DRUM_VILLAGE, Proclamation.Channel.DRUM_MARKET)
    missing = [c for c in drums if c not in made]
    form = ProclamationPageForm(
        request.POST or None,
        request.FILES or None,
        notice=notice,
        channel=request.GET.get("channel") or (missing[0] if missing else None),
    )
    if request.method == "POST" and form.is_valid():
        try:
            proclamation = services.record_proclamation(
                notice=notice, by=request.user, **form.cleaned_data
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Proclamation recorded: %(what)s on %(date)s.")
                % {
                    "what": proclamation.get_channel_display(),
                    "date": proclamation.made_on.strftime("%d-%m-%Y"),
                },
            )
            return redirect("auctions:report", pk=notice.report_id)
    return render(
        request,
        "auctions/unclaimed/proclamation_new.html",
        {"notice": notice, "report": notice.report, "form": form},
    )


# --- The public notice board -------------------------------------------------------------------


@login_not_required
@require_http_methods(["GET", "HEAD"])
def board(request):
    """Animals under a s.14 notice, for anyone to see: no names, phones or residences."""
    form = BoardFilterForm(request.GET or None)
    filters = {}
    if form.is_valid():
        filters = {k: v for k, v in form.cleaned_data.items() if v}
    page = selectors.board_page(after=request.GET.get("after"), **filters)
    params = request.GET.copy()
    params.pop("after", None)
    return render(
        request,
        "auctions/unclaimed/board.html",
        {
            "form": form,
            "page": page,
            "query": params.urlencode(),
            "is_first_page": not request.GET.get("after"),
            # The filters stay folded on the page unless one is in use (or has an error).
            "filtering": bool(filters) or bool(form.errors),
        },
    )
