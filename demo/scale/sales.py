"""Unclaimed cattle of a scale data set, after the report (s.14): the officer's notice and its
proclamation by beat of drum, the auction on the first sale day after it with its bidders, lots,
bids and sales, the proceeds split and posted (s.17), a shortfall for the Magistrate to write
off, and the lots nobody bought disposed of by his order under the proviso (to a gaushala or an
animal welfare institution), as auctions.services write them. The surplus of each sale goes on
to the office (office.py)."""

from collections import defaultdict
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

from accounts.models import IssuedDocument
from auctions.actions import Action
from auctions.clocks import notice_dates
from auctions.models import (
    Auction,
    Bid,
    Bidder,
    DisposalOrder,
    DisposalTerms,
    Handover,
    Lot,
    LotAnimal,
    Notice,
    Proclamation,
    Sale,
    Shortfall,
)
from impounding.models import AnimalState
from ledger.models import AccountKind, TransactionKind, till

from . import gaushalas, plan
from .names import PEOPLE, mobile
from .rows import idempotency_key

ZERO = Decimal("0.00")
# Of the lots offered: those sold; the rest find no bidder and go under the proviso.
SOLD = 0.8
SALE_WEEKDAY = 1  # Tuesday, the day the conditions of sale name
# Sale expenses a lot is charged (drum, lot tickets, the auctioneer's fee), at most the
# conditions' 250.
EXPENSES = [Decimal("0.00"), Decimal("50.00"), Decimal("100.00"), Decimal("150.00")]


def dues_of(entry, animals, at):
    fines = sum((a.fine for a in animals), ZERO)
    feeding = sum((a.rate for a in animals), ZERO) * plan.feeding_days(entry, at)
    return fines, feeding


def unclaimed(rows, entries):
    """The notices of the pound's reported, unclaimed entries, and their auctions by day."""
    days = defaultdict(list)
    for entry in entries:
        if entry.outcome != "unclaimed" or "report" not in entry.extras:
            continue
        if all(a.end_at is not None for a in entry.animals):
            continue  # none left to sell
        notice = _notice(rows, entry)
        if notice is None:
            continue
        day = notice["earliest_sale"]
        day += timedelta(days=(SALE_WEEKDAY - day.weekday()) % 7)
        if plan.at_local(day, 16) < rows.now:
            days[day].append(entry)
    for day in sorted(days):
        _auction(rows, day, days[day])


def _notice(rows, entry):
    info, rng = rows.info, rows.rng
    report_id, report_number = entry.extras["report"]
    posted_on = plan.local_date(entry.reported_at) + timedelta(days=rng.randint(1, 3))
    recorded_at = plan.at_local(posted_on, 16)
    if recorded_at >= rows.now:
        return None
    last_day, earliest = notice_dates(posted_on)
    number = f"NTC/{info.code.upper()}/{posted_on.year}/"
    number += f"{rows.serial(f'ntc:{info.pk}:{posted_on.year}'):05d}"
    notice_id = rows.ids.next(Notice)
    notice = {
        "id": notice_id,
        "report_id": report_id,
        "pound_id": info.pk,
        "number": number,
        "posted_on": posted_on,
        "posted_at": f"Office of the SHO, {info.station}",
        "last_day_to_claim": last_day,
        "earliest_sale": earliest,
        "recorded_at": recorded_at,
        "recorded_by_id": info.officer_id,
        "document_id": rows.document(
            kind=IssuedDocument.Kind.S14_NOTICE,
            number=number,
            at=recorded_at,
            subject_type="auctions.notice",
            subject_id=notice_id,
            by_id=info.officer_id,
        ),
    }
    rows.tables[Notice].append(notice)
    for animal in entry.extras["reported"]:
        animal.notice_posted_on = posted_on  # as the notice's service marks them for the board
    rows.event(
        at=recorded_at,
        action=Action.S14_NOTICE_POSTED,
        section="s.14",
        summary=f"{number} posted on {posted_on:%d-%m-%Y} at {notice['posted_at']}; claims until "
        f"{last_day:%d-%m-%Y}; sale not before {earliest:%d-%m-%Y}",
        impoundment_id=entry.extras["id"],
        by_id=info.officer_id,
        data={
            "notice": number,
            "posted_on": posted_on,
            "last_day": last_day,
            "earliest_sale": earliest,
            "days_after_report": (posted_on - plan.local_date(entry.reported_at)).days,
            "seizure_place_stated": "",
        },
    )
    _proclaim(rows, entry, notice)
    return notice


