"""The payment's three routes (docs/decisions/0075): the keeper's "pay online" start, which sends
the browser to the gateway; the browser's return, which only shows where the payment stands;
and the gateway's server-to-server callback, the one route (with the sweep) that settles it."""

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from accounts.decorators import require_permission
from accounts.models import District
from accounts.roles import Permission
from accounts.scoping import authorise, has_permission, lookup, visible_district_ids
from accounts.throttle import verify_rate_exceeded
from impounding.selectors import entry_for
from kernel.views import add_service_errors, keyset_page

from . import reconcile as reconciling
from . import refunds, services
from .forms import (
    BankTransferForm,
    DecideRefundForm,
    MatchLineForm,
    OwnerPayForm,
    PrepareRefundForm,
    SetAsideForm,
    StatementUploadForm,
)
from .gateways import BadMessage, GatewayError, gateway
from .models import (
    LineState,
    PayLink,
    Payment,
    PaymentState,
    Refund,
    RefundState,
    StatementLine,
)
from .owner import page as pay_page_of


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
    link = PayLink.objects.filter(impoundment_id=payment.impoundment_id).first()
    return render(request, "payments/returned.html", {"payment": payment, "link": link})


def _callbacks(request):
    return {
        "callback_url": lambda p: request.build_absolute_uri(
            reverse("payments:callback", args=[p.gateway])
        ),
        "return_url": lambda p: request.build_absolute_uri(
            reverse("payments:return", args=[p.token])
        ),
    }


@login_not_required
def pay_page(request, token):
    """The owner's pay page (docs/decisions/0085), by the entry's unguessable token: the dues
    now, the UPI code for them, and "Pay online" through the gateway. An unknown token is a 404;
    many look-ups from one address wait a minute, as /verify/'s do."""
    if verify_rate_exceeded(request):
        return HttpResponse(
            _("Too many checks from this address: try again in a minute."),
            status=429,
            content_type="text/plain; charset=utf-8",
        )
    link = PayLink.objects.select_related("impoundment__pound__district").filter(token=token)
    link = link.first()
    if link is None:
        raise Http404
    entry = link.impoundment
    form = OwnerPayForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            payment, order = services.start_owner_payment(
                entry=entry,
                idempotency_key=form.cleaned_data["idempotency_key"],
                **_callbacks(request),
            )
        except (ValidationError, GatewayError) as exc:
            form.add_error(
                None,
                getattr(
                    exc, "messages", [_("The payment gateway did not answer. Try again later.")]
                )[0],
            )
        else:
            if order is None:  # the same attempt sent again: show where it stands
                return redirect("payments:return", payment.token)
            return render(request, "payments/to_gateway.html", {"payment": payment, "order": order})
    context = {"page": pay_page_of(entry), "form": form, "link": link}
    return render(request, "payments/pay_page.html", context)


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


# --- The bank statement's reconciliation (docs/decisions/0082) ---------------------------------

QUEUE_PAGE = 50


def _districts(user):
    ids = visible_district_ids(user, Permission.PREPARE_ORDERS)
    if not ids:
        raise PermissionDenied
    return District.objects.filter(pk__in=ids).order_by("name")


