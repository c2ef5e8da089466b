"""The screens of the gaushala handover (ADR 0070): the district's register of bodies, the
handover order (prepared by the office, approved by the Magistrate through the disposal
orders' decision screen), its certificate, and the monthly upkeep claims."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.models import District, IssuedDocument
from accounts.roles import Permission
from accounts.scoping import has_permission, visible_district_ids
from kernel.documents import pdf_response
from kernel.idempotency import replayed_row
from kernel.views import add_service_errors, keyset_page

from .. import documents
from ..forms.gaushala import (
    ClaimDecisionForm,
    ClaimForm,
    GaushalaEditForm,
    GaushalaForm,
    HandoverForm,
    HoldingEndForm,
    PaymentForm,
)
from ..models import HOLDING_MOVES, DisposalOrder, Gaushala, Handover, HoldingEnd, UpkeepClaim
from ..selectors import LIST_SIZE
from ..services import gaushala as services
from ..services import gaushala_holding as holding
from ..services import gaushala_recovery as recovery
from .disposal import disposable_animals, one_pound

BODY_ORDER = ("name", "pk")
CLAIM_ORDER = ("-month", "-pk")
ESCAPED_ORDER = ("on", "pk")  # oldest escape first
OVERPAID_ORDER = ("recorded_at", "pk")  # oldest over-payment first


def _bodies(user, perm=None):
    return Gaushala.objects.for_user(user, perm)


@require_permission(Permission.VIEW_RECORDS)
def gaushalas(request):
    qs = _bodies(request.user).select_related("district").annotate(held=holding.held_count())
    rows, cursor = keyset_page(qs, BODY_ORDER, after=request.GET.get("after"), size=LIST_SIZE)
    return render(
        request,
        "auctions/gaushala/list.html",
        {
            "bodies": rows,
            "next_cursor": cursor,
            "is_first_page": not request.GET.get("after"),
            "can_manage": has_permission(request.user, Permission.MANAGE_TARIFFS),
            "can_prepare": has_permission(request.user, Permission.PREPARE_ORDERS),
        },
    )


def _district_to_manage(user):
    """The district whose register the user keeps: the DM's office keeps one district's."""
    ids = visible_district_ids(user, Permission.MANAGE_TARIFFS)
    if len(ids) != 1:
        raise PermissionDenied
    return District.objects.get(pk=next(iter(ids)))


@require_permission(Permission.MANAGE_TARIFFS)
def gaushala_new(request):
    made = replayed_row(request, Gaushala, added_by=request.user)
    if made is not None:
        return redirect("auctions:gaushalas")
    district = _district_to_manage(request.user)
    form = GaushalaForm(request.POST or None)
    if form.is_valid():
        fields = {k: v for k, v in form.cleaned_data.items() if k != "idempotency_key"}
        try:
            body = services.register_gaushala(
                district=district,
                by=request.user,
                idempotency_key=form.cleaned_data["idempotency_key"],
                **fields,
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("%(name)s added to the register.") % {"name": body.name})
            return redirect("auctions:gaushalas")
    return render(request, "auctions/gaushala/form.html", {"form": form, "body": None})


@require_permission(Permission.MANAGE_TARIFFS)
def gaushala_edit(request, pk):
    body = get_object_or_404(_bodies(request.user), pk=pk)
    if not has_permission(request.user, Permission.MANAGE_TARIFFS, body.district):
        raise PermissionDenied
    form = GaushalaEditForm(request.POST or None, instance=body)
    if form.is_valid():
        fields = dict(form.cleaned_data)
        try:
            services.amend_gaushala(gaushala=body, by=request.user, **fields)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("%(name)s amended.") % {"name": body.name})
            return redirect("auctions:gaushalas")
    return render(request, "auctions/gaushala/form.html", {"form": form, "body": body})


@require_permission(Permission.PREPARE_ORDERS)
def handover_new(request):
    made = replayed_row(request, DisposalOrder, prepared_by=request.user)
    if made is not None:
        return _prepared(request, made)
    bodies = _bodies(request.user, Permission.PREPARE_ORDERS).filter(active=True)
    animals, pounds, chosen = one_pound(request, disposable_animals(request.user))
    form = HandoverForm(request.POST or None, bodies=bodies, animals=animals)
    if form.is_valid():
        data = form.cleaned_data
        chosen = list(data["animals"])
        try:
            order = services.propose_handover(
                pound=chosen[0].impoundment.pound,
                gaushala_id=data["gaushala"].pk,
                animal_ids=[a.pk for a in chosen],
                by=request.user,
                reason=data["reason"],
                idempotency_key=data["idempotency_key"],
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            return _prepared(request, order)
    return render(
        request,
        "auctions/gaushala/handover_new.html",
        {"form": form, "pounds": pounds, "chosen": chosen},
    )


def _prepared(request, order):
    messages.success(
        request,
        _("Handover order %(number)s prepared for the Magistrate's approval.")
        % {"number": order.number},
    )
    return redirect("auctions:disposals")


@require_permission(Permission.VIEW_RECORDS)
def handover_certificate_pdf(request, pk):
    """The certificate of handover the receiving body signs; none before the approval (404)."""
    handover = get_object_or_404(
        Handover.objects.filter(
            order__in=DisposalOrder.objects.for_user(request.user), certificate__isnull=False
        ).select_related("order__pound", "certificate"),
        order_id=pk,
    )
    if not has_permission(request.user, Permission.VIEW_RECORDS, handover.order.pound):
        raise PermissionDenied
    pdf = IssuedDocument.objects.kept_pdf(
        handover.certificate, lambda: documents.handover_certificate_pdf(handover)
    )
    name = handover.certificate.number.replace("/", "-")
    return pdf_response(pdf, f"handover-certificate-{name}.pdf")


# --- Upkeep claims -----------------------------------------------------------------------------


def _claims(user):
    return (
        UpkeepClaim.objects.for_user(user)
        .select_related("gaushala__district", "prepared_by", "decided_by")
        .annotate(overpaid=recovery.overpaid_on())
    )


@require_permission(Permission.VIEW_RECORDS)
def claims(request):
    rows, cursor = keyset_page(
        _claims(request.user), CLAIM_ORDER, after=request.GET.get("after"), size=LIST_SIZE
    )
    for claim in rows:
        district = claim.gaushala.district
        claim.can_decide = claim.status == "proposed" and has_permission(
            request.user, Permission.APPROVE, district
        )
        claim.can_pay = claim.status == "approved" and has_permission(
            request.user, Permission.PREPARE_ORDERS, district
        )
    return render(
        request,
        "auctions/gaushala/claims.html",
        {
            "claims": rows,
            "next_cursor": cursor,
            "is_first_page": not request.GET.get("after"),
            "can_prepare": has_permission(request.user, Permission.PREPARE_ORDERS),
        },
    )


@require_permission(Permission.PREPARE_ORDERS)
def claim_new(request):
    made = replayed_row(request, UpkeepClaim, prepared_by=request.user)
    if made is not None:
        return redirect("auctions:upkeep_claims")
    form = ClaimForm(request.POST or None, bodies=_bodies(request.user, Permission.PREPARE_ORDERS))
    if form.is_valid():
        data = form.cleaned_data
        try:
            claim = services.prepare_claim(
                gaushala=data["gaushala"],
                month=data["month"],
                animal_days_claimed=data["animal_days"],
                by=request.user,
                idempotency_key=data["idempotency_key"],
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Upkeep claim %(number)s prepared for the Magistrate's approval.")
                % {"number": claim.number},
            )
            return redirect("auctions:upkeep_claims")
    return render(request, "auctions/gaushala/claim_new.html", {"form": form})


@require_permission(Permission.APPROVE)
def claim_decide(request, pk):
    claim = get_object_or_404(_claims(request.user), pk=pk)
    if not has_permission(request.user, Permission.APPROVE, claim.gaushala.district):
        raise PermissionDenied
    claim.check_decider(request.user)
    if request.method == "POST" and _done_by(claim, request.user, "decided_by_id"):
        return _replayed(request, claim)  # the same decision sent again: its result, not an error
    form = ClaimDecisionForm(request.POST or None)
    if form.is_valid():
        try:
            services.decide_claim(claim=claim, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("Upkeep claim %(number)s decided.") % {"number": claim})
            return redirect("auctions:upkeep_claims")
    context = {"claim": claim, "form": form, **recovery.claim_lines(claim)}
    return render(request, "auctions/gaushala/claim_decide.html", context)


@require_permission(Permission.PREPARE_ORDERS)
def claim_pay(request, pk):
    claim = get_object_or_404(_claims(request.user), pk=pk)
    if not has_permission(request.user, Permission.PREPARE_ORDERS, claim.gaushala.district):
        raise PermissionDenied
    if request.method == "POST" and _done_by(claim, request.user, "paid_by_id"):
        return _replayed(request, claim)  # the same payment sent again: its result, not an error
    form = PaymentForm(request.POST or None)
    if form.is_valid():
        try:
            services.pay_claim(claim=claim, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("Upkeep claim %(number)s paid.") % {"number": claim})
            return redirect("auctions:upkeep_claims")
    return render(request, "auctions/gaushala/claim_pay.html", {"claim": claim, "form": form})


def _done_by(claim, user, field):
    """Whether `user` already made this step of the claim (a form sent twice, a reload)."""
    return getattr(claim, field) == user.pk


def _replayed(request, claim):
    messages.info(request, _("Upkeep claim %(number)s: already recorded.") % {"number": claim})
    return redirect("auctions:upkeep_claims")


# --- Deaths and transfers ----------------------------------------------------------------------


@require_permission(Permission.VIEW_RECORDS)
def held_animals(request):
    """The animals the district's bodies hold now (or one body's, `?body=`), each with the link
    to record its death or transfer; the escapes not yet settled and the over-payments still to
    recover. Each of the three lists pages by keyset from its own cursor (`after`,
    `escaped_after`, `overpaid_after`)."""
    bodies = _bodies(request.user)
    body = None
    if request.GET.get("body", "").isdigit():
        body = get_object_or_404(bodies, pk=request.GET["body"])
        bodies = bodies.filter(pk=body.pk)
    params = request.GET
    animals, cursor = holding.animals_held(bodies, after=params.get("after"), size=LIST_SIZE)
    escaped, escaped_next = keyset_page(
        holding.animals_escaped(bodies),
        ESCAPED_ORDER,
        after=params.get("escaped_after"),
        size=LIST_SIZE,
    )
    overpaid, overpaid_next = keyset_page(
        recovery.open_overpayments(bodies),
        OVERPAID_ORDER,
        after=params.get("overpaid_after"),
        size=LIST_SIZE,
    )
    return render(
        request,
        "auctions/gaushala/animals.html",
        {
            "body": body,
            "animals": animals,
            "overpayments": overpaid,
            "overpaid_next": overpaid_next,
            "escaped": escaped,
            "escaped_next": escaped_next,
            "next_cursor": cursor,
            "is_first_page": not params.get("after"),
            "escaped_paged": bool(params.get("escaped_after")),
            "overpaid_paged": bool(params.get("overpaid_after")),
            "can_prepare": has_permission(request.user, Permission.PREPARE_ORDERS),
        },
    )


@require_permission(Permission.PREPARE_ORDERS)
def holding_end_new(request, pk):
    """Record what became of an animal at the bodies: the moves its state allows (a death, a
    transfer, an escape or a return; after an escape, its recapture)."""
    handover = get_object_or_404(
        Handover.objects.filter(
            order__in=DisposalOrder.objects.for_user(request.user),
            order__status=DisposalOrder.Status.APPROVED,
            order__animals=pk,
        ).select_related("order__pound__district", "gaushala")
    )
    if not has_permission(request.user, Permission.PREPARE_ORDERS, handover.order.pound):
        raise PermissionDenied
    made = replayed_row(request, HoldingEnd, recorded_by=request.user, animal_id=pk)
    if made is not None:
        return _ended(request, made)
    state = holding.standing(handover, pk)[0]
    bodies = Gaushala.objects.filter(district_id=handover.gaushala.district_id, active=True)
    form = HoldingEndForm(request.POST or None, bodies=bodies, kinds=HOLDING_MOVES[state])
    if form.is_valid():
        data = form.cleaned_data
        try:
            end = holding.record_end(
                handover=handover,
                animal_id=pk,
                kind=data["kind"],
                on=data["on"],
                cause=data.get("cause", ""),
                reference=data["reference"],
                to_gaushala_id=data["to_gaushala"].pk if data.get("to_gaushala") else None,
                basis=data.get("basis", ""),
                by=request.user,
                idempotency_key=data["idempotency_key"],
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            return _ended(request, end)
    return render(
        request,
        "auctions/gaushala/holding_end.html",
        {
            "form": form,
            "handover": handover,
            "escaped": state == HoldingEnd.Kind.ESCAPED,
            "final": None if HOLDING_MOVES[state] else holding.refusal(state),
        },
    )


def _ended(request, end):
    if end.kind in (HoldingEnd.Kind.DIED, HoldingEnd.Kind.TRANSFERRED):
        messages.success(request, _("The death or transfer is recorded."))
    else:
        messages.success(request, _("What became of the animal is recorded."))
    return redirect(f"{reverse('auctions:gaushala_animals')}?body={end.gaushala_id}")