def _proclaim(rows, entry, notice):
    """Both drums, in the village and at the market-place, the day after the posting; the web's
    public notice board as well for some."""
    info, rng = rows.info, rows.rng
    made_on = notice["posted_on"] + timedelta(days=1)
    village = info.village_ids[0] if info.village_ids else None
    channels = [
        (Proclamation.Channel.DRUM_VILLAGE, "" if village else "The village of seizure", village),
        (Proclamation.Channel.DRUM_MARKET, f"Weekly market, {info.district_name}", None),
    ]
    if rng.random() < 0.3:
        channels.append((Proclamation.Channel.PUBLIC_BOARD, "District website", None))
    for channel, place, village_id in channels:
        at = plan.at_local(made_on, 18)
        if at >= rows.now:
            return
        rows.add(
            Proclamation,
            notice_id=notice["id"],
            channel=channel,
            made_on=made_on,
            place=place,
            village_id=village_id,
            made_by="Chowkidar " + PEOPLE.name(rng, female=False),
            recorded_at=at,
            recorded_by_id=info.officer_id,
        )
        rows.event(
            at=at,
            action=Action.S14_PROCLAIMED,
            section="s.14",
            summary=f"{channel.label}, {made_on:%d-%m-%Y}, {place or 'the village'}",
            impoundment_id=entry.extras["id"],
            by_id=info.officer_id,
            data={
                "notice": notice["number"],
                "channel": channel,
                "made_on": made_on,
                "place": place,
                "village": village_id,
            },
        )


def conditions_on(info, day):
    inforce = [c for c in info.conditions if c[0] <= day] or info.conditions[:1]
    return inforce[-1]


def _auction(rows, day, entries):
    """One auction on `day` of every animal whose sale day it is: a lot an animal."""
    info, rng = rows.info, rows.rng
    _valid_from, conditions_id, place, _max = conditions_on(info, day)
    scheduled_for = plan.at_local(day, 11)
    created_at = scheduled_for - timedelta(days=rng.randint(1, 4), hours=-2)
    number = f"AUC/{info.code.upper()}/{day.year}/{rows.serial(f'auc:{info.pk}:{day.year}'):05d}"
    offered = [(e, a) for e in entries for a in e.animals if a.end_at is None]
    auction_id = rows.add(
        Auction,
        pound_id=info.pk,
        kind=Auction.Kind.UNCLAIMED,
        number=number,
        scheduled_for=scheduled_for,
        place=place,
        conditions_id=conditions_id,
        officer_id=info.officer_id,
        status=Auction.Status.CLOSED,
        created_at=created_at,
        created_by_id=info.officer_id,
        closed_at=scheduled_for + timedelta(hours=3),
        officer_declaration_at=scheduled_for - timedelta(minutes=15),
        idempotency_key=idempotency_key(rng),
    )
    _auction_event(rows, created_at, Action.AUCTION_SCHEDULED,
                   f"{number} on {day:%d-%m-%Y} at {place}: {len(offered)} lot(s)",
                   {"auction": number, "lots": len(offered)})  # fmt: skip
    bidders = register_bidders(rows, auction_id, scheduled_for, len(offered))
    unsold = defaultdict(list)
    for n, (entry, animal) in enumerate(offered, start=1):
        at = scheduled_for + timedelta(minutes=10 * n)
        lot_id = rows.add(
            Lot, auction_id=auction_id, number=n, sequence=n, reserve_price=ZERO, status="open"
        )
        sold = rng.random() < SOLD
        rows.add(LotAnimal, lot_id=lot_id, animal_id=animal.id, sold=sold)
        if sold:
            rows.tables[Lot][-1]["status"] = Lot.Status.SOLD
            _sell(rows, entry, animal, lot_id, n, number, bidders, at)
        else:
            rows.tables[Lot][-1]["status"] = Lot.Status.UNSOLD
            rows.tables[Lot][-1]["note"] = "No bid, or no fair price"
            unsold[entry.extras["id"]].append((entry, animal))
            _auction_event(rows, at, Action.AUCTION_UNSOLD, f"{number} lot {n} not sold",
                           {"lot": lot_id}, entry)  # fmt: skip
    _auction_event(rows, scheduled_for + timedelta(hours=3), Action.AUCTION_CLOSED,
                   f"{number} closed", {"auction": number})  # fmt: skip
    for group in unsold.values():
        _dispose(rows, group, number, scheduled_for)


