"""The challan of a surplus credited to the State's revenues (s.17; ADR 0076): the office's clerk
records its GRN, the bank's CIN and the treasury scroll, checks the answers, and another person,
the Magistrate, confirms it against the scroll. A GRN defaced by a remittance or another transfer
is refused beside the field; another district's surplus is a 404."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.roles import Permission
from accounts.scoping import lookup
from kernel import clock
from kernel.confirmations import show_panel
from kernel.views import add_service_errors

from .. import treasury
from ..forms.treasury import ConfirmChallanForm, SurplusChallanForm
from ..models import SurplusDeposit, TreasuryChallan

NOT_REPLAYED = {"csrfmiddlewaretoken", "confirm", "change"}


def _deposit(request, pk):
    deposit = lookup(
        request.user,
        SurplusDeposit.objects.select_related("district", "pound", "sale__lot__auction"),
        pk,
        Permission.PREPARE_ORDERS,
    )
    deposit.challan = (
        TreasuryChallan.objects.select_related("recorded_by", "confirmed_by")
        .filter(surplus=deposit)
        .first()
    )
    return deposit


def to_the_state(deposit):
    return (deposit.status, deposit.destination) == (
        SurplusDeposit.Status.TRANSFERRED,
        SurplusDeposit.Destination.STATE_REVENUE,
    )


def _answers(form):
    data = form.cleaned_data
    return [
        (form.fields[name].label, name, data.get(name))
        for name in ("grn", "cin", "scroll_number", "scroll_date")
    ]


@require_permission(Permission.PREPARE_ORDERS)
def surplus_challan_new(request, pk):
    """The clerk's form, then the check of its answers, then the record."""
    deposit = _deposit(request, pk)
    if not to_the_state(deposit):
        raise PermissionDenied
    if deposit.challan is not None and request.method != "POST":
        return redirect("office:surplus_challan", pk=deposit.pk)
    form = SurplusChallanForm(request.POST or None, today=clock.today(deposit.district))
    checking = request.method == "POST" and "change" not in request.POST
    if checking and form.is_valid():
        if "confirm" not in request.POST:
            replay = [(k, request.POST.getlist(k)) for k in request.POST if k not in NOT_REPLAYED]
            return render(
                request,
                "office/money/surplus_challan_check.html",
                {"deposit": deposit, "answers": _answers(form), "replay": replay},
            )
        try:
            challan = treasury.record_surplus_transfer(
                deposit=deposit, by=request.user, **form.cleaned_data
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            show_panel(
                request,
                title=_("GRN recorded: another person confirms it against the treasury's scroll"),
                reference=challan.grn,
            )
            return redirect("office:surplus_challan", pk=deposit.pk)
    return render(
        request, "office/money/surplus_challan_new.html", {"deposit": deposit, "form": form}
    )


@require_permission(Permission.PREPARE_ORDERS)
def surplus_challan(request, pk):
    """The challan recorded for the transfer; to another person than its recorder, the
    confirmation against the scroll."""
    deposit = _deposit(request, pk)
    challan = deposit.challan
    if challan is None:
        if not to_the_state(deposit):
            raise PermissionDenied
        return redirect("office:surplus_challan_new", pk=deposit.pk)
    may_confirm = challan.confirmed_by_id is None and challan.recorded_by_id != request.user.pk
    form = None
    if may_confirm:
        form = ConfirmChallanForm(
            request.POST if request.method == "POST" else None,
            initial={
                "cin": challan.cin,
                "scroll_number": challan.scroll_number,
                "scroll_date": challan.scroll_date,
            },
        )
        if form.is_valid():
            try:
                challan = treasury.confirm_treasury_challan(
                    challan=challan, by=request.user, **form.cleaned_data
                )
            except ValidationError as exc:
                add_service_errors(form, exc)
            else:
                show_panel(
                    request,
                    title=_("GRN confirmed against the treasury's scroll (s.17)"),
                    reference=challan.grn,
                )
                return redirect("office:surplus_challan", pk=deposit.pk)
    elif request.method == "POST":
        if challan.confirmed_by_id == request.user.pk:
            return redirect("office:surplus_challan", pk=deposit.pk)  # confirmed: sent again
        messages.error(request, challan.maker_refusal)
    return render(
        request,
        "office/money/surplus_challan.html",
        {"deposit": deposit, "challan": challan, "form": form},
    )
