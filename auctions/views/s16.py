"""The sale when the owner appears and refuses or omits to pay (s.16).

The pound-keeper records the refusal; the officer sells as many animals as necessary, one lot at
a time, and stops when the proceeds cover the fines, the feeding to date and the sale expenses;
then the remaining cattle and the balance go back to the owner with the account of items
(a)-(f), and he signs for them.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.roles import Permission
from accounts.scoping import has_permission
from impounding.models import AnimalState
from impounding.selectors import entry_for
from kernel.confirmations import show_panel
from kernel.idempotency import replayed_row
from kernel.views import add_service_errors

from .. import services
from ..forms.s16 import RefusalForm, SettleForm
from ..models import Auction, Lot, S16Case
from .sale_common import get_case, running_account, s16_account


@require_permission(Permission.RELEASE_ANIMAL)
def s16_new(request, pk):
    entry = entry_for(request.user, pk, Permission.RELEASE_ANIMAL)
    # The same form sent again: its animals are no longer offered, so show what it recorded.
    made = replayed_row(request, S16Case, impoundment=entry, recorded_by=request.user)
    if made is not None:
        return _opened(request, made)
    in_pound = entry.animals.in_custody()
    if not in_pound.exists():
        messages.info(request, _("No animal of this entry is in the pound."))
        return redirect(entry)
    animals = (
        in_pound.exclude(dam__state=AnimalState.IMPOUNDED)  # a calf goes with its dam
        .exclude(s16_cases__status__in=[S16Case.Status.OPEN, S16Case.Status.COVERED])
        .select_related("impoundment")
        .order_by("number")
    )
    form = RefusalForm(
        request.POST or None,
        animals=animals,
        initial={"owner_name": entry.owner_name, "owner_address": entry.owner_residence},
    )
    if form.is_valid():
        data = dict(form.cleaned_data)
        chosen = data.pop("animals")
        try:
            case = services.open_s16_case(
                entry=entry, animal_ids=[a.pk for a in chosen], by=request.user, **data
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            return _opened(request, case)
    return render(request, "auctions/s16/new.html", {"entry": entry, "form": form})


def _opened(request, case):
    messages.success(
        request,
        _(
            "The refusal of %(owner)s is recorded: the officer sells as many of the "
            "animals as are needed to cover the dues (s.16)."
        )
        % {"owner": case.owner_name},
    )
    return redirect(case)


def _case_auctions(case):
    return list(
        case.auctions.prefetch_related(
            Prefetch(
                "lots",
                queryset=Lot.objects.select_related("sale__buyer")
                .prefetch_related("animals__impoundment")
                .order_by("sequence"),
            )
        ).order_by("scheduled_for")
    )


@require_permission(Permission.VIEW_RECORDS)
def s16_case(request, pk):
    case = get_case(request, pk)
    user = request.user
    position = tariff_problem = account = None
    if case.status == S16Case.Status.CLOSED:
        account = s16_account(case)
    else:
        position, tariff_problem = running_account(case)
        if position is not None:
            account = s16_account(case, position)
    auctions = _case_auctions(case)
    open_auction = any(a.status == Auction.Status.SCHEDULED for a in auctions)
    animals = list(case.animals.select_related("impoundment").order_by("impoundment_id", "number"))
    in_pound = [a for a in animals if a.state == AnimalState.IMPOUNDED]
    open_lots = Lot.objects.open().filter(auction__s16_case=case).exists()
    can_run = has_permission(user, Permission.RUN_AUCTION, case.pound)
    covered = case.status == S16Case.Status.COVERED
    return render(
        request,
        "auctions/s16/case.html",
        {
            "case": case,
            "animals": animals,
            "position": position,
            "tariff_problem": tariff_problem,
            "account": account,
            "auctions": auctions,
            "can_run": can_run,
            "can_schedule": case.status == S16Case.Status.OPEN and in_pound and not open_auction,
            # Settle once the dues are covered, or when every animal is sold and they are not.
            "can_settle": case.status != S16Case.Status.CLOSED
            and (covered or not in_pound)
            and not open_lots,
            "schedule_url": reverse("auctions:auction_new") + f"?case={case.pk}",
        },
    )


@require_permission(Permission.RUN_AUCTION)
def s16_settle(request, pk):
    case = get_case(request, pk, Permission.RUN_AUCTION)
    if case.status == S16Case.Status.CLOSED:
        messages.info(request, _("This account is already settled."))
        return redirect(case)
    position, tariff_problem = running_account(case)
    if position is None:
        messages.error(request, tariff_problem)
        return redirect(case)
    account = s16_account(case, position)
    form = SettleForm(request.POST or None, balance=account["balance"])
    if form.is_valid():
        try:
            services.settle_s16_case(case=case, by=request.user, **form.service_kwargs())
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            case.refresh_from_db()
            show_panel(
                request,
                title=_(
                    "Settled: the remaining cattle and the balance are returned to %(owner)s "
                    "with the account of items (a)-(f)."
                )
                % {"owner": case.owner_name},
                reference=case.account_document.number,
                document_url=reverse("auctions:s16_account_pdf", args=[case.pk]),
                document_label=_("Print the account (PDF)"),
            )
            return redirect(case)
    return render(
        request,
        "auctions/s16/settle.html",
        {"case": case, "account": account, "position": position, "form": form},
    )
