"""Auctions, their lots and the sales through the API (ss.14, 16): the same permission and scope
as the auction screens (auctions.views.auction) and the sale certificate's download
(auctions.views.documents), money as exact decimal strings, and of a buyer only what the
auction's page shows beside his lot (his bidder number and name)."""

from functools import partial

from django.shortcuts import get_object_or_404
from django.urls import reverse
from ninja import Router, Schema

from accounts.roles import Permission
from auctions import selectors
from auctions.models import Auction, Sale
from kernel.files import serve_stored

from . import unclaimed
from .common import dump, require
from .schemas import AnimalOut, page_of, shape
from .unclaimed import PDF, Q, animals_out, listing, one

router = Router(tags=["unclaimed cattle and sales"])
get = partial(unclaimed.get, router=router)
SOLD_ANIMALS = selectors.animals_by_number("lot__animals")


BuyerOut = shape("BuyerOut", number=int, name=str)
BidOut = shape("BidOut", amount=str, bidder=int)
ConditionsOut = shape("ConditionsOut", order_reference=str, earnest_money=str)


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
    deputy = a.deputy.display_name if a.deputy_id else None
    conditions = dump(ConditionsOut, a.conditions)
    return dump(AuctionOut, a, officer=a.officer.display_name, deputy=deputy, conditions=conditions)


def _lot_sale(sale, schema=LotSaleOut, **given):
    """A sale as its lot shows it, or as `schema` with the values `given`."""
    cert = sale.certificate
    given |= {"buyer": dump(BuyerOut, sale.buyer), "certificate": cert.number}
    pdf = reverse("api:sale_certificate_pdf", kwargs={"pk": sale.pk}) if cert.file else None
    return dump(schema, sale, certificate_pdf=pdf, **given)


def _lot(lot):
    sale = getattr(lot, "sale", None)
    bids = [dump(BidOut, b, bidder=b.bidder.number) for b in lot.bids.all()]
    given = {"note": "" if sale else lot.note, "sale": _lot_sale(sale) if sale else None}
    return dump(LotOut, lot, animals=animals_out(lot.animals.all()), bids=bids, **given)


@get("/auctions/", AuctionPage, "Auctions (ss.14, 16), the latest announced time first")
def auctions(
    request,
    pound: Q = None,
    state: Q = None,
    date_from: Q = None,
    date_to: Q = None,
    after: Q = None,
):
    qs, order = _auctions(request.auth), ["-scheduled_for", "-pk"]
    return listing(request, qs, order, _auction, states=Auction.Status.values)


@get(
    "/auctions/{int:pk}/",
    AuctionDetailOut,
    "One auction, with its lots in the order of sale, their bids and sales",
)
def auction(request, pk: int):
    return one(request, _auctions(request.auth), pk, _auction_with_lots)


def _auction_with_lots(auction):
    return _auction(auction) | {"lots": [_lot(lot) for lot in selectors.auction_lots(auction)]}


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
        lot_number=lot.number,
        animals=animals_out(lot.animals.all()),
    )


@get("/sales/", SalePage, "Sales at the auctions, the latest hammer first")
def sales(request, pound: Q = None, date_from: Q = None, date_to: Q = None, after: Q = None):
    qs = _sales(request.auth).prefetch_related(SOLD_ANIMALS)
    return listing(request, qs, ["-sold_at", "-pk"], _sale, pound="lot__auction__pound")


@get(
    "/sales/{int:pk}/",
    SaleOut,
    "One sale: the hammer price, the buyer's bidder number and name, the certificate",
)
def sale(request, pk: int):
    return one(request, _sales(request.auth).prefetch_related(SOLD_ANIMALS), pk, _sale)


@get(
    "/sales/{int:pk}/certificate/",
    PDF,
    "The sale certificate's PDF as issued, once it has been drawn and stored",
)
def sale_certificate_pdf(request, pk: int):
    found = get_object_or_404(_sales(request.auth), pk=pk)
    name = "sale-certificate-" + found.certificate.number.replace("/", "-")
    return serve_stored(found.certificate.file, download_name=name, attachment=True)
