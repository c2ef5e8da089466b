"""The screens of the owners' messages (ADR 0077): the keeper records the owner's phone on an
entry (the intake message goes to it); the administrator lists the registered templates, each
(event, language) with its DLT id (or that its messages are held without one) and what a message
of it costs in SMS, rendered with the longest values its variables may take. In public (ADR
0084): the gateways' delivery reports, and the owner's page to stop the messages or start them
again, proved by a one-time code."""

import logging
import time
from datetime import timedelta

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.crypto import constant_time_compare
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from accounts.decorators import require_permission
from accounts.models import RateCount
from accounts.roles import Permission
from accounts.throttle import hit
from impounding.forms.lost import CODE_REFUSALS, CodeForm
from impounding.selectors import entry_for
from kernel.confirmations import show_panel

from . import dlt, notices, optout, reports, services
from .forms import ContactForm, OptOutForm
from .models import Contact, Event, Template
from .selectors import masked

LONGEST = "W" * dlt.VAR_MAX  # every variable at its longest
SESSION_KEY = "opt_out"
NOT_SENDABLE = gettext_lazy(
    "We cannot send codes by SMS yet. Ask at the pound to stop the messages to your phone."
)
logger = logging.getLogger(__name__)


@require_permission(Permission.MANAGE_STAFF)
def templates(request):
    rows = list(Template.objects.order_by("event", "language"))
    for row in rows:
        longest = services.render(row, dict.fromkeys(row.variables, LONGEST))
        row.event_label = Event(row.event).label
        row.segments = dlt.segments(longest)
        row.unicode = not dlt.is_gsm7(row.text)
    return render(request, "messaging/templates.html", {"templates": rows})


@require_permission(Permission.RECORD_IMPOUNDMENT)
def contact(request, pk):
    """The owner's phone for messages: recorded once per entry and number (the same number sent
    again is the same contact, and its intake message is keyed), in the owner's language."""
    entry = entry_for(request.user, pk, Permission.RECORD_IMPOUNDMENT)
    form = ContactForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            notices.record_contact(
                impoundment=entry,
                number=form.cleaned_data["phone"],
                by=request.user,
                language=form.cleaned_data["language"],
            )
        messages.success(request, _("The owner's phone is recorded; messages will go to it."))
        return redirect("impounding:entry", pk=entry.pk)
    phones = [
        masked(c.phone.number)
        for c in Contact.objects.filter(impoundment=entry).select_related("phone")
    ]
    return render(
        request, "messaging/contact.html", {"entry": entry, "form": form, "phones": phones}
    )


# --- The gateways' delivery reports (ADR 0084) --------------------------------------------------


def _token(request):
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header.removeprefix("Bearer ").strip()
    return request.GET.get("token", "")


def _refusals_key(request):
    return f"dlr-refused:{get_client_ip_address(request)}:{int(time.time() // 60)}"


@login_not_required
@csrf_exempt  # server to server, no cookie: the token is the check, and a call without it is 403
@require_http_methods(["GET", "POST"])
def delivery_report(request, provider):
    """A gateway's report on a message it accepted: GET or POST, in the provider's names
    (messaging.reports). Answered 200 once read, whether or not it changed the message, so that
    the gateway does not push it again; 403 without the token; 429 past the refusals."""
    if provider not in reports.MAPPINGS:
        raise Http404
    key = _refusals_key(request)
    limit = settings.MESSAGING_DLR_REFUSALS_PER_MINUTE
    if RateCount.objects.filter(key=key, count__gte=limit).exists():
        return HttpResponse("Too many refused reports", status=429, content_type="text/plain")
    expected = settings.MESSAGING_DLR_TOKEN
    if not expected or not constant_time_compare(_token(request), expected):
        hit(key, ttl=timedelta(minutes=2))
        return HttpResponse("Forbidden", status=403, content_type="text/plain")
    params = request.POST if request.method == "POST" else request.GET
    try:
        report = reports.read(provider, params)
    except reports.BadReport as error:
        return HttpResponse(str(error), status=400, content_type="text/plain")
    changed = 0
    if report.outcome in (reports.DELIVERED, reports.FAILED):
        changed = services.report_delivery(
            provider_id=report.provider_id,
            delivered=report.outcome == reports.DELIVERED,
            at=report.at,
            channel=provider,
            status=report.status,
        )
    logger.info(
        "Delivery report %s %s %s: %s", provider, report.provider_id, report.status, changed
    )
    return HttpResponse("OK", content_type="text/plain")


# --- The owner's opting out (ADR 0084) -----------------------------------------------------------


def _throttled(request, form, template, exc, context=None):
    if exc.args[0] == "phone":
        form.add_error(None, _("Too many codes sent to this number today. Try tomorrow."))
    else:
        form.add_error(None, _("Too many codes sent. Try again later."))
    return render(request, template, {"form": form, **(context or {})}, status=429)


@login_not_required
@require_http_methods(["GET", "HEAD", "POST"])
def opt_out(request):
    form = OptOutForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        number = form.cleaned_data["phone"]
        try:
            optout.send_code(
                number, address=get_client_ip_address(request), language=get_language()
            )
        except optout.Throttled as exc:
            return _throttled(request, form, "messaging/opt_out.html", exc)
        except optout.NotSendable:
            form.add_error(None, NOT_SENDABLE)
            return render(request, "messaging/opt_out.html", {"form": form}, status=503)
        request.session[SESSION_KEY] = {
            "phone": number,
            "stop": form.cleaned_data["choice"] == "stop",
        }
        return redirect("optout_code")
    return render(request, "messaging/opt_out.html", {"form": form})


@login_not_required
@require_http_methods(["GET", "HEAD", "POST"])
def opt_out_code(request):
    asked = request.session.get(SESSION_KEY)
    if not asked:
        return redirect("optout")
    form = CodeForm(request.POST or None)
    context = {"masked": masked(asked["phone"]), "stop": asked["stop"]}
    if request.method == "POST" and "resend" in request.POST:
        form = CodeForm()
        try:
            address = get_client_ip_address(request)
            optout.send_code(asked["phone"], address=address, language=get_language())
            messages.info(request, _("We sent a new code."))
        except optout.Throttled as exc:
            return _throttled(request, form, "messaging/opt_out_code.html", exc, context)
        except optout.NotSendable:
            form.add_error(None, NOT_SENDABLE)
    elif request.method == "POST" and form.is_valid():
        try:
            phone = optout.check_code(asked["phone"], form.cleaned_data["code"])
        except optout.CodeRefused as exc:
            form.add_error("code", CODE_REFUSALS[exc.reason])
        else:
            optout.choose(phone, stop=asked["stop"])
            request.session.pop(SESSION_KEY, None)
            title = _("Messages stopped") if asked["stop"] else _("Messages started again")
            show_panel(
                request,
                title=title,
                reference=masked(phone.number),
                reference_label=_("Your mobile number"),
            )
            return redirect("optout_done")
    return render(request, "messaging/opt_out_code.html", {"form": form, **context})


@login_not_required
@require_http_methods(["GET", "HEAD"])
def opt_out_done(request):
    return render(request, "messaging/opt_out_done.html")
