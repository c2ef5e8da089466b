"""The District Magistrate's disposal orders under the proviso to s.14: cattle unlikely to fetch a
fair price at auction are disposed of as he thinks fit. The office prepares the order; the
Magistrate approves it or not."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Exists, OuterRef, prefetch_related_objects
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import has_permission, visible_pound_ids
from impounding.models import Animal, AnimalState
from kernel.idempotency import replayed_row
from kernel.views import add_service_errors

from .. import services
from ..forms.disposal import DecisionForm, DisposalForm
from ..models import DisposalOrder, DisposalTerms, Gaushala, Handover, Lot, LotAnimal, Report
from ..selectors import DISPOSAL_LISTS, list_pages
from ..services import gaushala as gaushalas
from ..services.routes import modes_allowed


def _orders(user):
    return DisposalOrder.objects.for_user(user).select_related("pound", "prepared_by", "decided_by")


@require_permission(Permission.VIEW_RECORDS)
def disposals(request):
    only = request.GET.get("list")
    only = only if only in DISPOSAL_LISTS else None
    pages = list_pages(
        _orders(request.user), DISPOSAL_LISTS, only=only, after=request.GET.get("after")
    )
    orders = [o for page in pages for o in page.rows]
    prefetch_related_objects(orders, "animals__impoundment")
    approve_in = set(visible_pound_ids(request.user, Permission.APPROVE))
    # A handover approved has its certificate, signed by the body on receipt (ADR 0070).
    certified = dict(
        Handover.objects.filter(order__in=orders, certificate__isnull=False).values_list(
            "order_id", "gaushala_id"
        )
    )
    for order in orders:
        order.certified = order.pk in certified
        order.held_by = certified.get(order.pk)  # the body's animals, to record a death
        order.can_decide = (
            order.status == DisposalOrder.Status.PROPOSED and order.pound_id in approve_in
        )
    return render(
        request,
        "auctions/disposal/list.html",
        {
            "lists": pages,
            **{page.key: page.rows for page in pages},
            "only": only,
            "is_first_page": not request.GET.get("after"),
            "can_prepare": has_permission(request.user, Permission.PREPARE_ORDERS),
        },
    )


def disposable_animals(user):
    """Animals reported unclaimed (s.14), or calves of a reported dam, still in a pound where the
    user prepares orders, and in no order awaiting the Magistrate. A calf goes with its dam.
    Found by key in two steps: the animals in custody (what is open) with their dams, then the
    report rows naming any of them. As two EXISTS under an OR, the planner hashed every report
    row ever written, a read that grew with the history."""
    custody = (
        Animal.objects.for_user(user, Permission.PREPARE_ORDERS)
        .in_custody()
        .exclude(dam__state=AnimalState.IMPOUNDED)
    )
    pairs = list(custody.values_list("pk", "dam_id"))
    keys = {pk for pk, _dam in pairs} | {dam for _pk, dam in pairs if dam}
    # The report's link table alone (as auctions.clocks.reports_due): whether a report names
    # the animal, or its dam, without reading the reports.
    named = set(
        Report.animals.through.objects.filter(animal_id__in=keys).values_list(
            "animal_id", flat=True
        )
    )
    reported = [pk for pk, dam in pairs if pk in named or dam in named]
    unsold = LotAnimal.objects.filter(animal=OuterRef("pk"), lot__status=Lot.Status.UNSOLD)
    pending = DisposalOrder.objects.filter(
        animals=OuterRef("pk"), status=DisposalOrder.Status.PROPOSED
    )
    return (
        Animal.objects.filter(pk__in=reported)
        .annotate(was_unsold=Exists(unsold), pending=Exists(pending))
        .filter(pending=False)
        .select_related("impoundment__pound")
        .order_by("impoundment__pound__name", "impoundment__arrived_at", "number")
    )


def one_pound(request, animals, lot_id=None):
    """An order covers one pound's animals (the form's rule): the animals offered are those of
    the pound chosen with ?pound= (kept on the form's POST, which goes to the same address), or
    of the lot's pound, or of the first pound by name that has any. A State's office holds
    hundreds of reported animals over its pounds; a pound holds tens. Returns the animals,
    the pounds that have any (each with its `animal_count`) and the one chosen: two queries."""
    counts = dict(animals.order_by().values_list("pound_id").annotate(n=Count("pk")))
    pounds = sorted(Pound.objects.in_bulk(counts).values(), key=lambda p: (p.label, p.pk))
    for pound in pounds:
        pound.animal_count = counts[pound.pk]
    ids = {str(pk): pk for pk in counts}
    chosen = ids.get(request.GET.get("pound", ""))
    if chosen is None and lot_id:
        chosen = animals.filter(lots__pk=lot_id).values_list("pound_id", flat=True).first()
    if chosen is None and pounds:
        chosen = pounds[0].pk
    return animals.filter(pound_id=chosen), pounds, chosen


@require_permission(Permission.PREPARE_ORDERS)
def disposal_new(request):
    # The same form sent again: its animals may be offered no more, so show what it prepared.
    made = replayed_row(request, DisposalOrder, prepared_by=request.user)
    if made is not None:
        return _prepared(request, made)
    lot_id = request.GET.get("lot")
    lot_id = lot_id if lot_id and lot_id.isdigit() else None
    animals, pounds, chosen = one_pound(request, disposable_animals(request.user), lot_id)
    initial = {}
    if lot_id:
        initial["animals"] = list(animals.filter(lots__pk=lot_id).values_list("pk", flat=True))
    form = DisposalForm(
        request.POST or None, animals=animals, initial=initial, modes=modes_allowed(animals)
    )
    if form.is_valid():
        data = form.cleaned_data
        chosen = list(data["animals"])
        calves = Animal.objects.calves_of(chosen)
        try:
            order = services.propose_disposal(
                pound=chosen[0].impoundment.pound,
                animal_ids=[a.pk for a in chosen] + [c.pk for c in calves],
                by=request.user,
                reason=data["reason"],
                mode=data["mode"],
                recipient=data["recipient"],
                terms=form.terms(),
                idempotency_key=data["idempotency_key"],
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            return _prepared(request, order)
    # Where the district keeps a register of gaushalas, a handover is made from it (ADR 0070).
    register = (
        Gaushala.objects.for_user(request.user, Permission.PREPARE_ORDERS)
        .filter(active=True, kind=Gaushala.Kind.GAUSHALA)
        .exists()
    )
    return render(
        request,
        "auctions/disposal/new.html",
        {"form": form, "register": register, "pounds": pounds, "chosen": chosen},
    )


def _prepared(request, order):
    messages.success(
        request,
        _("Disposal order %(number)s prepared for the Magistrate's approval.")
        % {"number": order.number},
    )
    return redirect("auctions:disposals")


@require_permission(Permission.APPROVE)
def disposal_decide(request, pk):
    order = get_object_or_404(_orders(request.user), pk=pk)
    if not has_permission(request.user, Permission.APPROVE, order.pound):
        raise PermissionDenied
    order.check_decider(request.user)
    form = DecisionForm(request.POST or None)
    if form.is_valid():
        try:
            # A handover to a body of the register: its capacity, dues and certificate too.
            decide = gaushalas.decide_handover if _is_handover(order) else services.decide_disposal
            order = decide(order=order, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Disposal order %(number)s: %(status)s.")
                % {"number": order.number, "status": order.get_status_display()},
            )
            return redirect("auctions:disposals")
    animals = order.animals.select_related("impoundment").order_by("impoundment_id", "number")
    return render(
        request,
        "auctions/disposal/decide.html",
        {
            "order": order,
            "terms": DisposalTerms.objects.filter(order=order).first(),
            "handover": Handover.objects.filter(order=order).select_related("gaushala").first(),
            "animals": animals,
            "form": form,
        },
    )


def _is_handover(order):
    return Handover.objects.filter(order=order).exists()
