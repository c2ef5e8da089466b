"""Complaints of illegal seizure (ss.20-22) and the s.15 deposits whose fate they decide.

The services (impounding.services.deposits) check every permission again and decide; these views
look the record up within the user's jurisdiction (404 outside it), check the action (403), bind
a form, call one service and redirect.
"""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q, prefetch_related_objects
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.decorators import require_permission
from accounts.models import DistrictPolicy
from accounts.roles import Permission
from accounts.scoping import has_permission, visible_pound_ids
from accounts.training import pounds_by_day
from kernel import clock
from kernel.confirmations import show_panel
from kernel.dates import complaint_deadline
from kernel.views import add_service_errors, keyset_page
from office.dashboard import (
    DEPOSIT_ORDER,
    complaints_of,
    deposit_figures,
    to_apply_at_their_days,
)

from .. import services
from ..forms.court import ComplaintForm, DecideComplaintForm, RefundForm
from ..models import Complaint, Deposit
from .common import get_entry


def _may_record_court_matters(user, pound):
    return has_permission(user, Permission.PREPARE_ORDERS, pound) or has_permission(
        user, Permission.RECORD_IMPOUNDMENT, pound
    )


def complaint_new(request, pk):
    entry = get_entry(request, pk)
    if not _may_record_court_matters(request.user, entry.pound):
        raise PermissionDenied
    policy = DistrictPolicy.for_district(entry.pound.district)
    deadline = complaint_deadline(entry.seizure_date(), policy.complaint_days)
    form = ComplaintForm(request.POST or None, entry=entry, deadline=deadline)
    if form.is_valid():
        try:
            complaint = services.record_complaint(entry=entry, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            if complaint.in_time:
                messages.success(request, _("Complaint recorded, made in time (s.20)."))
            else:
                late = (complaint.filed_on - complaint.deadline).days
                messages.warning(
                    request,
                    ngettext(
                        "Complaint recorded and marked late: it was made %(days)d day after "
                        "the last day to complain (%(date)s). The Magistrate decides whether "
                        "to entertain it.",
                        "Complaint recorded and marked late: it was made %(days)d days after "
                        "the last day to complain (%(date)s). The Magistrate decides whether "
                        "to entertain it.",
                        late,
                    )
                    % {"days": late, "date": complaint.deadline.strftime("%d-%m-%Y")},
                )
            return redirect(entry)
    days_left = (deadline - clock.today(entry.pound)).days
    return render(
        request,
        "impounding/court/complaint_form.html",
        {
            "entry": entry,
            "form": form,
            "deadline": deadline,
            "seizure_date": entry.seizure_date(),
            "days_left": days_left,
            "days_late": -days_left,
        },
    )


def complaint_decide(request, pk):
    complaint = get_object_or_404(
        Complaint.objects.for_user(request.user).select_related(
            "impoundment__pound__district", "deposit__release__receipt"
        ),
        pk=pk,
    )
    entry = complaint.impoundment
    if not has_permission(request.user, Permission.PREPARE_ORDERS, entry.pound):
        raise PermissionDenied
    form = None
    if complaint.outcome == Complaint.Outcome.PENDING:
        form = DecideComplaintForm(request.POST or None, complaint=complaint)
        if form.is_valid():
            try:
                services.decide_complaint(complaint=complaint, by=request.user, **form.cleaned_data)
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, _("The Magistrate's decision is recorded."))
                return redirect(entry)
    return render(
        request,
        "impounding/court/complaint_decide.html",
        {"complaint": complaint, "entry": entry, "form": form},
    )


# The deposits page's lists: their first rows each, or one alone a page at a time (?list=).
DEPOSIT_LISTS = ("awaiting", "refund_due", "held", "pending")
DEPOSIT_ROWS = 10
DEPOSIT_PAGE = 25


def _deposit_lists(user):
    """The four lists of the deposits page as querysets in their order, the counts of the two
    lists of held deposits, and each pound's day.
    Held deposits are sorted into "to apply" and "held" in SQL, by the rule of
    deposit_awaiting_application (office.dashboard.deposit_queues), each pound at its own day
    (ADR 0080), so a page reads its rows and their counts, never every deposit held."""
    pound_ids = visible_pound_ids(user, Permission.VIEW_LEDGER)
    days = pounds_by_day(list(pound_ids))
    mine = Deposit.objects.for_user(user, Permission.VIEW_LEDGER).select_related(
        "release__impoundment__pound", "release__receipt"
    )
    held = mine.filter(status=Deposit.Status.HELD)
    awaiting = to_apply_at_their_days(days) if days else Q(pk__in=[])
    # "To apply" and "held" split the deposits held: counted together in one query.
    split = deposit_figures(held, {"awaiting": awaiting})
    counts = {"awaiting": split["awaiting"], "held": split["count"] - split["awaiting"]}
    lists = {
        "awaiting": (held.filter(awaiting), DEPOSIT_ORDER),
        "refund_due": (mine.filter(status=Deposit.Status.REFUND_DUE), DEPOSIT_ORDER),
        "held": (held.filter(~awaiting), DEPOSIT_ORDER),
        "pending": (
            Complaint.objects.for_user(user, Permission.VIEW_LEDGER)
            .filter(outcome=Complaint.Outcome.PENDING)
            .select_related("impoundment__pound", "deposit__release__receipt"),
            ("filed_on", "pk"),
        ),
    }
    day_of = {pk: day for day, pks in days.items() for pk in pks}
    return lists, counts, day_of


