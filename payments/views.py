"""The payment's three routes (docs/decisions/0075): the keeper's "pay online" start, which sends
the browser to the gateway; the browser's return, which only shows where the payment stands;
and the gateway's server-to-server callback, the one route (with the sweep) that settles it."""

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from accounts.decorators import require_permission
from accounts.roles import Permission
from impounding.selectors import entry_for

from . import services
from .gateways import BadMessage, GatewayError, gateway
from .models import Payment


@require_permission(Permission.RECORD_PAYMENT)
@require_POST
def start(request, pk):
    entry = entry_for(request.user, pk, Permission.RECORD_PAYMENT)
    try:
        payment, order = services.start_payment(
            entry=entry,
            by=request.user,
            return_url=lambda p: request.build_absolute_uri(
                reverse("payments:return", args=[p.token])
            ),
            callback_url=lambda p: request.build_absolute_uri(
                reverse("payments:callback", args=[p.gateway])
            ),
        )
    except (ValidationError, GatewayError) as exc:
        messages.error(request, getattr(exc, "messages", [str(exc)])[0])
        return redirect(entry)
    return render(request, "payments/to_gateway.html", {"payment": payment, "order": order})


@login_not_required
@csrf_exempt  # the gateway sends the browser back with a POST of its own
def browser_return(request, token):
    """Where the payment stands; the browser's return settles nothing, the callback does."""
    payment = get_object_or_404(Payment.objects.select_related("impoundment"), token=token)
    return render(request, "payments/returned.html", {"payment": payment})


@login_not_required
@csrf_exempt  # server to server: no session, no cookie; the message's signature is the check
@require_POST
def callback(request, name):
    try:
        outcome = gateway(name).verify_callback(request.POST)
        services.hear(outcome, source="callback")
    except (BadMessage, GatewayError):
        return HttpResponseBadRequest("refused", content_type="text/plain")
    return HttpResponse("OK", content_type="text/plain")
