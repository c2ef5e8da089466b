"""Auctions, their lots and the sales through the API (ss.14, 16): the same permission and scope
as the auction screens (auctions.views.auction) and the sale certificate's download
(auctions.views.documents), money as exact decimal strings, and of a buyer only what the
auction's page shows beside his lot (his bidder number and name)."""

from django.db.models import Count, Prefetch, Q
from django.shortcuts import get_object_or_404
from django.urls import reverse
from ninja import Query, Router, Schema

from accounts.roles import Permission
from auctions.models import Auction, Bid, Lot, Sale
from kernel.files import serve_stored

from . import unclaimed
from .common import dump, keyset_list, money, require, with_etag
from .schemas import AnimalOut, Problem, page_of
from .unclaimed import (
    MOMENT_CURSOR,
    PDF,
    animal_out,
    animals_prefetch,
    in_dates,
    list_filters,
)

router = Router(tags=["unclaimed cattle and sales"])
AUCTION_ORDER = ["-scheduled_for", "-pk"]
SALE_ORDER = ["-sold_at", "-pk"]
AUCTION_STATES = tuple(Auction.Status.values)


class BuyerOut(Schema):
    number: int
    name: str


class LotSaleOut(Schema):
    id: int
    price: str
    expenses: str
    sold_at: str
    buyer: BuyerOut
    certificate: str
    certificate_pdf: str | None


class SaleOut(LotSaleOut):
    auction: int
    auction_number: str
    pound: int
    lot: int
    lot_number: int
    animals: list[AnimalOut]


SalePage = page_of(SaleOut)


class BidOut(Schema):
    amount: str
    bidder: int


class LotOut(Schema):
    id: int
    number: int
    sequence: int
    status: str
    reserve_price: str
    note: str
    animals: list[AnimalOut]
    bids: list[BidOut]
    sale: LotSaleOut | None


class ConditionsOut(Schema):
    order_reference: str
    earnest_money: str


class AuctionOut(Schema):
    id: int
    number: str
    kind: str
    status: str
    pound: int
    scheduled_for: str
    place: str
    officer: str
    deputy: str | None
    deputation_order: str
    conditions: ConditionsOut
    closed_at: str | None
    lots_total: int
    lots_sold: int
    lots_open: int


class AuctionDetailOut(AuctionOut):
    lots: list[LotOut]


AuctionPage = page_of(AuctionOut)


# --- Auctions and their lots ------------------------------------------------------------------


def _auctions(user):
    """As the auctions screen: its permission anywhere, then the auctions of the caller's pounds,
    with the counts of lots its list shows."""
    require(user, Permission.VIEW_RECORDS)
    return (
        Auction.objects.for_user(user)
        .select_related("conditions", "officer", "deputy")
        .annotate(
            n_lots=Count("lots", distinct=True),
            n_sold=Count("lots", filter=Q(lots__status=Lot.Status.SOLD), distinct=True),
            n_open=Count("lots", filter=Q(lots__status=Lot.Status.OPEN), distinct=True),
        )
    )


def _auction(a):
    return dump(
        AuctionOut,
        a,
        officer=a.officer.display_name,
        deputy=a.deputy.display_name if a.deputy_id else None,
        conditions=dump(
            ConditionsOut, a.conditions, earnest_money=money(a.conditions.earnest_money)
        ),
        lots_total=a.n_lots,
        lots_sold=a.n_sold,
        lots_open=a.n_open,
    )


def _lot_sale(sale):
    pdf = None
    if sale.certificate.file:
        pdf = reverse("api:sale_certificate_pdf", kwargs={"pk": sale.pk})
    return dump(
        LotSaleOut,
        sale,
        price=money(sale.price),
        expenses=money(sale.expenses),
        buyer=dump(BuyerOut, sale.buyer),
        certificate=sale.certificate.number,
        certificate_pdf=pdf,
    )


def _lot(lot):
    sale = getattr(lot, "sale", None)
    return dump(
        LotOut,
        lot,
        reserve_price=money(lot.reserve_price),
        note="" if sale else lot.note,
        animals=[animal_out(a) for a in lot.animals.all()],
        bids=[{"amount": money(b.amount), "bidder": b.bidder.number} for b in lot.bids.all()],
        sale=_lot_sale(sale) if sale else None,
    )