def _auction_event(rows, at, action, summary, data, entry=None):
    rows.event(
        at=at,
        action=action,
        section="s.14",
        summary=summary,
        impoundment_id=entry.extras["id"] if entry else None,
        by_id=rows.info.officer_id,
        data=data,
    )


def register_bidders(rows, auction_id, scheduled_for, lots):
    info, rng = rows.info, rows.rng
    out = []
    for n in range(1, min(12, lots + rng.randint(1, 4)) + 1):
        at = scheduled_for - timedelta(minutes=rng.randint(5, 60))
        aadhaar = rng.random() < 0.6
        bidder = {
            "auction_id": auction_id,
            "number": n,
            "name": PEOPLE.name(rng),
            "address": f"Village {rng.randint(1, 400)}, {info.district_name}",
            "id_kind": Bidder.IdKind.AADHAAR if aadhaar else Bidder.IdKind.VOTER,
            "id_number": f"{rng.randrange(10**4):04d}"
            if aadhaar
            else "".join(rng.choices("ABCDEFGHJKLMNPRSTUVXYZ", k=3))
            + f"{rng.randrange(10**7):07d}",
            "phone": mobile(rng),
            "declaration_signed": True,
            "registered_at": at,
            "registered_by_id": info.officer_id,
        }
        bidder["id"] = rows.add(Bidder, **bidder)
        out.append(bidder)
        _auction_event(rows, at, Action.AUCTION_BIDDER_REGISTERED, f"Bidder {n} registered",
                       {"bidder": bidder["id"], "number": n, "matches": []})  # fmt: skip
    return out


def _voter_id(rng):
    return "".join(rng.choices("ABCDEFGHJKLMNPRSTUVXYZ", k=3)) + f"{rng.randrange(10**7):07d}"


def hammer_price(rng, dues):
    """The hammer price: around the dues, above them more often than not, in fifties."""
    price = dues * Decimal(str(round(rng.uniform(0.5, 3.0), 2)))
    return max(Decimal("100"), (price / 50).quantize(Decimal("1"), ROUND_HALF_UP) * 50)


def allocate(price, *, expenses, feeding, fines):
    """auctions.services.common.allocate: expenses, then feeding, then fines; the rest is
    surplus."""
    paid = []
    left = price
    for due in (expenses, feeding, fines):
        paid.append(min(left, due))
        left -= paid[-1]
    return paid, left


