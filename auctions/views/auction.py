"""The District Magistrate's conditions of sale and the public auction itself (ss.14, 16, 19).

Lookups are scoped to the user's jurisdiction (another district's auction is a 404); each action
is checked for its permission (403); each POST makes one service call and redirects. The services
keep the rules: the lawful date, the s.19 bar, one sale per lot.
"""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Exists, OuterRef, Subquery
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.decorators import require_permission
from accounts.models import Pound
from accounts.roles import Permission
from accounts.scoping import has_permission
from impounding.models import Animal
from kernel import clock
from kernel.confirmations import show_panel
from kernel.formatting import inr
from kernel.idempotency import replayed_row
from kernel.views import add_service_errors

from .. import services
from ..forms.auction import (
    AuctionForm,
    BidderForm,
    BidForm,
    CloseForm,
    ConditionsForm,
    LotFormSet,
    OverrideForm,
    SaleForm,
    UnsoldForm,
)
from ..models import Auction, AuctionConditions, Lot, LotAnimal, Notice, Report, S16Case
from ..selectors import AUCTION_LISTS, auction_lots, list_pages, with_lot_counts
from ..services import routes
from ..services.common import before_the_hour
from .sale_common import (
    auction_officers,
    describe_matches,
    get_auction,
    get_bidder,
    get_case,
    get_lot,
    running_account,
)

# --- The District Magistrate's standing orders ------------------------------------------------


@require_permission(Permission.VIEW_RECORDS)
def conditions(request):
    orders = list(
        AuctionConditions.objects.for_user(request.user)
        .select_related("district", "created_by")
        .order_by("district__name", "-valid_from", "-pk")
    )
    days = {}  # each order as of its district's day (ADR 0080): a query per training district
    for o in orders:
        if o.district_id not in days:
            days[o.district_id] = clock.today(o.district)
        o.today = days[o.district_id]
    return render(
        request,
        "auctions/auction/conditions.html",
        {
            "current": [o for o in orders if o.valid_to is None or o.valid_to >= o.today],
            "history": [o for o in orders if o.valid_to is not None and o.valid_to < o.today],
        },
    )


@require_permission(Permission.PREPARE_ORDERS)
def conditions_new(request):
    form = ConditionsForm(request.user, request.POST or None)
    if form.is_valid():
        try:
            order = services.set_auction_conditions(by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request, _("Conditions of sale %(order)s recorded.") % {"order": order}
            )
            return redirect("auctions:conditions")
    return render(request, "auctions/auction/conditions_form.html", {"form": form})


# --- Auctions ---------------------------------------------------------------------------------


@require_permission(Permission.VIEW_RECORDS)
def auctions(request):
    only = request.GET.get("list")
    only = only if only in AUCTION_LISTS else None
    qs = with_lot_counts(Auction.objects.for_user(request.user)).select_related(
        "pound", "officer", "deputy", "s16_case"
    )
    pages = list_pages(qs, AUCTION_LISTS, only=only, after=request.GET.get("after"))
    return render(
        request,
        "auctions/auction/list.html",
        {
            "lists": pages,
            **{page.key: page.rows for page in pages},
            "only": only,
            "is_first_page": not request.GET.get("after"),
            "can_run": has_permission(request.user, Permission.RUN_AUCTION),
        },
    )


def _int_param(request, name):
    value = request.GET.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise Http404 from None


def _source(request):
    """The pound, and the s.16 case or the s.14 report the auction is scheduled from."""
    user, perm = request.user, Permission.RUN_AUCTION
    case_id, report_id = _int_param(request, "case"), _int_param(request, "report")
    pound_id = _int_param(request, "pound")
    case = report = None
    if case_id is not None:
        case = get_case(request, case_id, perm)
        pound = case.pound
    elif report_id is not None:
        report = get_object_or_404(
            Report.objects.for_user(user).select_related("pound__district"), pk=report_id
        )
        pound = report.pound
    elif pound_id is not None:
        pound = get_object_or_404(
            Pound.objects.for_user(user).select_related("district"), pk=pound_id
        )
    else:
        pounds = list(Pound.objects.for_user(user, perm).select_related("district"))
        pound = pounds[0] if len(pounds) == 1 else None
    if pound is not None and not has_permission(user, perm, pound):
        raise PermissionDenied
    return pound, case, report