@router.get(
    "/auctions/",
    response={200: AuctionPage, 400: Problem, 401: Problem, 404: Problem},
    url_name="auctions",
    summary="Auctions (ss.14, 16), the latest announced time first",
)
def auctions(
    request,
    pound: Query[str | None] = None,
    state: Query[str | None] = None,
    date_from: Query[str | None] = None,
    date_to: Query[str | None] = None,
    after: Query[str | None] = None,
):
    user = request.auth
    qs = _auctions(user)
    params = {"pound": pound, "state": state, "date_from": date_from, "date_to": date_to}
    data, error = list_filters(user, params, AUCTION_STATES)
    if error:
        return error
    if data.get("pound"):
        qs = qs.filter(pound=data["pound"])
    if data.get("state"):
        qs = qs.filter(status=data["state"])
    qs = in_dates(qs, "scheduled_for", data, moment=True)
    return keyset_list(
        request, qs, AUCTION_ORDER, MOMENT_CURSOR, after, _auction, unclaimed.PAGE_SIZE
    )


@router.get(
    "/auctions/{int:pk}/",
    response={200: AuctionDetailOut, 401: Problem, 404: Problem},
    url_name="auction",
    summary="One auction, with its lots in the order of sale, their bids and sales",
)
def auction(request, pk: int):
    lots = (
        Lot.objects.select_related("sale__buyer", "sale__certificate")
        .prefetch_related(
            animals_prefetch(),
            Prefetch("bids", queryset=Bid.objects.select_related("bidder").order_by("-amount")),
        )
        .order_by("sequence")
    )
    found = _auctions(request.auth).prefetch_related(Prefetch("lots", queryset=lots))
    found = get_object_or_404(found, pk=pk)
    body = _auction(found) | {"lots": [_lot(lot) for lot in found.lots.all()]}
    return with_etag(request, body)


# --- Sales ------------------------------------------------------------------------------------


def _sales(user):
    """As the sale certificate's download: the sales of the pounds whose records the caller
    reads (its scope, then the records' permission on the pound, in one filter)."""
    require(user, Permission.VIEW_RECORDS)
    return Sale.objects.for_user(user, Permission.VIEW_RECORDS).select_related(
        "lot__auction", "buyer", "certificate"
    )


def _sale(sale):
    lot = sale.lot
    return _lot_sale(sale) | {
        "auction": lot.auction_id,
        "auction_number": lot.auction.number,
        "pound": lot.auction.pound_id,
        "lot": lot.pk,
        "lot_number": lot.number,
        "animals": [animal_out(a) for a in lot.animals.all()],
    }


@router.get(
    "/sales/",
    response={200: SalePage, 400: Problem, 401: Problem, 404: Problem},
    url_name="sales",
    summary="Sales at the auctions, the latest hammer first",
)
def sales(
    request,
    pound: Query[str | None] = None,
    date_from: Query[str | None] = None,
    date_to: Query[str | None] = None,
    after: Query[str | None] = None,
):
    user = request.auth
    qs = _sales(user).prefetch_related(animals_prefetch("lot__animals"))
    data, error = list_filters(user, {"pound": pound, "date_from": date_from, "date_to": date_to})
    if error:
        return error
    if data.get("pound"):
        qs = qs.filter(lot__auction__pound=data["pound"])
    qs = in_dates(qs, "sold_at", data, moment=True)
    return keyset_list(request, qs, SALE_ORDER, MOMENT_CURSOR, after, _sale, unclaimed.PAGE_SIZE)


@router.get(
    "/sales/{int:pk}/",
    response={200: SaleOut, 401: Problem, 404: Problem},
    url_name="sale",
    summary="One sale: the hammer price, the buyer's bidder number and name, the certificate",
)
def sale(request, pk: int):
    found = _sales(request.auth).prefetch_related(animals_prefetch("lot__animals"))
    found = get_object_or_404(found, pk=pk)
    return with_etag(request, _sale(found))


@router.get(
    "/sales/{int:pk}/certificate/",
    response={401: Problem, 404: Problem},
    openapi_extra={"responses": PDF},
    url_name="sale_certificate_pdf",
    summary="The sale certificate's PDF as issued, once it has been drawn and stored",
)
def sale_certificate_pdf(request, pk: int):
    found = get_object_or_404(_sales(request.auth), pk=pk)
    name = "sale-certificate-" + found.certificate.number.replace("/", "-")
    return serve_stored(found.certificate.file, download_name=name, attachment=True)
