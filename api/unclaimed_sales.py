"""Auctions, their lots and the sales through the API (ss.14, 16): the same permission and scope
as the auction screens (auctions.views.auction) and the sale certificate's download
(auctions.views.documents), money as exact decimal strings, and of a buyer only what the
auction's page shows beside his lot (his bidder number and name)."""

from django.shortcuts import get_object_or_404
from django.urls import reverse
from ninja import Router, Schema

from accounts.roles import Permission
from auctions import selectors
from auctions.models import Auction, Sale
from kernel.files import serve_stored

from .common import dump, money, require, with_etag
from .schemas import AnimalOut, page_of
from .unclaimed import LIST, ONE, PDF, Q, animals_out, listing

router = Router(tags=["unclaimed cattle and sales"])


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
    scoped = Auction.objects.for_user(user).select_related("conditions", "officer", "deputy")
    return selectors.with_lot_counts(scoped)


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


def _lot_sale(sale, schema=LotSaleOut, **given):
    pdf = None
    if sale.certificate.file:
        pdf = reverse("api:sale_certificate_pdf", kwargs={"pk": sale.pk})
    return dump(
        schema,
        sale,
        price=money(sale.price),
        expenses=money(sale.expenses),
        buyer=dump(BuyerOut, sale.buyer),
        certificate=sale.certificate.number,
        certificate_pdf=pdf,
        **given,
    )


def _lot(lot):
    sale = getattr(lot, "sale", None)
    return dump(
        LotOut,
        lot,
        reserve_price=money(lot.reserve_price),
        note="" if sale else lot.note,
        animals=animals_out(lot.animals.all()),
        bids=[{"amount": money(b.amount), "bidder": b.bidder.number} for b in lot.bids.all()],
        sale=_lot_sale(sale) if sale else None,
    )


@router.get(
    "/auctions/",
    response={200: AuctionPage, **LIST},
    url_name="auctions",
    summary="Auctions (ss.14, 16), the latest announced time first",
)
def auctions(
    request,
    pound: Q = None,
    state: Q = None,
    date_from: Q = None,
    date_to: Q = None,
    after: Q = None,
):
    qs, order = _auctions(request.auth), ["-scheduled_for", "-pk"]
    states = Auction.Status.values
    return listing(request, qs, order, _auction, states=states, in_state=_in_status)


def _in_status(qs, state):
    return qs.filter(status=state)


@router.get(
    "/auctions/{int:pk}/",
    response={200: AuctionDetailOut, **ONE},
    url_name="auction",
    summary="One auction, with its lots in the order of sale, their bids and sales",
)
def auction(request, pk: int):
    found = get_object_or_404(_auctions(request.auth), pk=pk)
    lots = [_lot(lot) for lot in selectors.auction_lots(found)]
    return with_etag(request, _auction(found) | {"lots": lots})


# --- Sales ------------------------------------------------------------------------------------


def _sales(user):
    """As the sale certificate's download: the sales of the pounds whose records the caller
    reads (its scope, then the records' permission on the pound, in one filter)."""
    require(user, Permission.VIEW_RECORDS)
    scoped = Sale.objects.for_user(user, Permission.VIEW_RECORDS)
    return scoped.select_related("lot__auction", "buyer", "certificate")


def _sale(sale):
    lot = sale.lot
    return _lot_sale(
        sale,
        SaleOut,
        auction=lot.auction_id,
        auction_number=lot.auction.number,
        pound=lot.auction.pound_id,
        lot=lot.pk,
        lot_number=lot.number,
        animals=animals_out(lot.animals.all()),
    )


@router.get(
    "/sales/",
    response={200: SalePage, **LIST},
    url_name="sales",
    summary="Sales at the auctions, the latest hammer first",
)
def sales(request, pound: Q = None, date_from: Q = None, date_to: Q = None, after: Q = None):
    qs = _sales(request.auth).prefetch_related(selectors.animals_by_number("lot__animals"))
    return listing(request, qs, ["-sold_at", "-pk"], _sale, pound="lot__auction__pound")


@router.get(
    "/sales/{int:pk}/",
    response={200: SaleOut, **ONE},
    url_name="sale",
    summary="One sale: the hammer price, the buyer's bidder number and name, the certificate",
)
def sale(request, pk: int):
    found = _sales(request.auth).prefetch_related(selectors.animals_by_number("lot__animals"))
    return with_etag(request, _sale(get_object_or_404(found, pk=pk)))


@router.get(
    "/sales/{int:pk}/certificate/",
    response=ONE,
    openapi_extra=PDF,
    url_name="sale_certificate_pdf",
    summary="The sale certificate's PDF as issued, once it has been drawn and stored",
)
def sale_certificate_pdf(request, pk: int):
    found = get_object_or_404(_sales(request.auth), pk=pk)
    name = "sale-certificate-" + found.certificate.number.replace("/", "-")
    return serve_stored(found.certificate.file, download_name=name, attachment=True)
