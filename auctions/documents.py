"""The documents of the unclaimed-cattle and sale workflow: one small function each, returning
PDF bytes.

- the pound-keeper's report to the officer of cattle not claimed within seven days (s.14);
- the officer's notice for the wall of his office, a poster (s.14);
- the certificate of sale to the purchaser (ss.14, 16, 19);
- the account to the owner after a sale on his refusal to pay, items (a)-(f) (s.16).

Bilingual like the register's documents (impounding.documents): English, with the Hindi beside
it. Every one was registered as an IssuedDocument by the service that made its record
(auctions.services), so these functions only read and render: no transaction, no lock.
"""

import base64
import hashlib
import io
import logging

from django.db.models import Prefetch
from django.utils import timezone
from django.utils.translation import gettext as _
from PIL import Image, ImageOps

from accounts.letterhead import letterhead
from accounts.models import IssuedDocument
from impounding.documents import animal_row
from impounding.models import Animal, AnimalState
from impounding.selectors import inspection_record
from kernel import clock
from kernel.dates import days_between, ist_date
from kernel.documents import Both, both, kept_drawing, render_pdf, verification_context
from kernel.languages import amount_in_both, in_district_language

from .models import (
    Auction,
    DisposalOrder,
    Handover,
    Lot,
    LotAnimal,
    Notice,
    Proclamation,
    Report,
    S16Case,
    Sale,
)
from .services import allocate
from .services.order import DRUMS, notice_of

log = logging.getLogger(__name__)

# The notice's photographs: small enough to keep the poster light, large enough to recognise.
THUMBNAIL_PX = 360


def _person(user):
    """A member of staff's name in English and in Hindi (empty when there is no Hindi name)."""
    if user is None:
        return None
    return Both(user.get_full_name() or user.username, user.name_hi or "")


def _named(obj):
    """A place with English and Hindi names (pound, police station, village)."""
    if obj is None:
        return None
    return Both(obj.name, obj.name_hi or obj.name)


def _thumbnail(field, px=THUMBNAIL_PX):
    """An image field as a small JPEG data URI, or None when there is no file or it cannot be
    read: a missing photo never stops the notice."""
    if not field:
        return None
    try:
        with field.open("rb") as f:
            image = ImageOps.exif_transpose(Image.open(f))
            image.load()
        if image.mode in ("RGBA", "LA", "P"):
            # A signature drawn on the screen is a transparent PNG: put it on white paper.
            image = image.convert("RGBA")
            paper = Image.new("RGB", image.size, "white")
            paper.paste(image, mask=image.getchannel("A"))
            image = paper
        image = image.convert("RGB")
        image.thumbnail((px, px))
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=72, optimize=True)
    except Exception as exc:  # a missing or damaged file: Pillow and storage raise many kinds
        log.warning("Photo %s could not be read for a document: %r", field.name, exc)
        return None
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def _addressee(report):
    """To whom the s.14 report goes: the officer the District Magistrate appointed for the
    pound, or else the officer in charge of the nearest police station."""
    station = _named(report.police_station)
    if report.officer is not None:
        return {
            "name": _person(report.officer),
            "capacity": both(
                lambda: _("Officer appointed by the District Magistrate for this pound")
            ),
            "station": station,
        }
    return {
        "name": None,
        "capacity": both(lambda: _("The officer in charge of the police station")),
        "station": station,
    }


def _seizure_place(entry):
    village = entry.seizure_village
    return {"place": entry.seizure_place, "village": _named(village) if village else None}


def _public_seizure_place(notice):
    """The place of seizure as the notice gives it (s.14(b)): the village chosen from the list,
    and the place the officer stated when posting it or else the description the keeper
    confirmed fit to publish; never the free text of the register, which may name the owner's
    field (docs/domain.md §3, as the board)."""
    entry = notice.report.impoundment
    village = entry.seizure_village
    place = notice.seizure_place or entry.notice_description
    return {"place": place, "village": _named(village) if village else None}


def _drums(notice, *, on=None):
    """The proclamations of the notice by beat of drum as recorded (s.14): in the village or at
    the market-place, where, when and by whom; those made by `on`, when given. Nothing is said
    of a drum no one recorded."""
    made = notice.proclamations.filter(channel__in=DRUMS).select_related("village")
    if on is not None:
        made = made.filter(made_on__lte=on)
    rows = []
    for p in made.order_by("made_on", "pk"):
        village = _named(p.village)
        rows.append(
            {
                "in_village": p.channel == Proclamation.Channel.DRUM_VILLAGE,
                "where": Both(
                    ", ".join(x for x in (p.place, village.en if village else "") if x),
                    ", ".join(x for x in (p.place, village.hi if village else "") if x),
                ),
                "on": p.made_on,
                "by": p.made_by,
            }
        )
    return rows


