"""The money screens of the District Magistrate's office (s.17): remittances of fines from the
pounds, the surplus deposit register with owners' claims and the transfer memo, the pound's
feeding-money statement, and the money trail of a register entry.

Records are looked up within the user's jurisdiction (another district's is a 404), then the
action is checked (403). GET shows; POST acts through one service in `office.services`.
"""

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Prefetch, Sum, prefetch_related_objects
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from accounts.decorators import require_permission
from accounts.models import IssuedDocument, Pound
from accounts.roles import Permission
from accounts.scoping import has_permission, lookup, visible_pound_ids
from accounts.training import pounds_by_day
from impounding.models import Animal
from impounding.selectors import entry_for, pound_for
from kernel import clock
from kernel.dates import add_months, surplus_expiry
from kernel.documents import pdf_response
from kernel.files import serve_stored
from kernel.formatting import inr
from kernel.replica import reads_from_replica
from kernel.views import add_service_errors, keyset_page
from ledger import services as ledger

from .. import documents, statements, trail
from .. import services as office
from ..forms import (
    Capacity,
    ClaimDecisionForm,
    ConfirmRemittanceForm,
    MonthForm,
    ReceiveSurplusForm,
    RemittanceForm,
    SurplusClaimForm,
    SurplusFilterForm,
)
from ..models import Remittance, SurplusClaim, SurplusDeposit
from ..selectors import SURPLUS_LISTS, SURPLUS_PAGE, local_fund_names
from .challans import to_the_state

CONFIRMED_SHOWN = 50  # the latest confirmed remittances listed; older ones are in the returns


# --- Remittances of fines (s.17) ---------------------------------------------------------------


def _remitting_pound_ids(user):
    """Pounds whose fines the user may remit: the money leaves the till, so he pays out of it
    there (the keeper; the office on a written authority) and reads its ledger."""
    till = set(visible_pound_ids(user, Permission.PAY_FROM_TILL)) | set(
        visible_pound_ids(user, Permission.PAY_FROM_TILL_ON_AUTHORITY)
    )
    return till & set(visible_pound_ids(user, Permission.VIEW_LEDGER))


def _remittances(user, perm=None):
    return Remittance.objects.for_user(user, perm).select_related(
        "pound__district", "sent_by", "confirmed_by"
    )


@require_permission(Permission.VIEW_LEDGER)
@reads_from_replica
def remittances(request):
    user = request.user
    pounds = Pound.objects.for_user(user, Permission.VIEW_LEDGER).order_by("name")
    positions = list(statements.pound_positions(pounds).values())
    may_remit = _remitting_pound_ids(user)
    for position in positions:
        position.can_remit = position.pound.pk in may_remit
    listed = _remittances(user, Permission.VIEW_LEDGER)  # the pounds of `positions`
    sent = list(listed.filter(status=Remittance.Status.SENT).order_by("remitted_on", "pk"))
    for remittance in sent:
        remittance.can_confirm = has_permission(user, Permission.PREPARE_ORDERS, remittance.pound)
    confirmed = list(
        listed.filter(status=Remittance.Status.CONFIRMED).order_by("-confirmed_at", "-pk")[
            :CONFIRMED_SHOWN
        ]
    )
    return render(
        request,
        "office/money/remittances.html",
        {
            "positions": positions,
            "sent": sent,
            "confirmed": confirmed,
            "confirmed_shown": CONFIRMED_SHOWN,
            "can_remit": bool(may_remit),
        },
    )


def _pound_to_remit(request):
    """The pound named by ?pound=, or the user's only one; None when he must choose."""
    user = request.user
    ids = _remitting_pound_ids(user)
    if not ids:
        raise PermissionDenied
    raw = request.GET.get("pound", "")
    if raw.isdigit():
        pound = get_object_or_404(
            Pound.objects.for_user(user).select_related("district"), pk=int(raw)
        )
        if pound.pk not in ids:
            raise PermissionDenied
        return pound
    if len(ids) == 1:
        return Pound.objects.select_related("district").get(pk=next(iter(ids)))
    return None


