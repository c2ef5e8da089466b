"""Claims and releases: on payment (s.13), on deposit (s.15), by court order (s.19, once checked).

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
from kernel.idempotency import replayed_row
from kernel.views import add_service_errors
from payments import services as payments

from .. import services
from ..forms.releases import ClaimForm, ConfirmForm, CourtOrderForm
from ..models import Animal, CourtOrder, Receipt, Release
from .common import get_entry


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


def _claim(request, pk, *, deposit):
    entry = get_entry(request, pk, Permission.RELEASE_ANIMAL)
    made = _replayed(request, entry)
    if made is not None:
        return _done(request, entry, made)
    try:
        animals = services.claimable_animals(entry)
    except services.ReleaseRefused as exc:
        messages.info(request, exc.messages[0])
        return redirect(entry)
    form = ClaimForm(
        request.POST or None,
        animals=animals.choosable(),
        deposit=deposit,
        replaceable=Receipt.objects.replaceable_for(entry),
        # Reached from a cancelled receipt's "issue the corrected receipt" link.
        initial={"replaces": request.GET.get("replaces")},
    )
    template = "impounding/release.html"
    context = {"entry": entry, "form": form, "deposit": deposit}
    if request.method != "POST" or not form.is_valid() or "edit" in request.POST:
        return render(request, template, context)
    data = dict(form.cleaned_data)
    chosen = [a.pk for a in data.pop("animals")]
    try:
        statement = services.release_statement(entry=entry, animal_ids=chosen)
    except services.ReleaseRefused as exc:
        add_service_errors(form, exc)
        return render(request, template, context)
    confirm = ConfirmForm(
        request.POST if "confirm" in request.POST else None,
        initial={"idempotency_key": uuid.uuid4(), "amount": statement.dues.total},
    )
    context |= {
        "statement": statement.dues,
        "confirm": confirm,
        "chosen": statement.animals,
        "answers": form.cleaned_data,
    }
    # A payment the gateway confirmed is what this release takes (docs/decisions/0075).
    # Dues grown since it was paid are topped up at the till (docs/decisions/0085).
    paid, top_up = (None, None) if deposit else payments.top_up(entry, statement.dues.total)
    context |= {"paid_online": paid, "top_up": top_up if paid else None}
    if "confirm" not in request.POST or not confirm.is_valid():
        return render(request, "impounding/release_check.html", context)
    service = services.release_on_deposit if deposit else services.release_on_payment
    online = {} if deposit else {"payment": paid}
    try:
        release = service(
            entry=entry,
            by=request.user,
            animal_ids=[a.pk for a in statement.animals],
            idempotency_key=confirm.cleaned_data["idempotency_key"],
            amount_tendered=confirm.cleaned_data["amount"],
            signature=confirm.cleaned_data["signature_data"],
            **online,
            **data,
        )
    except services.ReleaseRefused as exc:
        return _refused(request, exc, context, template)
    return _done(request, entry, release)


def _refused(request, exc, context, template):
    """The confirmation refused: each reason back to the step where it can be put right."""
    named = getattr(exc, "message_dict", {})
    if "signature" in named:
        # Unsigned: back to the signature on the check page, not to page 1.
        for message in named["signature"]:
            context["confirm"].add_error("signature_data", message)
        return render(request, "impounding/release_check.html", context)
    if "amount" in named:
        # The dues moved on (midnight passed, say): show the new figure to check again.
        context["confirm"] = ConfirmForm(
            initial={"idempotency_key": uuid.uuid4(), "amount": context["statement"].total}
        )
        for message in named["amount"]:
            messages.error(request, message)
        return render(request, "impounding/release_check.html", context)
    add_service_errors(context["form"], exc)
    return render(request, template, context)


@require_permission(Permission.RELEASE_ANIMAL)
def release(request, pk):
    return _claim(request, pk, deposit=False)


@require_permission(Permission.RELEASE_ANIMAL)
def deposit(request, pk):
    return _claim(request, pk, deposit=True)


@require_permission(Permission.RELEASE_ANIMAL)
def court_order(request, pk):
    entry = get_entry(request, pk, Permission.RELEASE_ANIMAL)
    # The same form sent again: its animals are named in it, so show the order it recorded.
    made = replayed_row(request, CourtOrder, impoundment=entry, recorded_by=request.user)
    if made is not None:
        return _ordered(request, entry, made)
    animals = Animal.objects.claimable_in(entry)
    form = CourtOrderForm(request.POST or None, request.FILES or None, animals=animals)
    if form.is_valid():
        data = dict(form.cleaned_data)
        chosen = data.pop("animals")
        try:
            order = services.record_court_order(
                entry=entry, by=request.user, animal_ids=[a.pk for a in chosen], **data
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            return _ordered(request, entry, order)
    return render(request, "impounding/court_order.html", {"entry": entry, "form": form})


def _ordered(request, entry, order):
    messages.success(
        request,
        _(
            "Order of %(court)s, case %(case)s, recorded. The animals stay in the pound until "
            "the District Magistrate's office has checked it."
        )
        % {"court": order.court, "case": order.case_number},
    )
    return redirect(entry)