@require_permission(Permission.PREPARE_ORDERS)
def reconcile(request):
    """The district's accounts staff upload a statement; the open lines wait below."""
    districts = _districts(request.user)
    form = StatementUploadForm(request.POST or None, request.FILES or None, districts=districts)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            statement, new = reconciling.import_statement(
                district=data["district"],
                by=request.user,
                data=data["file"].read(),
                kind=data["kind"],
                bank=data["bank"] if data["kind"] == "csv" else "",
                file_name=data["file"].name,
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            matched = sum(1 for line in new if line.state == LineState.MATCHED)
            messages.success(
                request,
                _("Statement imported: %(new)s new lines, %(matched)s matched to payments.")
                % {"new": len(new), "matched": matched},
            )
            return redirect("payments:reconcile")
    lines, after = keyset_page(
        StatementLine.objects.for_user(request.user, Permission.PREPARE_ORDERS).open(),
        ("value_date", "pk"),
        after=request.GET.get("after"),
        size=QUEUE_PAGE,
    )
    return render(
        request,
        "payments/reconcile.html",
        {"form": form, "lines": lines, "next_cursor": after},
    )


def _line(request, pk):
    return get_object_or_404(
        StatementLine.objects.for_user(request.user, Permission.PREPARE_ORDERS).select_related(
            "statement", "imported_by", "decided_by"
        ),
        pk=pk,
    )


@require_permission(Permission.PREPARE_ORDERS)
def review_line(request, pk):
    """A reviewer, not the importer, matches one open line to a payment, or sets it aside."""
    line = _line(request, pk)
    action = request.POST.get("action") if request.method == "POST" else None
    match_form = MatchLineForm(request.POST if action == "match" else None, prefix="match")
    aside_form = SetAsideForm(request.POST if action == "set_aside" else None, prefix="aside")
    if action:
        line.check_decider(request.user)
        form = match_form if action == "match" else aside_form
        if form.is_valid():
            try:
                if action == "match":
                    reconciling.match_by_hand(line=line, by=request.user, **form.cleaned_data)
                else:
                    reconciling.set_aside(line=line, by=request.user, **form.cleaned_data)
            except ValidationError as exc:
                add_service_errors(form, exc)
            else:
                messages.success(request, _("The line is settled."))
                return redirect("payments:reconcile")
    return render(
        request,
        "payments/review_line.html",
        {
            "line": line,
            "candidates": reconciling.candidates(line) if line.is_open else [],
            "may_decide": line.may_be_decided_by(request.user),
            "match_form": match_form,
            "aside_form": aside_form,
        },
    )


# --- Refunds (docs/decisions/0083): the office prepares, another person approves ----------------

REFUND_RELATED = ("payment__impoundment__pound", "prepared_by", "decided_by")
REFUNDS_PAGE = 50  # rows of each list of the refunds page, paged by keyset
OPEN_REFUNDS = (RefundState.PREPARED, RefundState.PENDING)


def _refund_lists(user, params):
    """The page's three lists, each one page from its own cursor ("<list>_after" in
    `params`): [(key, rows, next cursor)]."""
    seen = Refund.objects.for_user(user, Permission.PREPARE_ORDERS).select_related(*REFUND_RELATED)
    waiting = (
        Payment.objects.for_user(user, Permission.PREPARE_ORDERS)
        .filter(state=PaymentState.SUCCEEDED)
        .select_related("impoundment__pound")
    )
    lists = {
        "open": (seen.filter(state__in=OPEN_REFUNDS), ("-prepared_at", "-pk")),
        "refundable": (waiting, ("-created_at", "-pk")),
        "done": (seen.exclude(state__in=OPEN_REFUNDS), ("-prepared_at", "-pk")),
    }
    return {
        key: keyset_page(qs, order, after=params.get(f"{key}_after"), size=REFUNDS_PAGE)
        for key, (qs, order) in lists.items()
    }


@require_permission(Permission.PREPARE_ORDERS)
def refund_list(request):
    """The refunds awaiting approval or the gateway, those decided, and the payments the
    gateway confirmed that no release has taken (each may be refunded), each list paged by
    keyset, newest first."""
    lists = _refund_lists(request.user, request.GET)
    context = {key: rows for key, (rows, _cursor) in lists.items()}
    context |= {f"{key}_next": cursor for key, (_rows, cursor) in lists.items()}
    context["paged"] = any(k.endswith("_after") for k in request.GET)
    return render(request, "payments/refunds.html", context)


@require_permission(Permission.PREPARE_ORDERS)
def refund_prepare(request, pk):
    payment = lookup(
        request.user,
        Payment.objects.select_related("impoundment__pound"),
        pk,
    )
    authorise(request.user, Permission.PREPARE_ORDERS, payment.impoundment.pound)
    bank = not refunds.by_gateway(payment)
    form = PrepareRefundForm(request.POST or None, bank=bank)
    if form.is_valid():
        try:
            refund = refunds.prepare_refund(payment=payment, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("Refund prepared: another officer must approve it."))
            return redirect("payments:refund", refund.pk)
    context = {"payment": payment, "form": form, "bank": bank}
    return render(request, "payments/refund_prepare.html", context)


def _decision_form(request, refund):
    """The checker's form, for an officer who may approve and did not prepare; or None."""
    may_decide = (
        refund.state == RefundState.PREPARED
        and has_permission(request.user, Permission.APPROVE, refund.payment.impoundment.pound)
        and refund.prepared_by_id != request.user.pk
    )
    return DecideRefundForm(request.POST or None) if may_decide else None


def _decide(request, refund, form):
    decide = (
        refunds.approve_refund
        if form.cleaned_data["decision"] == "approve"
        else refunds.decline_refund
    )
    return decide(refund=refund, by=request.user)


def _record_transfer(request, refund, form):
    return refunds.record_bank_transfer(refund=refund, by=request.user, **form.cleaned_data)


@require_permission(Permission.PREPARE_ORDERS)
def refund_detail(request, pk):
    """A refund, and the next step on it: the checker's decision, or, for an approved refund by
    bank transfer, the bank's UTR once the bank has paid. The payer's account number is shown
    whole only while someone must check it or send the money."""
    refund = lookup(request.user, Refund.objects.select_related(*REFUND_RELATED), pk)
    form, act = _decision_form(request, refund), _decide
    if form is None and refund.by_bank and refund.state == RefundState.PENDING:
        form, act = BankTransferForm(request.POST or None), _record_transfer
    if request.method == "POST" and form is None:
        raise PermissionDenied
    if form is not None and form.is_valid():
        try:
            refund = act(request, refund, form)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, refund.state_label)
            return redirect("payments:refund", refund.pk)
    context = {
        "refund": refund,
        "form": form,
        "events": refund.events.select_related("by"),
        "account_whole": refund.state in OPEN_REFUNDS,
    }
    return render(request, "payments/refund_detail.html", context)