@in_district_language(lambda obj, *args, **kwargs: obj.pound.district_id)
def notice_basis(notice):
    """What a drawing of the notice depends on besides the notice itself: its drum
    proclamations. "" before any is recorded, so the notice as posted is the one kept; a
    download after a proclamation is drawn afresh with it (IssuedDocument.objects.kept_pdf)."""
    facts = notice.proclamations.filter(channel__in=DRUMS).order_by("pk")
    facts = list(facts.values_list("pk", "channel", "made_on", "place", "village_id", "made_by"))
    return hashlib.sha256(repr(facts).encode()).hexdigest() if facts else ""


# s.14: the pound-keeper's report to the officer --------------------------------------------


@in_district_language(lambda obj, *args, **kwargs: obj.pound.district_id)
def report_pdf(report):
    """The report of cattle not claimed within seven days of impounding (s.14), from the
    pound-keeper to the officer: register number, number and description of the cattle, place
    of seizure, place impounded, date impounded, and when it was due and sent."""
    report = Report.objects.select_related(
        "pound__district",
        "impoundment__seizure_village",
        "police_station",
        "officer",
        "sent_by",
        "document",
    ).get(pk=report.pk)
    entry = report.impoundment
    animals = [animal_row(a) for a in report.animals.order_by("number")]
    context = {
        "report": report,
        "entry": entry,
        "animals": animals,
        "to": _addressee(report),
        "seizure": _seizure_place(entry),
        "keeper": _person(report.sent_by),
        "printed_at": clock.now(entry.pound),
        **letterhead(IssuedDocument.Kind.S14_REPORT, pound=report.pound),
        **verification_context(report.document),
    }
    return render_pdf("pdf/auctions/report.html", context, language="en")


# s.14: the notice for the wall of the officer's office ------------------------------------


def _poster_layout(count):
    if count <= 2:
        return "few"
    if count <= 6:
        return "some"
    return "many" if count <= 12 else "mass"


@in_district_language(lambda obj, *args, **kwargs: obj.pound.district_id)
def notice_pdf(notice):
    """The notice the officer sticks up in a conspicuous part of his office (s.14): (a) the
    number and description of the cattle, with their photographs, (b) the place where they were
    seized, (c) the place where they are impounded; the last day to claim and the earliest day
    of sale. A poster, to be read from a distance: one A4 page. No owner or seizer is named."""
    notice = Notice.objects.select_related(
        "pound__district",
        "document",
        "report__impoundment__seizure_village",
        "report__police_station",
        "report__officer",
    ).get(pk=notice.pk)
    report = notice.report
    entry = report.impoundment
    animals = []
    for animal in report.animals.order_by("number"):
        row = animal_row(animal)
        # The marks are free text that stays in the register, as on the board; the confirmed
        # description may name them.
        row["marks"] = ""
        row["photo"] = _thumbnail(animal.photo)
        animals.append(row)
    context = {
        "notice": notice,
        "report": report,
        "entry": entry,
        "animals": animals,
        "photos": any(a["photo"] for a in animals),
        # Few animals get large rows; more go in two or three columns, smaller, to stay on one
        # page (up to about two dozen).
        "layout": _poster_layout(len(animals)),
        "dense": len(animals) > 6,
        "officer": _addressee(report),
        "seizure": _public_seizure_place(notice),
        "drums": _drums(notice),
        "pound": notice.pound,
        **letterhead(IssuedDocument.Kind.S14_NOTICE, pound=notice.pound),
        **verification_context(notice.document),
    }
    return render_pdf("pdf/auctions/notice.html", context, language="en")


# ss.14, 16 and 19: the certificate of sale to the purchaser --------------------------------


def _proclaimed(lot, sale):
    """The notices the lot's animals were sold under (s.14), each with its posting and its drum
    proclamations made by the day of sale, as recorded."""
    day = timezone.localtime(sale.sold_at).date()
    notices = {}
    for animal in Animal.objects.filter(lotanimal__lot=lot).order_by("pk"):
        notice = notice_of(animal)
        if notice is not None and notice.pk not in notices:
            notices[notice.pk] = {"notice": notice, "drums": _drums(notice, on=day)}
    return list(notices.values())