def _sell(rows, entry, animal, lot_id, n, number, bidders, at):
    info, rng = rows.info, rows.rng
    fines, feeding = dues_of(entry, [animal], at)
    expenses = rng.choice(EXPENSES)
    price = hammer_price(rng, fines + feeding + expenses)
    (p_exp, p_feed, p_fines), surplus = allocate(
        price, expenses=expenses, feeding=feeding, fines=fines
    )
    short = {"expenses": expenses - p_exp, "feeding": feeding - p_feed, "fines": fines - p_fines}
    bidding = rng.sample(bidders, min(len(bidders), rng.randint(1, 4)))
    step = (price / (len(bidding) + 1)).quantize(Decimal("1"))
    for k, bidder in enumerate(bidding, start=1):
        amount = price if k == len(bidding) else max(Decimal("50"), step * k)
        rows.add(Bid, lot_id=lot_id, bidder_id=bidder["id"], amount=amount,
                 at=at - timedelta(minutes=len(bidding) - k),
                 recorded_by_id=info.officer_id)  # fmt: skip
    mode = "cash" if rng.random() < 0.8 else "upi"
    sale_id = rows.ids.next(Sale)
    sale = {
        "id": sale_id,
        "lot_id": lot_id,
        "buyer_id": bidding[-1]["id"],
        "price": price,
        "payment_mode": mode,
        "payment_reference": "" if mode == "cash" else f"UPI-S{sale_id:09d}",
        "sold_at": at,
        "sold_by_id": info.officer_id,
        "fines": p_fines,
        "feeding": p_feed,
        "expenses": p_exp,
        "surplus": surplus,
        "shortfall": sum(short.values(), ZERO),
        "certificate_id": rows.document(
            kind=IssuedDocument.Kind.SALE_CERTIFICATE,
            number=f"CERT/{number.split('/', 1)[1]}/{n}",
            at=at,
            subject_type="auctions.sale",
            subject_id=sale_id,
            by_id=info.officer_id,
        ),
    }
    rows.tables[Sale].append(sale)
    sale["day"] = plan.local_date(at)  # for the office; not a column
    if sale["shortfall"]:
        record_shortfall(rows, short, at, sale_id=sale_id)
    animal.state, animal.custody_ended_at = AnimalState.SOLD, at
    rows.post(
        kind=TransactionKind.SALE_S14,
        at=at,
        memo=f"{number} lot {n} sold to bidder {bidding[-1]['number']} for ₹{price}",
        source=f"auctions.sale:{sale_id}",
        section="s.17",
        by_id=info.officer_id,
        impoundment_id=entry.extras["id"],
        lines=[
            ((info.pk, till(mode)), price),
            ((None, AccountKind.SALE_EXPENSES), -p_exp),
            ((info.pk, AccountKind.FEEDING_PK), -p_feed),
            ((None, AccountKind.FINES_DUE_DM), -p_fines),
            ((None, AccountKind.DM_SURPLUS_HELD), -surplus),
        ],
    )
    _auction_event(rows, at, Action.AUCTION_SOLD, f"{number} lot {n} "
                   f"({entry.extras['number']}/{animal.number}) sold to bidder "
                   f"{bidding[-1]['number']} for ₹{price}",
                   {"auction": number, "lot": n, "price": price, "fines": p_fines,
                    "feeding": p_feed, "expenses": p_exp, "surplus": surplus,
                    "shortfall": sale["shortfall"]}, entry)  # fmt: skip
    rows.sales.append(sale)


def record_shortfall(rows, short, at, **source):
    """Dues a sale or disposal left unpaid; the Magistrate writes off those a month old."""
    written_off = at + timedelta(days=rows.rng.randint(20, 40))
    done = written_off < rows.now
    rows.add(
        Shortfall,
        pound_id=rows.info.pk,
        fines=short["fines"],
        feeding=short["feeding"],
        expenses=short["expenses"],
        status=Shortfall.Status.WRITTEN_OFF if done else Shortfall.Status.PENDING,
        recorded_at=at,
        decided_by_id=rows.info.magistrate_id if done else None,
        decided_at=written_off if done else None,
        **source,
    )