def _units(pound, case=None):
    """What can be offered, as lots: each animal not yet in an open lot, with the calf born to it
    in the pound. s.14: animals whose notice is posted (or calves of such a dam), each with its
    earliest lawful day of sale. s.16: the case's animals still in the pound."""
    busy = LotAnimal.objects.filter(
        animal=OuterRef("pk"),
        lot__status=Lot.Status.OPEN,
        lot__auction__status=Auction.Status.SCHEDULED,
    )
    animals = Animal.objects.in_custody().filter(impoundment__pound=pound)
    if case is not None:
        animals = animals.filter(s16_cases=case)
    else:
        # The owner appeared for these: they are sold under s.16, if at all.
        animals = animals.exclude(
            s16_cases__status__in=[S16Case.Status.OPEN, S16Case.Status.COVERED]
        )
    animals = list(
        animals.annotate(
            busy=Exists(busy),
            earliest=Subquery(
                Notice.objects.filter(report__animals=OuterRef("pk")).values("earliest_sale")[:1]
            ),
            report_id=Subquery(Report.objects.filter(animals=OuterRef("pk")).values("pk")[:1]),
        )
        .filter(busy=False)
        .select_related("impoundment")
        .order_by("impoundment__arrived_at", "impoundment_id", "number")
    )
    if case is None:
        noticed = {a.pk for a in animals if a.earliest is not None}
        heads = [a for a in animals if a.pk in noticed and a.dam_id not in noticed]
    else:
        ids = {a.pk for a in animals}
        heads = [a for a in animals if a.dam_id not in ids]
    units = {h.pk: {"head": h, "animals": [h], "earliest": h.earliest} for h in heads}
    for animal in animals:
        if animal.dam_id in units and animal.pk not in units:
            units[animal.dam_id]["animals"].append(animal)
    for unit in units.values():  # each animal's pinned pack, not the district's pack now
        unit["refusals"] = [r for a in unit["animals"] if (r := routes.auction_refusal(a))]
        unit["packs"] = [routes.pinned_pack(a) for a in unit["animals"]]
    return units


def _split_lot_errors(exc):
    """A service error about the lots goes above the lots; the rest beside the fields."""
    if hasattr(exc, "error_dict") and "lots" in exc.error_dict:
        lot_errors = ValidationError(exc.error_dict.pop("lots")).messages
        return lot_errors, (ValidationError(exc.error_dict) if exc.error_dict else None)
    return [], exc


@require_permission(Permission.RUN_AUCTION)
def auction_new(request):
    # The same form sent again: its animals are in its lots now, so show the auction it made.
    if (made := replayed_row(request, Auction, created_by=request.user)) is not None:
        return redirect(made)
    pound, case, report = _source(request)
    if pound is None:
        pounds = Pound.objects.for_user(request.user, Permission.RUN_AUCTION).order_by("name")
        return render(request, "auctions/auction/choose_pound.html", {"pounds": pounds})
    if case is not None and case.status != S16Case.Status.OPEN:
        messages.info(request, _("The dues of this case are covered: nothing more is sold."))
        return redirect(case)
    today = clock.today(pound)
    in_force = AuctionConditions.objects.filter(district=pound.district).in_force(today).first()
    units = _units(pound, case)
    chosen = set(units)
    if case is None:
        chosen = {h for h, u in units.items() if report and u["head"].report_id == report.pk}
    initial = [
        {"head": head, "include": head in chosen and not units[head]["refusals"], "sequence": n}
        for n, head in enumerate(units, start=1)
    ]
    data = request.POST or None
    form = AuctionForm(
        data,
        officers=auction_officers(pound),
        initial={"officer": request.user.pk, "place": in_force.place if in_force else ""},
    )
    formset = LotFormSet(data, initial=initial, form_kwargs={"units": units}, prefix="lots")
    lot_errors = []
    if request.method == "POST" and form.is_valid() and formset.is_valid():
        lots, reserves = formset.lots()
        try:
            auction = services.schedule_auction(
                pound=pound,
                kind=Auction.Kind.OWNER_REFUSED if case else Auction.Kind.UNCLAIMED,
                by=request.user,
                s16_case=case,
                lots=lots,
                reserve_prices=reserves,
                **form.cleaned_data,
            )
        except ValidationError as exc:
            lot_errors, rest = _split_lot_errors(exc)
            if rest is not None:
                add_service_errors(form, rest)
        else:
            messages.success(
                request,
                _("Auction %(number)s scheduled for %(when)s.")
                % {
                    "number": auction.number,
                    "when": timezone.localtime(auction.scheduled_for).strftime("%d-%m-%Y %H:%M"),
                },
            )
            return redirect(auction)
    earliest = [u["earliest"] for u in units.values() if u["earliest"]]
    gap_from = None
    if case is not None and in_force is not None:
        gap_from = case.first_sale_day(in_force)
    return render(
        request,
        "auctions/auction/auction_form.html",
        {
            "pound": pound,
            "case": case,
            "report": report,
            "conditions": in_force,
            "form": form,
            "formset": formset,
            "lot_errors": lot_errors,
            "pinned_packs": list({p.id: p for u in units.values() for p in u["packs"]}.values()),
            "latest_earliest": max(earliest) if earliest else None,
            "gap_from": gap_from,
        },
    )