@in_district_language(lambda sale: sale.lot.auction.pound.district_id)
def sale_certificate_pdf(sale):
    """The certificate of sale to the purchaser: the auction, the lot and its animals, the
    buyer, the price in figures and in words, the conducting officer, and the declarations of
    s.19 (the buyer's, from the District Magistrate's conditions, and the officer's)."""
    sale = Sale.objects.select_related(
        "lot__auction__pound__district",
        "lot__auction__conditions",
        "lot__auction__officer",
        "lot__auction__deputy",
        "buyer",
        "certificate",
    ).get(pk=sale.pk)
    lot = sale.lot
    auction = lot.auction
    animals = []
    for animal in (
        Animal.objects.filter(lotanimal__lot=lot)
        .select_related("impoundment")
        .order_by("impoundment__register_number", "number")
    ):
        row = animal_row(animal)
        row["reference"] = animal.reference
        row["calf_of"] = animal.dam.number if animal.dam_id else None
        animals.append(row)
    buyer = sale.buyer
    context = {
        "proclaimed": _proclaimed(lot, sale) if auction.kind == Auction.Kind.UNCLAIMED else [],
        "sale": sale,
        "lot": lot,
        "auction": auction,
        "conditions": auction.conditions,
        "kind": both(auction.get_kind_display),
        "section": both(
            lambda: _("section 14") if auction.kind == Auction.Kind.UNCLAIMED else _("section 16")
        ),
        "animals": animals,
        "buyer": buyer,
        "buyer_id_kind": both(buyer.get_id_kind_display),
        "payment_mode": both(sale.get_payment_mode_display),
        **amount_in_both(sale.price),
        "officer": _person(auction.officer),
        "deputy": _person(auction.deputy),
        "printed_at": clock.now(auction.pound),
        **letterhead(IssuedDocument.Kind.SALE_CERTIFICATE, pound=auction.pound),
        **verification_context(sale.certificate),
    }
    return render_pdf("pdf/auctions/sale_certificate.html", context, language="en")


# s.16: the account to the owner ------------------------------------------------------------


class NotSettled(Exception):
    """The s.16 account exists only once the case is settled."""


def _calendar_days(start, end):
    """IST calendar days from `start` to `end`, both counted."""
    return sum(1 for _day in days_between(ist_date(start), ist_date(end)))


@in_district_language(lambda obj, *args, **kwargs: obj.pound.district_id)
def s16_account_pdf(case):
    """The account delivered to the owner with the remaining cattle and the balance (s.16):
    (a) the number of cattle seized, (b) the time they were impounded, (c) the fines and
    charges, (d) the number sold, (e) the proceeds, (f) how the proceeds were disposed of
    (s.17); then the animals returned and the owner's receipt for them and for the balance.
    Raises NotSettled for a case not yet settled."""
    case = S16Case.objects.select_related(
        "pound__district", "impoundment", "closed_by", "account_document"
    ).get(pk=case.pk)
    if case.status != S16Case.Status.CLOSED or case.account_document is None:
        raise NotSettled(case.pk)
    entry = case.impoundment
    animals = list(case.animals.select_related("impoundment").order_by("number"))
    returned_here = set(case.returned_animals.values_list("pk", flat=True))
    seized = [a for a in animals if a.born_at is None]
    sold = [a for a in animals if a.state == AnimalState.SOLD]
    returned = [a for a in animals if a.state == AnimalState.RETURNED_S16 and a.pk in returned_here]
    lots = list(
        Lot.objects.filter(auction__s16_case=case, status=Lot.Status.SOLD)
        .select_related("auction", "sale")
        .prefetch_related(
            Prefetch(
                "lotanimal_set",
                queryset=LotAnimal.objects.select_related("animal").order_by("animal__number"),
            )
        )
        .order_by("auction__scheduled_for", "sequence")
    )
    sold_lots = [
        {
            "lot": lot,
            "sale": lot.sale,
            "animals": [animal_row(la.animal) for la in lot.lotanimal_set.all()],
        }
        for lot in lots
    ]
    paid_expenses, paid_feeding, paid_fines, balance, short = allocate(
        case.proceeds, fines=case.fines, feeding=case.feeding, expenses=case.expenses
    )
    if balance != case.balance or sum(short.values()) != case.shortfall:
        # The stored account is what the owner was given: it wins, and the mismatch is logged.
        log.error("s.16 case %s: stored balance or shortfall differs from the allocation", case.pk)
    shortfall = getattr(case, "shortfall_record", None)
    context = {
        "case": case,
        "entry": entry,
        "document": case.account_document,
        "seized_count": len(seized),
        "born_count": len(animals) - len(seized),
        "sold_count": len(sold),
        "sold_lots": sold_lots,
        "returned": [animal_row(a) for a in returned],
        "impounded_from": entry.arrived_at,
        "impounded_to": case.closed_at,
        "impounded_days": _calendar_days(entry.arrived_at, case.closed_at),
        "charges": case.fines + case.feeding + case.expenses,
        "paid_fines": paid_fines,
        "paid_feeding": paid_feeding,
        "paid_expenses": paid_expenses,
        "shortfall": shortfall,
        # The veterinary inspection at intake, where recorded or the pack requires it (ADR 71).
        "inspection": inspection_record(entry),
        "balance_mode": both(case.get_balance_mode_display) if case.balance_mode else None,
        **amount_in_both(case.balance),
        "signature": _thumbnail(case.signature, px=480) if case.signature else None,
        "officer": _person(case.closed_by),
        "printed_at": clock.now(case.pound),
        **letterhead(IssuedDocument.Kind.S16_ACCOUNT, pound=case.pound),
        **verification_context(case.account_document),
    }
    return render_pdf("pdf/auctions/s16_account.html", context, language="en")


