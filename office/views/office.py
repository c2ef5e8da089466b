"""The District Magistrate's office: its home page, the approvals waiting for it, the three
approvals decided here (a shortfall written off, a court order checked, a deposit confirmed for
application) and each user's to-do list.

Records are looked up within the user's jurisdiction (another district's: 404), then the action
is checked (403). The services in office.services check again, decide and write the event; the
view then closes the to-do the daily run had opened for it, so that it leaves the list at once.
"""

from itertools import groupby

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import F
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import todos as todo_list
from accounts.decorators import require_permission
from accounts.models import District, Pound
from accounts.roles import Permission
from accounts.scoping import has_permission, visible_district_ids, visible_pound_ids
from accounts.training import day_of
from auctions.models import Shortfall
from impounding import services as impounding_services
from impounding.confirmations import show_deposit_panel
from impounding.models import CourtOrder, Deposit
from impounding.services import deposit_awaiting_application
from kernel import clock
from kernel.formatting import inr
from kernel.replica import reads_from_replica
from kernel.views import add_service_errors

from .. import dashboard as selectors
from .. import services as office
from ..forms.office import ConfirmForm, CourtOrderCheckForm, WriteOffForm


@require_permission(Permission.VIEW_REPORTS)
@reads_from_replica
def dashboard(request):
    districts = list(
        District.objects.for_user(request.user, Permission.VIEW_REPORTS).select_related("state")
    )
    if not districts:
        return render(request, "office/office/dashboard.html", {"districts": [], "board": None})
    chosen = request.GET.get("district", "")
    district = next((d for d in districts if str(d.pk) == chosen), districts[0])
    pounds = list(
        Pound.objects.for_user(request.user, Permission.VIEW_REPORTS)
        .filter(district=district)
        .order_by("name", "pk")
    )
    return render(
        request,
        "office/office/dashboard.html",
        {
            "districts": districts,
            "board": selectors.dashboard(request.user, district, pounds),
        },
    )


@require_permission(Permission.VIEW_REPORTS)
@reads_from_replica
def approvals(request):
    user = request.user
    pound_ids = visible_pound_ids(user, Permission.VIEW_REPORTS)
    today = day_of(pound_ids)
    # ?queue= shows one queue alone, a page at a time from the keyset cursor ?after=.
    only = request.GET.get("queue")
    only = only if only in selectors.QUEUES else None
    waiting = selectors.approvals(
        user,
        pound_ids,
        visible_district_ids(user, Permission.VIEW_REPORTS),
        today,
        only=only,
        after=request.GET.get("after"),
    )
    return render(
        request,
        "office/office/approvals.html",
        {
            "waiting": waiting,
            "today": today,
            "several_districts": _several_districts(user),
            "only": only,
            "is_first_page": not request.GET.get("after"),
        },
    )


def _several_districts(user):
    return len(visible_district_ids(user, Permission.VIEW_REPORTS)) > 1


