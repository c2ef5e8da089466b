"""Device tokens' screens (docs/decisions/0074): a keeper pairs the phone in hand with the
field app; the district administrator lists the district's paired phones and revokes one."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from kernel.views import add_service_errors

from . import device_tokens
from .decorators import require_permission
from .forms import PairDeviceForm
from .roles import Permission


@require_permission(Permission.RECORD_IMPOUNDMENT)
def pair(request):
    """Pair this phone: a device token for the keeper's pound, handed to the field app once
    (the page keeps it in the app's store, ADR 0073), its secret never shown again."""
    pound = device_tokens.pairing_pound(request.user)
    form = PairDeviceForm(request.POST or None)
    device = None
    if pound is not None and request.method == "POST" and form.is_valid():
        try:
            _token, secret = device_tokens.pair_device(
                user=request.user,
                label=form.cleaned_data["label"],
                idempotency_key=form.cleaned_data["idempotency_key"],
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            if secret is None:  # the same form again: the token went to the phone the first time
                messages.info(request, _("This phone was already paired with that form."))
                return redirect("accounts:pair_device")
            device = {"token": secret, "api": reverse("api:index"), "pound": pound}
    return render(
        request,
        "accounts/pair_device.html",
        {"form": form, "device": device, "may_pair": pound is not None},
    )


@require_permission(device_tokens.MANAGE)
def device_tokens_list(request):
    """Every paired phone of the district: its pound, keeper, last sync, expiry and state."""
    return render(
        request,
        "accounts/device_tokens.html",
        {"tokens": device_tokens.district_device_tokens(request.user)},
    )


@require_permission(device_tokens.MANAGE)
def device_token_revoke(request, pk):
    """Check, then revoke (POST): the phone's next sync is refused and it asks to pair again.
    Another district's token is a 404; revoking twice changes nothing."""
    token = get_object_or_404(device_tokens.district_device_tokens(request.user), pk=pk)
    if request.method == "POST":
        device_tokens.revoke_device_token(token=token, by=request.user)
        messages.success(
            request,
            _("%(label)s of %(pound)s is unpaired: its next sync is refused.")
            % {"label": token.name, "pound": token.pound},
        )
        return redirect("accounts:device_tokens")
    return render(request, "accounts/device_token_revoke.html", {"token": token})