@require_permission(Permission.VIEW_LEDGER)  # and a till to pay from: see _pound_to_remit
def remittance_new(request):
    pound = _pound_to_remit(request)
    if pound is None:
        pounds = Pound.objects.filter(pk__in=_remitting_pound_ids(request.user)).order_by("name")
        return render(request, "office/money/choose_pound.html", {"pounds": pounds})
    position = statements.pound_positions([pound])[pound.pk]
    form = RemittanceForm(
        request.POST or None,
        initial={"amount": position.remittable or None, "remitted_on": clock.today(pound)},
        on_authority=not ledger.keeps_till(request.user, pound),
        today=clock.today(pound),
    )
    if form.is_valid():
        try:
            remittance = office.send_remittance(pound=pound, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            done = {"number": remittance.number, "amount": inr(remittance.amount)}
            if getattr(remittance, "replayed", False):
                messages.info(
                    request,
                    _(
                        "Remittance %(number)s of %(amount)s was already recorded: "
                        "nothing more was sent."
                    )
                    % done,
                )
            else:
                messages.success(
                    request,
                    _("Remittance %(number)s of %(amount)s sent: the office will confirm it.")
                    % done,
                )
            return redirect("office:remittances")
    return render(
        request,
        "office/money/remittance_new.html",
        {"pound": pound, "position": position, "form": form},
    )


@require_permission(Permission.PREPARE_ORDERS)
def remittance_confirm(request, pk):
    remittance = get_object_or_404(_remittances(request.user), pk=pk)
    if not has_permission(request.user, Permission.PREPARE_ORDERS, remittance.pound):
        raise PermissionDenied
    remittance.check_decider(request.user)
    # Bound on any POST: the form is one checkbox, which an unticked POST leaves out.
    form = ConfirmRemittanceForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            office.confirm_remittance(remittance=remittance, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Remittance %(number)s confirmed: %(amount)s of fines received (s.17).")
                % {"number": remittance.number, "amount": inr(remittance.amount)},
            )
            return redirect("office:remittances")
    return render(
        request, "office/money/remittance_confirm.html", {"remittance": remittance, "form": form}
    )


# --- The surplus deposit register (s.17) ---------------------------------------------------------


DEPOSIT_RELATED = (
    "district",
    "pound",
    "sale__lot__auction",
    "transfer_memo",
    "received_by",
    "treasury_challan",
)


def _get_deposit(request, pk, perm):
    return lookup(request.user, SurplusDeposit.objects.select_related(*DEPOSIT_RELATED), pk, perm)


@dataclass
class RegisterList:
    key: str
    rows: list
    count: int
    total: Decimal
    next_cursor: str | None
    query: str


def _surplus_lists(deposits, params, only):
    """The register's lists, each one page long with its count and total (one query for all
    of them), or only the list `only`, from the cursor `after` in `params`."""
    figures = deposits.order_by().aggregate(
        **{f"{k}_count": Count("pk", filter=where) for k, (where, _o) in SURPLUS_LISTS.items()},
        **{f"{k}_total": Sum("amount", filter=where) for k, (where, _o) in SURPLUS_LISTS.items()},
    )
    base = params.copy()
    base.pop("after", None)
    lists = {}
    for key, (where, order) in SURPLUS_LISTS.items():
        if only and key != only:
            continue
        after = params.get("after") if only else None
        rows, cursor = keyset_page(deposits.filter(where), order, after=after, size=SURPLUS_PAGE)
        base["list"] = key
        lists[key] = RegisterList(
            key,
            rows,
            figures[f"{key}_count"],
            figures[f"{key}_total"] or Decimal("0.00"),
            cursor,
            base.urlencode(),
        )
    return lists


@require_permission(Permission.VIEW_LEDGER)
@reads_from_replica
def surplus(request):
    user = request.user
    # The office sees its district's register; a pound-keeper the surpluses of his pounds.
    deposits = SurplusDeposit.objects.for_user(user, Permission.VIEW_LEDGER).select_related(
        *DEPOSIT_RELATED
    )
    pounds = Pound.objects.for_user(user, Permission.VIEW_LEDGER).order_by("name")
    form = SurplusFilterForm(request.GET or None, pounds=pounds)
    only = None
    if form.is_valid():
        only = form.cleaned_data["list"] or None
        if form.cleaned_data["pound"]:
            deposits = deposits.filter(pound=form.cleaned_data["pound"])
        if form.cleaned_data["expires_by"]:
            deposits = deposits.filter(expires_on__lte=form.cleaned_data["expires_by"])
    lists = _surplus_lists(deposits, request.GET, only)
    shown = [d for register_list in lists.values() for d in register_list.rows]
    prefetch_related_objects(
        shown,
        Prefetch(
            "sale__lot__animals",
            queryset=Animal.objects.select_related("impoundment").order_by(
                "impoundment_id", "number"
            ),
        ),
        Prefetch("claims", queryset=SurplusClaim.objects.order_by("filed_on", "pk")),
    )
    funds = local_fund_names({d.district_id for d in shown})
    months = statements.surplus_hold_months_by_district({d.district_id for d in shown})
    # Each pound's own day (ADR 0080): a training district's clock may run ahead.
    days = pounds_by_day(list({d.pound_id for d in shown}))
    day_of = {pk: day for day, pks in days.items() for pk in pks}
    for d in shown:
        _annotate_deposit(user, d, day_of[d.pound_id], months[d.district_id])
        d.local_fund_name = funds.get(d.district_id, "")
    return render(
        request,
        "office/money/surplus.html",
        {
            "form": form,
            "lists": lists,
            "only": only,
            "is_first_page": not request.GET.get("after"),
            **{key: lists[key].rows if key in lists else [] for key in SURPLUS_LISTS},
            **{f"{key}_list": lists.get(key) for key in SURPLUS_LISTS},
            "closed_shown": SURPLUS_PAGE,
        },
    )


def _annotate_deposit(user, deposit, today, hold_months):
    """What the user may do with a surplus, and its claims, for the register's rows."""
    claims = list(deposit.claims.all())
    for claim in claims:
        claim.capacity_label = Capacity.label(claim.capacity)
        claim.can_decide = claim.status == SurplusClaim.Status.PENDING and has_permission(
            user, Permission.APPROVE, deposit.district
        )
    deposit.claim_list = claims
    deposit.paid_claim = next((c for c in claims if c.status == SurplusClaim.Status.ALLOWED), None)
    prepares = has_permission(user, Permission.PREPARE_ORDERS, deposit.district)
    held = deposit.status == SurplusDeposit.Status.HELD
    deposit.can_receive = prepares and deposit.status == SurplusDeposit.Status.AWAITING_RECEIPT
    deposit.can_claim = prepares and deposit.claimable_on(today)
    # s.17: the challan that carried a surplus to the State, recorded and confirmed here.
    deposit.challan = getattr(deposit, "treasury_challan", None)
    deposit.challan_link = prepares and to_the_state(deposit)
    deposit.at_least_until = statements.surplus_min_expiry(deposit, hold_months)
    deposit.days_left = (deposit.expires_on - today).days if held else None


@require_permission(Permission.PREPARE_ORDERS)
def surplus_receive(request, pk):
    deposit = _get_deposit(request, pk, Permission.PREPARE_ORDERS)
    today = clock.today(deposit.district)
    form = ReceiveSurplusForm(request.POST or None, initial={"received_on": today})
    if form.is_valid():
        try:
            deposit = office.receive_surplus(deposit=deposit, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Surplus of %(amount)s received into deposit: held until %(date)s (s.17).")
                % {
                    "amount": inr(deposit.amount),
                    "date": deposit.expires_on.strftime("%d-%m-%Y"),
                },
            )
            return redirect("office:surplus")
    return render(
        request,
        "office/money/surplus_receive.html",
        {
            "deposit": deposit,
            "form": form,
            "animals": _sold_animals(deposit),
            "today": today,
            **_holding(deposit, today),
        },
    )


def _holding(deposit, today):
    """The holding period the district's pack gives, as the receipt would start it today."""
    months = statements.surplus_hold_months(deposit)
    if months is None:
        return {"hold_months": None}
    return {
        "hold_months": months,
        "sale_plus_three": statements.surplus_min_expiry(deposit, months),
        "received_plus_three": add_months(today, months),
        "expiry_if_today": surplus_expiry(today, deposit.sale_date, months),
    }


def _sold_animals(deposit):
    return list(
        Animal.objects.filter(lotanimal__lot=deposit.sale.lot_id)
        .select_related("impoundment")
        .order_by("impoundment_id", "number")
    )


@require_permission(Permission.PREPARE_ORDERS)
def claim_new(request, pk):
    deposit = _get_deposit(request, pk, Permission.PREPARE_ORDERS)
    today = clock.today(deposit.district)
    form = SurplusClaimForm(
        request.POST or None,
        request.FILES or None,
        deposit=deposit,
        initial={"filed_on": today},
    )
    if form.is_valid():
        try:
            claim = office.file_surplus_claim(deposit=deposit, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Claim by %(name)s recorded: it goes to the Magistrate for decision.")
                % {"name": claim.claimant_name},
            )
            return redirect("office:surplus")
    pending = deposit.claims.filter(status=SurplusClaim.Status.PENDING).first()
    return render(
        request,
        "office/money/claim_new.html",
        {
            "deposit": deposit,
            "form": form,
            "animals": _sold_animals(deposit),
            "pending": pending,
            "open": deposit.status == SurplusDeposit.Status.HELD and pending is None,
            "today": today,
        },
    )


def _proof_file(claim):
    """The scan of the proof, shown in the browser to whoever may decide the claim."""
    return serve_stored(claim.proof_scan, download_name=f"claim-{claim.pk}-proof")


@require_permission(Permission.APPROVE)
def claim_decide(request, pk):
    claims = SurplusClaim.objects.select_related(
        "deposit__district",
        "deposit__pound",
        "deposit__sale__lot__auction",
        "prepared_by",
        "decided_by",
    )
    claim = lookup(request.user, claims, pk)
    deposit = claim.deposit
    if not has_permission(request.user, Permission.APPROVE, deposit.district):
        raise PermissionDenied
    if request.method == "GET" and request.GET.get("file") == "proof":
        return _proof_file(claim)
    claim.check_decider(request.user)
    form = ClaimDecisionForm(request.POST or None)
    if form.is_valid():
        try:
            claim = office.decide_surplus_claim(claim=claim, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(
                request,
                _("Claim by %(name)s: %(status)s.")
                % {"name": claim.claimant_name, "status": claim.get_status_display()},
            )
            return redirect("office:surplus")
    claim.capacity_label = Capacity.label(claim.capacity)
    animals = _sold_animals(deposit)
    entries = {a.impoundment_id: a.impoundment for a in animals}
    return render(
        request,
        "office/money/claim_decide.html",
        {
            "claim": claim,
            "deposit": deposit,
            "sale": deposit.sale,
            "animals": animals,
            "entries": list(entries.values()),
            "others": deposit.claims.exclude(pk=claim.pk).order_by("filed_on", "pk"),
            "form": form,
        },
    )


@require_permission(Permission.VIEW_LEDGER)
def transfer_memo_pdf(request, pk):
    deposit = _get_deposit(request, pk, Permission.VIEW_LEDGER)
    if deposit.transfer_memo_id is None:
        raise Http404
    pdf = IssuedDocument.objects.kept_pdf(
        deposit.transfer_memo, lambda: documents.transfer_memo_pdf(deposit)
    )
    name = deposit.transfer_memo.number.replace("/", "-")
    return pdf_response(pdf, f"transfer-memo-{name}.pdf")


# --- The pound-keeper's feeding money, and the money trail of an entry --------------------------


@require_permission(Permission.VIEW_LEDGER)
@reads_from_replica
def feeding_statement(request, pk):
    pound = pound_for(request.user, pk, Permission.VIEW_LEDGER)
    form = MonthForm(request.GET if "month" in request.GET else None, today=clock.today(pound))
    first = form.first_day()
    statement = statements.feeding_statement(pound, first)
    if not form.is_bound:
        form = MonthForm(initial={"month": first}, today=form.today)
    this_month = form.today.replace(day=1)
    return render(
        request,
        "office/money/feeding_statement.html",
        {
            "pound": pound,
            "form": form,
            "statement": statement,
            "previous": (first - timedelta(days=1)).replace(day=1),
            "next": add_months(first, 1) if first < this_month else None,
            "can_log": has_permission(request.user, Permission.RECORD_CUSTODY, pound),
        },
    )


@require_permission(Permission.VIEW_RECORDS)
@reads_from_replica
def money_trail(request, pk):
    entry = entry_for(request.user, pk, Permission.VIEW_RECORDS)
    followed = trail.money_trail(entry)
    for d in followed.surpluses:
        d.claim_list = list(d.claims.all())
    return render(
        request,
        "office/money/money_trail.html",
        {
            "entry": entry,
            "trail": followed,
            "can_ledger": has_permission(request.user, Permission.VIEW_LEDGER, entry.pound),
        },
    )