@require_permission(Permission.APPROVE)
def shortfall_write_off(request, pk):
    shortfall = get_object_or_404(
        Shortfall.objects.for_user(request.user).select_related(
            "pound__district",
            "decided_by",
            "sale__lot__auction",
            "sale__buyer",
            "s16_case__impoundment",
            "disposal",
        ),
        pk=pk,
    )
    if not has_permission(request.user, Permission.APPROVE, shortfall.pound):
        raise PermissionDenied
    form = WriteOffForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            office.write_off_shortfall(
                shortfall=shortfall, by=request.user, note=form.cleaned_data["note"]
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            todo_list.close(f"shortfall_writeoff:{shortfall.pk}")
            messages.success(
                request,
                _("The shortfall of %(amount)s is written off.") % {"amount": inr(shortfall.total)},
            )
            return redirect("office:approvals")
    animals = []
    if shortfall.sale_id:
        animals = shortfall.sale.lot.animals.select_related("impoundment").order_by("pk")
    elif shortfall.disposal_id:
        animals = shortfall.disposal.animals.select_related("impoundment").order_by("pk")
    return render(
        request,
        "office/office/shortfall_write_off.html",
        {"shortfall": shortfall, "animals": animals, "form": form},
    )


@require_permission(Permission.PREPARE_ORDERS)
def court_order_review(request, pk):
    """Check a court order a pound recorded against the court's record: confirmed, its animals
    are released; rejected, they stay and the keeper is told (s.19, docs/decisions/0056)."""
    order = get_object_or_404(
        CourtOrder.objects.for_user(request.user, Permission.PREPARE_ORDERS).select_related(
            "impoundment__pound__district",
            "complaint",
            "recorded_by",
            "reviewed_by",
            "verification",
        ),
        pk=pk,
    )
    form = CourtOrderCheckForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        data = dict(form.cleaned_data)
        try:
            order = impounding_services.check_court_order(order=order, by=request.user, **data)
        except (ValidationError, PermissionDenied) as error:
            if isinstance(error, PermissionDenied):
                error = ValidationError(str(error))
            add_service_errors(form, error)
        else:
            messages.success(request, _checked_message(order))
            return redirect("office:approvals")
    return render(
        request,
        "office/office/court_order_review.html",
        {
            "order": order,
            "entry": order.impoundment,
            "animals": order.animals_named.order_by("number"),
            "form": form,
            "may_check": order.may_be_decided_by(request.user),
        },
    )


def _checked_message(order):
    words = {"case": order.case_number}
    if order.status == CourtOrder.Status.REJECTED:
        return _("Court order %(case)s rejected: the animals stay in the pound.") % words
    return _("Court order %(case)s confirmed: the animals are released.") % words


@require_permission(Permission.APPROVE)
def deposit_confirm_application(request, pk):
    deposit = get_object_or_404(
        Deposit.objects.for_user(request.user).select_related(
            "release__impoundment__pound__district",
            "release__receipt",
            "application_confirmed_by",
        ),
        pk=pk,
    )
    entry = deposit.release.impoundment
    if not has_permission(request.user, Permission.APPROVE, entry.pound):
        raise PermissionDenied
    form = ConfirmForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            deposit = office.confirm_deposit_application(deposit=deposit, by=request.user)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            if deposit.status == Deposit.Status.APPLIED:
                todo_list.close(f"deposit_apply:{deposit.pk}")
                show_deposit_panel(
                    request,
                    deposit,
                    _("Deposit %(receipt)s applied as payment of the fines and charges."),
                )
            else:
                message = _(
                    "Confirmed: deposit %(receipt)s will be applied as payment after the last "
                    "day to complain, unless a complaint is made in time."
                )
                messages.success(request, message % {"receipt": deposit.release.receipt.number})
            return redirect("office:approvals")
    complaints = selectors.complaints_of(deposit)
    return render(
        request,
        "office/office/deposit_confirm.html",
        {
            "deposit": deposit,
            "entry": entry,
            "complaints": complaints,
            "applies_now": deposit_awaiting_application(deposit),
            "form": form,
        },
    )


@reads_from_replica
def todos(request):
    items = list(
        todo_list.for_user(request.user)
        .select_related("pound", "district")
        .order_by(F("due_on").asc(nulls_last=True), "created_at", "pk")
    )
    # The to-dos' districts' day (ADR 0080): no query for real ones, one a training district.
    days = {clock.today(d) for d in {t.district_id: t.district for t in items}.values()}
    today = days.pop() if len(days) == 1 else timezone.localdate()
    groups = [
        {"due_on": due_on, "items": list(rows), "overdue": due_on is not None and due_on < today}
        for due_on, rows in groupby(items, key=lambda t: t.due_on)
    ]
    return render(
        request,
        "office/office/todos.html",
        {"groups": groups, "count": len(items), "today": today},
    )
