"""The District Magistrate's tariffs: s.12 fine scales and s.5 feeding-rate orders.

Anyone who sees a district's records sees its tariffs; only the DM's office (MANAGE_TARIFFS)
records new ones. Orders are never edited: a new order supersedes the last (impounding.tariffs).
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.models import Pound
from accounts.roles import Permission
from kernel import clock
from kernel.views import add_service_errors

from .. import tariffs as tariff_services
from ..forms.tariffs import FeedingOrderEntry, FineScaleEntry
from ..models import FeedingRateOrder, FineScale, Species

SPECIES_ORDER = {s: i for i, s in enumerate(Species.values)}


def _split(orders):
    """In force now or later first (newest first), then the history: each order as of its own
    district's day (ADR 0080; `o.today`), a query for each training district, none for a real."""
    days = {}
    for o in orders:
        if o.district_id not in days:
            days[o.district_id] = clock.today(o.district)
        o.today = days[o.district_id]
    current = [o for o in orders if o.valid_to is None or o.valid_to >= o.today]
    history = [o for o in orders if o.valid_to is not None and o.valid_to < o.today]
    return current, history


def _orders(model, user):
    return (
        model.objects.for_user(user, Permission.VIEW_RECORDS)
        .select_related("district")
        .prefetch_related("pounds")
        .order_by("district__name", "-valid_from", "-pk")
    )


@require_permission(Permission.VIEW_RECORDS)
def tariffs(request):
    scales, scale_history = _split(_orders(FineScale, request.user))
    orders, order_history = _split(_orders(FeedingRateOrder, request.user))
    return render(
        request,
        "impounding/tariffs/list.html",
        {
            "scales": scales,
            "scale_history": scale_history,
            "orders": orders,
            "order_history": order_history,
        },
    )


def _by_animal(rows):
    """Rows in the order of the species list, the general row before the narrower ones."""
    return sorted(rows, key=lambda r: (SPECIES_ORDER.get(r.species, 99), r.specificity()))


def _schedule_pounds(order, user):
    """The pounds the order covers that the user may see, each with its posting schedule PDF."""
    if order.district_wide:
        pounds = Pound.objects.filter(district_id=order.district_id)
    else:
        pounds = order.pounds.all()
    return pounds.for_user(user).order_by("name")


def _detail_context(order, user):
    today = clock.today(order.district)  # its district's day (ADR 0080)
    in_force = order.valid_from <= today and (order.valid_to is None or order.valid_to >= today)
    return {
        "today": today,
        "in_force": in_force,
        "schedule_pounds": _schedule_pounds(order, user),
        # The posting schedule of a past or future order is printed as on its first day.
        "schedule_on": today if in_force else order.valid_from,
    }


@require_permission(Permission.MANAGE_TARIFFS)
def fine_scale_new(request):
    entry = FineScaleEntry(request.user, request.POST or None)
    if request.method == "POST" and entry.is_valid():
        try:
            scale = tariff_services.create_fine_scale(by=request.user, **entry.service_kwargs())
        except ValidationError as error:
            add_service_errors(entry.form, error)
        else:
            messages.success(request, _("Fine scale %(scale)s recorded.") % {"scale": scale})
            return redirect("impounding:fine_scale", pk=scale.pk)
    return render(
        request,
        "impounding/tariffs/fine_scale_form.html",
        {"form": entry.form, **entry.formsets},
    )


@require_permission(Permission.VIEW_RECORDS)
def fine_scale(request, pk):
    scale = get_object_or_404(
        FineScale.objects.for_user(request.user, Permission.VIEW_RECORDS)
        .select_related("district", "created_by")
        .prefetch_related("pounds", "categories", "rules__category"),
        pk=pk,
    )
    return render(
        request,
        "impounding/tariffs/fine_scale_detail.html",
        {
            "scale": scale,
            "rules": _by_animal(scale.rules.all()),
            **_detail_context(scale, request.user),
        },
    )


@require_permission(Permission.MANAGE_TARIFFS)
def feeding_order_new(request):
    entry = FeedingOrderEntry(request.user, request.POST or None)
    if request.method == "POST" and entry.is_valid():
        try:
            order = tariff_services.create_feeding_order(by=request.user, **entry.service_kwargs())
        except ValidationError as error:
            add_service_errors(entry.form, error)
        else:
            messages.success(
                request, _("Feeding rate order %(order)s recorded.") % {"order": order}
            )
            return redirect("impounding:feeding_order", pk=order.pk)
    return render(
        request,
        "impounding/tariffs/feeding_order_form.html",
        {"form": entry.form, **entry.formsets},
    )


@require_permission(Permission.VIEW_RECORDS)
def feeding_order(request, pk):
    order = get_object_or_404(
        FeedingRateOrder.objects.for_user(request.user, Permission.VIEW_RECORDS)
        .select_related("district", "created_by")
        .prefetch_related("pounds", "rates"),
        pk=pk,
    )
    return render(
        request,
        "impounding/tariffs/feeding_order_detail.html",
        {
            "order": order,
            "rates": _by_animal(order.rates.all()),
            **_detail_context(order, request.user),
        },
    )
