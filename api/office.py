"""The District Magistrate's office through the API: remittances of fines (s.17), the surplus
deposit register with owners' claims (s.17), and the monthly and district returns (s.7) as JSON.

Each endpoint asks what its screen asks (office.views.money, office.views.returns): the same
permission, the same jurisdiction, the same figures from the same functions. Where a screen says
403 (the record is in the user's jurisdiction, the right is not his), the API says 404, as the
register does (api.entries): nothing of it is the caller's. Records are scoped by their models'
`for_user`, with the permission the screen asks."""

import functools
import re

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from ninja import Query, Router, Schema

from accounts.models import IssuedDocument, Pound
from accounts.roles import Permission
from office import return_documents, returns, statements
from office.forms import Capacity, SurplusFilterForm
from office.forms.returns import ReturnsForm, last_month
from office.models import Remittance, SurplusClaim, SurplusDeposit
from office.selectors import SURPLUS_LISTS, SURPLUS_PAGE, consolidating_districts

from .common import bad, day, dump, filters, keyset_list, money, one_of, require, with_etag
from .schemas import Problem, RemittanceOut, page_of

router = Router(tags=["office"])

PAGE_SIZE = 50
REMITTANCE_ORDER = ("-remitted_on", "-pk")
# The surplus register: newest sale first, or one list of the screen in its own order.
SURPLUS_ORDER = ("-sale_date", "-pk")
CLAIM_ORDER = ("-filed_on", "-pk")


def _cursor(order):
    """The strict keyset cursor of `order`, over date fields ending with the id: day|...|id."""
    return re.compile(r"\|".join([r"\d{4}-\d{2}-\d{2}"] * (len(order) - 1) + [r"\d{1,18}"]))


# --- Remittances of fines (s.17) -----------------------------------------------------------


RemittancePage = page_of(RemittanceOut)


def _remittances(user):
    """The remittances screen's: those of the pounds whose ledger the user reads."""
    require(user, Permission.VIEW_LEDGER)
    return Remittance.objects.for_user(user, Permission.VIEW_LEDGER).select_related(
        "pound", "sent_by", "confirmed_by"
    )


def remittance_out(r, schema=RemittanceOut, **given):
    return dump(
        schema,
        r,
        pound_name=r.pound.label,
        amount=money(r.amount),
        sent_by=r.sent_by.display_name,
        confirmed_by=r.confirmed_by.display_name if r.confirmed_by_id else None,
        **given,
    )


@router.get(
    "/remittances/",
    response={200: RemittancePage, 400: Problem, 401: Problem, 404: Problem},
    url_name="remittances",
    summary="Remittances of fines to the District Magistrate (s.17), latest first",
)
def remittances(
    request,
    pound: Query[str | None] = None,
    status: Query[str | None] = None,
    after: Query[str | None] = None,
):
    user = request.auth
    qs = _remittances(user)
    if pound:
        scoped = Pound.objects.for_user(user, Permission.VIEW_LEDGER)
        found, error = one_of(scoped, pound, "pound", _("Give the pound's number."))
        if error:
            return error
        qs = qs.filter(pound=found)
    if status:
        if status not in Remittance.Status.values:
            return bad("status", _("Choose sent or confirmed."))
        qs = qs.filter(status=status)
    order = REMITTANCE_ORDER
    return keyset_list(request, qs, order, _cursor(order), after, remittance_out, PAGE_SIZE)


@router.get(
    "/remittances/{int:pk}/",
    response={200: RemittanceOut, 401: Problem, 404: Problem},
    url_name="remittance",
    summary="One remittance of fines",
)
def remittance(request, pk: int):
    found = get_object_or_404(_remittances(request.auth), pk=pk)
    return with_etag(request, remittance_out(found))


# --- The surplus deposit register and claims (s.17) ------------------------------------------


class ClaimOut(Schema):
    id: int
    deposit: int
    claimant_name: str
    capacity: str
    filed_on: str
    status: str
    decided_at: str | None


class SurplusOut(Schema):
    id: int
    pound: int
    district: int
    auction: str
    lot: int
    amount: str
    sale_date: str
    # None where the district's rule pack leaves the holding period for the State to fill.
    at_least_until: str | None
    received_on: str | None
    expires_on: str | None
    status: str
    destination: str
    transferred_at: str | None
    transfer_memo: str | None
    claims: list[ClaimOut]