def _dispose(rows, group, auction_number, held_at):
    """The office proposes, and the Magistrate orders, that an entry's unsold animals go to a
    gaushala or an institution (the proviso to s.14); no price, so the dues fall short."""
    info, rng = rows.info, rows.rng
    entry = group[0][0]
    animals = [a for _e, a in group]
    prepared = held_at + timedelta(days=rng.randint(3, 10), hours=4)
    if prepared >= rows.now:
        return
    decided = prepared + timedelta(days=rng.randint(1, 5))
    approved = decided < rows.now
    # A body of the district's register with room, else an institution (ADR 0070).
    body = gaushalas.with_room(info, len(animals)) if rng.random() < 0.7 else None
    gaushala = body is not None
    recipient = body["name"] if gaushala else f"District SPCA, {info.district_name}"
    year = plan.local_date(prepared).year
    number = f"DSP/{info.code.upper()}/{year}/{rows.serial(f'dsp:{info.pk}:{year}'):05d}"
    order_id = rows.add(
        DisposalOrder,
        pound_id=info.pk,
        number=number,
        reason=f"No bid at {auction_number}: old and unproductive, unlikely to fetch a fair price",
        mode=DisposalOrder.Mode.GAUSHALA if gaushala else DisposalOrder.Mode.INSTITUTION,
        recipient=recipient,
        status=DisposalOrder.Status.APPROVED if approved else DisposalOrder.Status.PROPOSED,
        prepared_by_id=info.office_id,
        prepared_at=prepared,
        decided_by_id=info.magistrate_id if approved else None,
        decided_at=decided if approved else None,
        idempotency_key=idempotency_key(rng),
    )
    rows.disposal_animals.extend((order_id, a.id) for a in animals)
    fines, feeding = dues_of(entry, animals, decided) if approved else (ZERO, ZERO)
    rows.add(
        DisposalTerms,
        order_id=order_id,
        address=body["address"] if gaushala else recipient,
        phone=body["phone"] if gaushala else "",
        registration=body["registration"] if gaushala else "",
        details="Animals handed over with their register particulars",
        fines_due=fines,
        feeding_due=feeding,
        shortfall=fines + feeding,
    )
    summary = f"{number}: {len(animals)} animal(s) to {recipient}"
    rows.event(at=prepared, action=Action.DISPOSAL_PROPOSED, section="s.14",
               summary=f"{summary} proposed", impoundment_id=entry.extras["id"],
               by_id=info.office_id,
               data={"order": number, "mode": rows.tables[DisposalOrder][-1]["mode"]})  # fmt: skip
    if not approved:
        return
    for animal in animals:
        animal.state, animal.custody_ended_at = AnimalState.DISPOSED, decided
    if fines + feeding:
        record_shortfall(rows, {"fines": fines, "feeding": feeding, "expenses": ZERO}, decided,
                   disposal_id=order_id)  # fmt: skip
    rows.event(at=decided, action=Action.DISPOSAL_APPROVED, section="s.14",
               summary=f"{summary} approved", impoundment_id=entry.extras["id"],
               by_id=info.magistrate_id,
               data={"order": number, "fines_due": fines, "feeding_due": feeding,
                     "shortfall": fines + feeding})  # fmt: skip
    if gaushala:
        _handover(rows, body, order_id, decided, len(animals))


def _handover(rows, body, order_id, decided, head):
    """The approved handover's certificate, signed by the body on receipt; the dues as the pack
    says (the central pack says nothing: the claim against the owner is kept)."""
    received_on = plan.local_date(decided)
    year = received_on.year
    info = rows.info
    number = f"GCR/{info.code.upper()}/{year}/{rows.serial(f'gcr:{info.pk}:{year}'):05d}"
    handover_id = rows.ids.next(Handover)
    certificate = rows.document(kind=IssuedDocument.Kind.HANDOVER_CERTIFICATE, number=number,
                                at=decided, subject_type="auctions.handover",
                                subject_id=handover_id, by_id=info.magistrate_id)  # fmt: skip
    rows.tables[IssuedDocument][-1]["animal_count"] = head
    rows.tables[Handover].append({"id": handover_id, "order_id": order_id,
                                  "gaushala_id": body["id"], "dues_rule": body["dues_rule"],
                                  "pack": body["pack"], "received_on": received_on,
                                  "certificate_id": certificate})  # fmt: skip
