"""Claims and releases: on payment (s.13), on deposit (s.15), by court order (s.19).

A release is two steps. Step 1 takes the answers; step 2 shows them with the dues computed now
("check your answers") and a single-use key. Only step 2's confirmation moves money, and
confirming twice (a double click, a replayed POST) returns the release already made.
"""

import uuid

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.roles import Permission
from kernel.confirmations import show_panel
from kernel.views import add_service_errors

from .. import services
from ..dues import dues
from ..forms.releases import ClaimForm, ConfirmForm, CourtOrderForm
from ..models import AnimalState, Receipt, Release
from ..tariffs import TariffMissing
from .common import get_entry


def _claimable(entry):
    return (
        entry.animals.in_custody()
        .select_related("impoundment__pound__district")
        .prefetch_related("custody_events")
        .order_by("number")
    )


def _done(request, entry, release):
    number = release.receipt.number
    if release.kind == Release.Kind.PAYMENT:
        title = _("Released on payment. Receipt %(number)s.") % {"number": number}
        label = _("Print the receipt (PDF)")
    else:
        title = _("Released on deposit. Deposit receipt %(number)s.") % {"number": number}
        label = _("Print the deposit receipt (PDF)")
    show_panel(
        request,
        title=title,
        reference=number,
        document_url=reverse("impounding:receipt_pdf", args=[release.receipt_id]),
        document_label=label,
    )
    return redirect(f"{entry.get_absolute_url()}#receipt-{release.receipt_id}")


def _replayed(request, entry):
    """The release a confirmation sent twice (a double click, a reload) already made."""
    key = request.POST.get("idempotency_key") if "confirm" in request.POST else None
    if not key:
        return None
    try:
        return entry.releases.select_related("receipt").filter(idempotency_key=key).first()
    except ValidationError:
        return None


def _replaceable(entry):
    """The entry's cancelled payment receipts that no corrected receipt replaces yet."""
    return Receipt.objects.filter(
        release__impoundment=entry,
        kind=Receipt.Kind.PAYMENT,
        cancelled_at__isnull=False,
        replaced_by__isnull=True,
    ).order_by("serial")


def _claim(request, pk, *, deposit):
    entry = get_entry(request, pk, Permission.RELEASE_ANIMAL)
    made = _replayed(request, entry)
    if made is not None:
        return _done(request, entry, made)
    animals = _claimable(entry)
    # A calf born in the pound is not chosen on its own: it goes with its dam.
    form = ClaimForm(
        request.POST or None,
        animals=animals.exclude(dam__state=AnimalState.IMPOUNDED),
        deposit=deposit,
        replaceable=_replaceable(entry),
        # Reached from a cancelled receipt's "issue the corrected receipt" link.
        initial={"replaces": request.GET.get("replaces")},
    )
    template = "impounding/release.html"
    context = {"entry": entry, "form": form, "deposit": deposit}
    if not animals:
        messages.info(request, _("No animal of this entry is in the pound."))
        return redirect(entry)
    if request.method != "POST" or not form.is_valid() or "edit" in request.POST:
        return render(request, template, context)
    chosen = list(form.cleaned_data["animals"])
    chosen += [a for a in animals if a.dam_id in {c.pk for c in chosen} and a not in chosen]
    try:
        statement = dues(chosen)
    except TariffMissing as exc:
        form.add_error(None, exc.messages[0])
        return render(request, template, context)
    confirm = ConfirmForm(
        request.POST if "confirm" in request.POST else None,
        initial={"idempotency_key": uuid.uuid4(), "amount": statement.total},
    )
    context |= {
        "statement": statement,
        "confirm": confirm,
        "chosen": chosen,
        "answers": form.cleaned_data,
    }
    if "confirm" not in request.POST:
        return render(request, "impounding/release_check.html", context)
    if not confirm.is_valid():
        return render(request, "impounding/release_check.html", context)
    data = dict(form.cleaned_data)
    data.pop("animals")
    data["owner_name"] = data["owner_name"] or data["claimant_name"]
    service = services.release_on_deposit if deposit else services.release_on_payment
    try:
        release = service(
            entry=entry,
            by=request.user,
            animal_ids=[a.pk for a in chosen],
            idempotency_key=confirm.cleaned_data["idempotency_key"],
            amount_tendered=confirm.cleaned_data["amount"],
            signature=confirm.cleaned_data["signature_data"],
            **data,
        )
    except ValidationError as exc:
        if "signature" in getattr(exc, "message_dict", {}):
            # Unsigned: back to the signature on the check page, not to page 1 (issue 12).
            for message in exc.message_dict["signature"]:
                confirm.add_error("signature_data", message)
            return render(request, "impounding/release_check.html", context)
        if "amount" in getattr(exc, "message_dict", {}):
            # The dues moved on (midnight passed, say): show the new figure to check again.
            context["confirm"] = ConfirmForm(
                initial={"idempotency_key": uuid.uuid4(), "amount": statement.total}
            )
            for message in exc.message_dict["amount"]:
                messages.error(request, message)
            return render(request, "impounding/release_check.html", context)
        add_service_errors(form, exc)
        return render(request, template, context)
    return _done(request, entry, release)


@require_permission(Permission.RELEASE_ANIMAL)
def release(request, pk):
    return _claim(request, pk, deposit=False)


@require_permission(Permission.RELEASE_ANIMAL)
def deposit(request, pk):
    return _claim(request, pk, deposit=True)


@require_permission(Permission.RELEASE_ANIMAL)
def court_order(request, pk):
    entry = get_entry(request, pk, Permission.RELEASE_ANIMAL)
    animals = _claimable(entry)
    form = CourtOrderForm(request.POST or None, request.FILES or None, animals=animals)
    if form.is_valid():
        data = dict(form.cleaned_data)
        chosen = data.pop("animals")
        try:
            services.release_by_order(
                entry=entry, by=request.user, animal_ids=[a.pk for a in chosen], **data
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Released by order of %(court)s, case %(case)s.")
                % {"court": data["court"], "case": data["case_number"]},
            )
            return redirect(entry)
    return render(request, "impounding/court_order.html", {"entry": entry, "form": form})