SurplusPage = page_of(SurplusOut)
ClaimPage = page_of(ClaimOut)


def _deposits(user):
    """The surplus register's (office.views.money.surplus): the office sees its district's, a
    pound-keeper the surpluses of his pounds."""
    require(user, Permission.VIEW_LEDGER)
    return (
        SurplusDeposit.objects.for_user(user, Permission.VIEW_LEDGER)
        .select_related("sale__lot__auction", "transfer_memo")
        .prefetch_related(
            Prefetch("claims", queryset=SurplusClaim.objects.order_by("filed_on", "pk"))
        )
    )


def _claim(c):
    return dump(ClaimOut, c, capacity=str(Capacity.label(c.capacity)))


def _deposit(d, months=None):
    """A surplus deposit; `months`, a memo of the districts' holding periods for a list's rows."""
    months = {} if months is None else months
    if d.district_id not in months:
        months.update(statements.surplus_hold_months_by_district([d.district_id]))
    return dump(
        SurplusOut,
        d,
        auction=d.sale.lot.auction.number,
        lot=d.sale.lot.number,
        amount=money(d.amount),
        at_least_until=day(statements.surplus_min_expiry(d, months[d.district_id])),
        transfer_memo=d.transfer_memo.number if d.transfer_memo_id else None,
        claims=[_claim(c) for c in d.claims.all()],
    )