# The proviso to s.14: the District Magistrate's disposal order ------------------------------


@in_district_language(lambda obj, *args, **kwargs: obj.pound.district_id)
def disposal_order_pdf(order):
    """The District Magistrate's order under the proviso to s.14, with its terms: the buyer, the
    price and its split over the dues (s.17) for a sale by private treaty; the receiving body for
    a transfer; the veterinary certificate for destruction; and any shortfall left to write off."""
    order = DisposalOrder.objects.select_related(
        "pound__district", "prepared_by", "decided_by", "terms"
    ).get(pk=order.pk)
    terms = getattr(order, "terms", None)
    animals = []
    for animal in order.animals.select_related("impoundment").order_by(
        "impoundment__register_number", "number"
    ):
        row = animal_row(animal)
        row["reference"] = animal.reference
        animals.append(row)
    context = {
        "order": order,
        "terms": terms,
        "mode": both(order.get_mode_display),
        "status": both(order.get_status_display),
        "id_kind": both(terms.get_id_kind_display) if terms and terms.id_kind else None,
        "payment_mode": both(terms.get_payment_mode_display)
        if terms and terms.payment_mode
        else None,
        **(
            amount_in_both(terms.price)
            if terms and terms.price
            else {"words_en": "", "words_hi": ""}
        ),
        "animals": animals,
        "prepared_by": _person(order.prepared_by),
        "decided_by": _person(order.decided_by),
        "printed_at": clock.now(order.pound),
        **letterhead(pound=order.pound),
    }
    return kept_drawing(
        "disposal-order",
        "pdf/auctions/disposal_order.html",
        context,
        stamps=["printed_at"],
        language="en",
    )


@in_district_language(lambda handover: handover.order.pound.district_id)
def handover_certificate_pdf(handover):
    """The certificate of handover the receiving body signs: the Magistrate's order, the body
    from the register, the animals, and what becomes of their dues under the rule pack."""
    handover = Handover.objects.select_related(
        "order__pound__district", "order__decided_by", "gaushala", "certificate"
    ).get(pk=handover.pk)
    order = handover.order
    animals = []
    for animal in order.animals.select_related("impoundment").order_by(
        "impoundment__register_number", "number"
    ):
        row = animal_row(animal)
        row["reference"] = animal.reference
        animals.append(row)
    dues = (
        (lambda: _("Written off, as the rule pack says"))
        if handover.dues_rule == "write_off"
        else (lambda: _("Kept as a claim against the owner, if he is found"))
    )
    context = {
        "handover": handover,
        "order": order,
        "body": handover.gaushala,
        "kind": both(handover.gaushala.get_kind_display),
        "dues": both(dues),
        "animals": animals,
        "decided_by": _person(order.decided_by),
        "printed_at": clock.now(order.pound),
        **letterhead(IssuedDocument.Kind.HANDOVER_CERTIFICATE, pound=order.pound),
        **verification_context(handover.certificate),
    }
    return render_pdf("pdf/auctions/handover_certificate.html", context, language="en")