@require_permission(Permission.VIEW_RECORDS)
def auction(request, pk):
    auction = get_auction(request, pk)
    user, pound = request.user, auction.pound
    lots = auction_lots(auction)
    bidders = list(auction.bidders.select_related("override_by").order_by("number"))
    for bidder in bidders:
        bidder.match_list = describe_matches(bidder.matches)
    position = tariff_problem = None
    if auction.s16_case_id:
        position, tariff_problem = running_account(auction.s16_case)
    open_lots = [lot for lot in lots if lot.status == Lot.Status.OPEN]
    return render(
        request,
        "auctions/auction/detail.html",
        {
            "auction": auction,
            "lots": lots,
            "next_lot": open_lots[0] if open_lots else None,
            "bidders": bidders,
            "case": auction.s16_case,
            "position": position,
            "tariff_problem": tariff_problem,
            "is_open": auction.status == Auction.Status.SCHEDULED,
            "can_run": has_permission(user, Permission.RUN_AUCTION, pound),
            "can_approve": has_permission(user, Permission.APPROVE, pound),
            "can_prepare": has_permission(user, Permission.PREPARE_ORDERS, pound),
        },
    )


@require_permission(Permission.RUN_AUCTION)
def bidder_new(request, pk):
    auction = get_auction(request, pk, Permission.RUN_AUCTION)
    form = BidderForm(request.POST or None)
    if form.is_valid():
        try:
            bidder = services.register_bidder(auction=auction, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            if bidder.blocked:
                messages.warning(
                    request,
                    _(
                        "Bidder %(number)s, %(name)s, is blocked: he may be an officer or a "
                        "pound-keeper, and s.19 bars them from buying. Only the District "
                        "Magistrate can clear him, with a reason."
                    )
                    % {"number": bidder.number, "name": bidder.name},
                )
            else:
                messages.success(
                    request,
                    _("Bidder %(number)s, %(name)s, registered.")
                    % {"number": bidder.number, "name": bidder.name},
                )
            return redirect(f"{auction.get_absolute_url()}#bidder-{bidder.pk}")
    return render(request, "auctions/auction/bidder_form.html", {"auction": auction, "form": form})


@require_permission(Permission.APPROVE)
def bidder_override(request, pk):
    bidder = get_bidder(request, pk, Permission.APPROVE)
    form = OverrideForm(request.POST or None)
    if form.is_valid():
        try:
            services.override_block(bidder=bidder, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Bidder %(number)s, %(name)s, may now bid: the block is cleared.")
                % {"number": bidder.number, "name": bidder.name},
            )
            return redirect(f"{bidder.auction.get_absolute_url()}#bidder-{bidder.pk}")
    return render(
        request,
        "auctions/auction/bidder_override.html",
        {"bidder": bidder, "matches": describe_matches(bidder.matches), "form": form},
    )


@require_POST
@require_permission(Permission.RUN_AUCTION)
def bidder_recheck(request, pk):
    """Run the s.19 check on a bidder again, against the staff records of today."""
    bidder = get_bidder(request, pk, Permission.RUN_AUCTION)
    before = bidder.matches
    bidder = services.recheck_bidder(bidder=bidder, by=request.user)
    if bidder.matches != before:
        messages.warning(
            request,
            _("Bidder %(number)s, %(name)s, now matches the staff records and is blocked (s.19).")
            % {"number": bidder.number, "name": bidder.name},
        )
    else:
        messages.success(request, _("Checked again: nothing new."))
    return redirect(f"{bidder.auction.get_absolute_url()}#bidder-{bidder.pk}")


def _sell_context(lot):
    animals = list(lot.animals.select_related("impoundment").order_by("number"))
    entries = {a.impoundment_id: a.impoundment for a in animals}
    position = tariff_problem = None
    if lot.auction.s16_case_id:
        position, tariff_problem = running_account(lot.auction.s16_case)
    return {
        "lot": lot,
        "auction": lot.auction,
        "animals": animals,
        "entries": list(entries.values()),
        "bids": list(lot.bids.select_related("bidder").order_by("-amount")),
        "position": position,
        "tariff_problem": tariff_problem,
    }


@require_permission(Permission.RUN_AUCTION)
def lot_sell(request, pk):
    """Record the bids, then the hammer. The hammer is checked on a second page before the sale
    is recorded; the service locks the lot, so two recordings leave one sale."""
    lot = get_lot(request, pk, Permission.RUN_AUCTION)
    auction = lot.auction
    is_bid = "bid" in request.POST
    bid_form = BidForm(request.POST if is_bid else None, auction=auction)
    best = lot.bids.select_related("bidder").order_by("-amount").first()
    sale_form = SaleForm(
        request.POST if request.method == "POST" and not is_bid else None,
        lot=lot,
        initial={"buyer": best.bidder_id, "price": best.amount} if best else None,
    )
    # Known on this first page: before the announced hour no bid and no hammer.
    not_yet = before_the_hour(auction, clock.now(auction.pound))
    context = {"bid_form": bid_form, "sale_form": sale_form, "not_yet": not_yet}
    if is_bid and bid_form.is_valid() and not_yet:
        bid_form.add_error(None, not_yet)
    elif is_bid and bid_form.is_valid():
        try:
            services.record_bid(lot=lot, by=request.user, **bid_form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(bid_form, exc)
        else:
            messages.success(
                request,
                _("Bid of %(amount)s by bidder %(number)s recorded.")
                % {
                    "amount": inr(bid_form.cleaned_data["amount"]),
                    "number": bid_form.cleaned_data["bidder"].number,
                },
            )
            return redirect("auctions:lot_sell", pk=lot.pk)
    elif not is_bid and sale_form.is_bound and sale_form.is_valid() and "edit" not in request.POST:
        if not_yet:
            sale_form.add_error(None, not_yet)
        elif "confirm" not in request.POST:
            context |= _sell_context(lot)
            context["shortfall"] = services.shortfall_if_sold(
                lot,
                price=sale_form.cleaned_data["price"],
                expenses=sale_form.cleaned_data.get("expenses") or 0,
            )
            return render(request, "auctions/auction/lot_sell_check.html", context)
        else:
            try:
                sale = services.sell_lot(lot=lot, by=request.user, **sale_form.cleaned_data)
            except ValidationError as exc:
                add_service_errors(sale_form, exc)
            else:
                show_panel(
                    request,
                    title=_(
                        "Lot %(lot)s sold to bidder %(number)s for %(price)s. "
                        "Sale certificate %(cert)s."
                    )
                    % {
                        "lot": lot.number,
                        "number": sale.buyer.number,
                        "price": inr(sale.price),
                        "cert": sale.certificate.number,
                    },
                    reference=sale.certificate.number,
                    document_url=reverse("auctions:sale_certificate_pdf", args=[sale.pk]),
                    document_label=_("Print the sale certificate (PDF)"),
                )
                return redirect(f"{auction.get_absolute_url()}#lot-{lot.number}")
    lot.refresh_from_db(fields=["status", "note"])
    context |= _sell_context(lot)
    context["can_release"] = has_permission(request.user, Permission.RELEASE_ANIMAL, auction.pound)
    return render(request, "auctions/auction/lot_sell.html", context)


@require_permission(Permission.RUN_AUCTION)
def lot_unsold(request, pk):
    lot = get_lot(request, pk, Permission.RUN_AUCTION)
    form = UnsoldForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            services.mark_unsold(lot=lot, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("Lot %(lot)s marked not sold.") % {"lot": lot.number})
            return redirect(f"{lot.auction.get_absolute_url()}#lot-{lot.number}")
    return render(
        request,
        "auctions/auction/lot_unsold.html",
        {"lot": lot, "auction": lot.auction, "animals": lot.animals.all(), "form": form},
    )


@require_permission(Permission.RUN_AUCTION)
def auction_close(request, pk):
    auction = get_auction(request, pk, Permission.RUN_AUCTION)
    form = CloseForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            services.close_auction(auction=auction, by=request.user)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, _("Auction %(number)s closed.") % {"number": auction.number})
            return redirect(auction)
    return render(
        request,
        "auctions/auction/close.html",
        {"auction": auction, "lots": auction_lots(auction), "form": form},
    )
