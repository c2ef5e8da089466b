"""Receipt cancellation (docs/domain.md decision 11): the keeper asks, the office decides."""

import uuid

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.roles import Permission
from accounts.scoping import has_permission
from kernel.views import add_service_errors

from .. import services
from ..models import Receipt, ReceiptCancellation, Release


class AskCancellationForm(forms.Form):
    # Made once with the form: sending it twice asks once (see ask_receipt_cancellation).
    idempotency_key = forms.UUIDField(widget=forms.HiddenInput, initial=uuid.uuid4)
    reason = forms.CharField(
        label=gettext_lazy("Why was the receipt issued in error?"),
        max_length=250,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class DecideCancellationForm(forms.Form):
    approve = forms.TypedChoiceField(
        label=gettext_lazy("Decision"),
        choices=[
            ("true", gettext_lazy("Cancel the receipt")),
            ("false", gettext_lazy("Refuse: the receipt stands")),
        ],
        coerce=lambda v: v == "true",
        widget=forms.RadioSelect,
    )
    note = forms.CharField(label=gettext_lazy("Note"), max_length=250, required=False)


def _entry_url(receipt):
    release = Release.objects.only("impoundment_id").get(receipt=receipt)
    return redirect("impounding:entry", release.impoundment_id)


def receipt_cancel(request, pk):
    receipt = get_object_or_404(Receipt.objects.for_user(request.user), pk=pk)
    if not has_permission(request.user, Permission.PAY_FROM_TILL, receipt.pound):
        raise PermissionDenied
    form = AskCancellationForm(request.POST or None)
    if form.is_valid():
        try:
            services.ask_receipt_cancellation(receipt=receipt, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(
                request,
                _("Cancellation of receipt %(number)s sent to the office.")
                % {"number": receipt.number},
            )
            return _entry_url(receipt)
    return render(request, "impounding/receipt_cancel.html", {"receipt": receipt, "form": form})


def receipt_cancellation_decide(request, pk):
    cancellation = get_object_or_404(
        ReceiptCancellation.objects.for_user(request.user).select_related(
            "receipt__pound", "requested_by"
        ),
        pk=pk,
    )
    receipt = cancellation.receipt
    if not has_permission(request.user, Permission.PREPARE_ORDERS, receipt.pound):
        raise PermissionDenied
    cancellation.check_decider(request.user)
    form = DecideCancellationForm(request.POST or None)
    if form.is_valid():
        try:
            services.decide_receipt_cancellation(
                cancellation=cancellation, by=request.user, **form.cleaned_data
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(
                request,
                _("Receipt %(number)s: the decision is recorded.") % {"number": receipt.number},
            )
            return _entry_url(receipt)
    return render(
        request,
        "impounding/receipt_cancellation_decide.html",
        {"cancellation": cancellation, "receipt": receipt, "form": form},
    )