def _decorate(user, rows, day_of):
    """What the deposit rows show: the deciding complaints (two queries for the page), the days
    left to complain at the pound's day, and whether this user may apply or refund."""
    prefetch_related_objects(rows, "complaints", "release__impoundment__complaints")
    for d in rows:
        d.entry = d.release.impoundment
        d.complaint_list = complaints_of(d)
        d.complaint_pending = any(c.outcome == Complaint.Outcome.PENDING for c in d.complaint_list)
        d.days_left = (d.complaint_deadline - day_of[d.entry.pound_id]).days
        if d.status == Deposit.Status.REFUND_DUE:
            d.may_refund = services.may_pay_from_till(user, d.entry.pound)
        else:
            d.may_apply = has_permission(user, Permission.APPROVE, d.entry.pound)


@require_permission(Permission.VIEW_LEDGER)
def deposits(request):
    user = request.user
    only = request.GET.get("list")
    only = only if only in DEPOSIT_LISTS else None
    lists, counts, day_of = _deposit_lists(user)
    shown, cursors = {}, {}
    for key, (qs, order) in lists.items():
        if key not in counts:
            counts[key] = qs.count()
        if only and key != only:
            shown[key] = []
            continue
        shown[key], cursors[key] = keyset_page(
            qs,
            order,
            after=request.GET.get("after") if only else None,
            size=DEPOSIT_PAGE if only else DEPOSIT_ROWS,
        )
    _decorate(user, shown["awaiting"] + shown["refund_due"] + shown["held"], day_of)
    for c in shown["pending"]:
        c.may_decide = has_permission(user, Permission.PREPARE_ORDERS, c.impoundment.pound)
    return render(
        request,
        "impounding/court/deposits.html",
        {
            **shown,
            "counts": counts,
            "cursors": cursors,
            "only": only,
            "is_first_page": not request.GET.get("after"),
        },
    )


def _get_deposit(request, pk, perm):
    deposit = get_object_or_404(
        Deposit.objects.for_user(request.user).select_related(
            "release__impoundment__pound__district", "release__receipt"
        ),
        pk=pk,
    )
    if perm and not has_permission(request.user, perm, deposit.release.impoundment.pound):
        raise PermissionDenied
    return deposit


def show_deposit_panel(request, deposit, title):
    """The confirmation panel after a deposit is applied or refunded (s.15, s.22): the deposit
    receipt's number is the reference, and the receipt is the paper it concerns."""
    receipt = deposit.release.receipt
    show_panel(
        request,
        title=title % {"receipt": receipt.number},
        reference=receipt.number,
        document_url=reverse("impounding:receipt_pdf", args=[receipt.pk]),
        document_label=_("Print the deposit receipt (PDF)"),
    )


def deposit_apply(request, pk):
    deposit = _get_deposit(request, pk, Permission.APPROVE)
    form = forms.Form(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            services.apply_deposit(deposit=deposit, by=request.user)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            show_deposit_panel(
                request,
                deposit,
                _("Deposit %(receipt)s applied as payment of the fines and charges."),
            )
            return redirect("impounding:deposits")
    return render(
        request,
        "impounding/court/deposit_apply.html",
        {
            "deposit": deposit,
            "entry": deposit.release.impoundment,
            "complaints": complaints_of(deposit),
            "may_apply": services.deposit_awaiting_application(deposit),
            "form": form,
        },
    )


def deposit_refund(request, pk):
    deposit = _get_deposit(request, pk, None)
    if not services.may_pay_from_till(request.user, deposit.release.impoundment.pound):
        raise PermissionDenied
    form = RefundForm(request.POST or None)
    if form.is_valid():
        try:
            services.pay_deposit_refund(deposit=deposit, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            show_deposit_panel(request, deposit, _("Refund of deposit %(receipt)s recorded."))
            return redirect("impounding:deposits")
    return render(
        request,
        "impounding/court/deposit_refund.html",
        {
            "deposit": deposit,
            "entry": deposit.release.impoundment,
            "due": deposit.status == Deposit.Status.REFUND_DUE,
            "form": form,
        },
    )