@router.get(
    "/surplus/",
    response={200: SurplusPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="surplus",
    summary="Surplus sale proceeds held in deposit (s.17), with their claims",
)
def surplus(
    request,
    list: Query[str | None] = None,  # noqa: A002 - the screen's own parameter
    pound: Query[str | None] = None,
    expires_by: Query[str | None] = None,
    after: Query[str | None] = None,
):
    user = request.auth
    deposits = _deposits(user)
    pounds = Pound.objects.for_user(user, Permission.VIEW_LEDGER).order_by("name")
    params = {"list": list, "pound": pound, "expires_by": expires_by}
    data, error = filters(SurplusFilterForm, params, pounds=pounds)
    if error:
        return error
    only = data["list"] or None
    order = SURPLUS_ORDER
    if only:
        where, order = SURPLUS_LISTS[only]
        deposits = deposits.filter(where)
    if data["pound"]:
        deposits = deposits.filter(pound=data["pound"])
    if data["expires_by"]:
        deposits = deposits.filter(expires_on__lte=data["expires_by"])
    months = {}  # each district's holding period read once for the page
    row = functools.partial(_deposit, months=months)
    return keyset_list(request, deposits, order, _cursor(order), after, row, SURPLUS_PAGE)


@router.get(
    "/surplus/{int:pk}/",
    response={200: SurplusOut, 401: Problem, 404: Problem},
    url_name="surplus_deposit",
    summary="One surplus deposit, with its claims",
)
def surplus_deposit(request, pk: int):
    found = get_object_or_404(_deposits(request.auth), pk=pk)
    return with_etag(request, _deposit(found))


def _claims(user):
    """The claims the surplus register lists under its deposits."""
    require(user, Permission.VIEW_LEDGER)
    return SurplusClaim.objects.for_user(user, Permission.VIEW_LEDGER)


@router.get(
    "/claims/",
    response={200: ClaimPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="claims",
    summary="Owners' claims to surplus (s.17), latest filed first",
)
def claims(
    request,
    status: Query[str | None] = None,
    deposit: Query[str | None] = None,
    after: Query[str | None] = None,
):
    qs = _claims(request.auth)
    if status:
        if status not in SurplusClaim.Status.values:
            return bad("status", _("Choose pending, allowed or rejected."))
        qs = qs.filter(status=status)
    if deposit:
        if not deposit.isdigit() or len(deposit) > 18:
            return bad("deposit", _("Give the deposit's number."))
        qs = qs.filter(deposit_id=int(deposit))
    return keyset_list(request, qs, CLAIM_ORDER, _cursor(CLAIM_ORDER), after, _claim, PAGE_SIZE)


@router.get(
    "/claims/{int:pk}/",
    response={200: ClaimOut, 401: Problem, 404: Problem},
    url_name="claim",
    summary="One claim to surplus",
)
def claim(request, pk: int):
    found = get_object_or_404(_claims(request.auth), pk=pk)
    return with_etag(request, _claim(found))


# --- The returns (s.7) as JSON ---------------------------------------------------------------


class ReturnRemittanceOut(Schema):
    id: int
    number: str
    amount: str


class ReturnOut(Schema):
    """What the monthly and the district return share."""

    month: str
    first: str
    last: str
    complete: bool
    number: str
    issued: str | None
    animals: list[dict[str, int | str]]
    totals: dict[str, int]
    money: dict[str, str]


class PoundReturnOut(ReturnOut):
    pound: int
    pound_code: str
    remittances: list[ReturnRemittanceOut]


class DistrictPoundOut(Schema):
    pound: int
    pound_code: str
    totals: dict[str, int]
    money: dict[str, str]


class DistrictReturnOut(ReturnOut):
    district: int
    pounds: list[DistrictPoundOut]


def _subject_month(scoped, raw, field, month):
    """(the pound or district numbered `raw` within `scoped`, the first day of ?month=YYYY-MM as
    the returns page's own form reads it, last month when none, None), or (.., the 400)."""
    subject, error = one_of(scoped, raw, field, _("Give the number of one of yours."))
    if error or not month:
        return subject, last_month(), error
    form = ReturnsForm({"month": month}, pounds=[], districts=[])
    form.is_valid()
    if "month" in form.errors:
        return None, None, bad("month", form.errors["month"][0])
    return subject, form.cleaned_data["month"], None


def _issued(number, complete):
    """The number of the return as registered (its PDF drawn and kept), if it has been."""
    if not complete:
        return None
    return IssuedDocument.objects.filter(number=number).values_list("number", flat=True).first()


def _return(request, schema, first, r, number, **given):
    """A return's answer: the figures the monthly and the district return share, and `given`."""
    animals = [{k: (str(v) if k == "label" else v) for k, v in row.items()} for row in r["animals"]]
    body = dump(
        schema,
        None,
        month=f"{first:%Y-%m}",
        first=day(r["first"]),
        last=day(r["last"]),
        complete=r["complete"],
        number=number,
        issued=_issued(number, r["complete"]),
        animals=animals,
        totals=r["totals"],
        money=_money(r["money"]),
        **given,
    )
    return with_etag(request, body)


def _money(figures):
    return {k: money(v) for k, v in figures.items()}


@router.get(
    "/returns/monthly/",
    response={200: PoundReturnOut, 400: Problem, 401: Problem, 404: Problem},
    url_name="monthly_return",
    summary="The monthly return of a pound (s.7), the figures of its PDF",
)
def monthly_return(request, pound: Query[str | None] = None, month: Query[str | None] = None):
    user = request.auth
    require(user, Permission.VIEW_LEDGER)
    scoped = Pound.objects.for_user(user, Permission.VIEW_LEDGER)
    subject, first, error = _subject_month(scoped, pound, "pound", month)
    if error:
        return error
    r = returns.pound_return(subject, first.year, first.month)
    number = return_documents.return_number(subject, first.year, first.month)
    remittances = [dump(ReturnRemittanceOut, x, amount=money(x.amount)) for x in r["remittances"]]
    given = {"pound": subject.pk, "pound_code": subject.code, "remittances": remittances}
    return _return(request, PoundReturnOut, first, r, number, **given)


@router.get(
    "/returns/district/",
    response={200: DistrictReturnOut, 400: Problem, 401: Problem, 404: Problem},
    url_name="district_return",
    summary="The consolidated monthly return of a district (s.7), the figures of its PDF",
)
def district_return(request, district: Query[str | None] = None, month: Query[str | None] = None):
    user = request.auth
    require(user, Permission.VIEW_REPORTS)
    scoped = consolidating_districts(user)
    subject, first, error = _subject_month(scoped, district, "district", month)
    if error:
        return error
    pounds = Pound.objects.filter(district=subject).order_by("name")
    r = returns.district_return(subject, first.year, first.month, pounds)
    number = return_documents.district_return_number(subject, first.year, first.month)
    rows = [
        dump(
            DistrictPoundOut,
            None,
            pound=row["pound"].pk,
            pound_code=row["pound"].code,
            totals=row["totals"],
            money=_money(row["money"]),
        )
        for row in r["pounds"]
    ]
    return _return(request, DistrictReturnOut, first, r, number, district=subject.pk, pounds=rows)
