"""Sales on the owner's refusal (s.16) in a scale data set: the owner appears and will not pay,
as many of his animals are sold as cover the dues, one lot at a time, and the rest go back to
him with the balance and the account of items (a)-(f), as auctions.services.s16 writes them:
each sale's price held (SALE_S16), then applied at the settlement (S16_SETTLED), the balance
paid, and any shortfall recorded."""

from datetime import timedelta

from accounts.models import IssuedDocument
from auctions.actions import Action
from auctions.models import Auction, Lot, LotAnimal, S16Case, Sale
from impounding.models import AnimalState
from ledger.models import AccountKind, TransactionKind, till

from . import plan
from .rows import idempotency_key
from .sales import (
    EXPENSES,
    ZERO,
    allocate,
    conditions_on,
    dues_of,
    hammer_price,
    record_shortfall,
    register_bidders,
)


def refused(rows, entry, animals):
    """The owner refuses at the claim; the sale two to five days later, unless that is past
    the data set's end (the case then waits, its animals in the pound)."""
    info, rng = rows.info, rows.rng
    at = entry.claimed_at
    case_id = rows.ids.next(S16Case)
    case = {
        "id": case_id,
        "pound_id": info.pk,
        "impoundment_id": entry.extras["id"],
        "owner_name": entry.claimant,
        "owner_address": "the village of seizure",
        "refused": True,
        "recorded_at": at,
        "recorded_by_id": info.keeper_id,
        "status": S16Case.Status.OPEN,
        "idempotency_key": idempotency_key(rng),
    }
    rows.tables[S16Case].append(case)
    rows.s16_animals.extend((case_id, a.id) for a in animals)
    _event(rows, entry, at, Action.S16_REFUSED, f"The owner refused to pay for {len(animals)} "
           "animal(s): as many as necessary to be sold",
           {"case": case_id, "animals": [a.number for a in animals]}, info.keeper_id,
           {"name": case["owner_name"], "address": case["owner_address"]})  # fmt: skip
    day = plan.local_date(at) + timedelta(days=rng.randint(2, 5))
    if plan.at_local(day, 16) < rows.now:
        _sale(rows, entry, case, animals, day)


def _event(rows, entry, at, action, summary, data, by_id, personal=None):
    rows.event(at=at, action=action, section="s.16", summary=summary, by_id=by_id,
               impoundment_id=entry.extras["id"], data=data, personal=personal)  # fmt: skip


def _sale(rows, entry, case, animals, day):
    """One lot an animal, sold in order until the proceeds cover the dues and expenses."""
    info, rng = rows.info, rows.rng
    _valid_from, conditions_id, place, _max = conditions_on(info, day)
    scheduled_for = plan.at_local(day, 11)
    number = f"AUC/{info.code.upper()}/{day.year}/{rows.serial(f'auc:{info.pk}:{day.year}'):05d}"
    auction_id = rows.add(
        Auction,
        pound_id=info.pk,
        kind=Auction.Kind.OWNER_REFUSED,
        number=number,
        scheduled_for=scheduled_for,
        place=place,
        conditions_id=conditions_id,
        officer_id=info.officer_id,
        s16_case_id=case["id"],
        status=Auction.Status.CLOSED,
        created_at=case["recorded_at"] + timedelta(hours=1),
        created_by_id=info.officer_id,
        closed_at=scheduled_for + timedelta(hours=2),
        officer_declaration_at=scheduled_for - timedelta(minutes=15),
        idempotency_key=idempotency_key(rng),
    )
    bidders = register_bidders(rows, auction_id, scheduled_for, len(animals))
    proceeds = expenses = ZERO
    sold, covered_at = [], None
    for n, animal in enumerate(animals, start=1):
        at = scheduled_for + timedelta(minutes=10 * n)
        status = Lot.Status.NOT_NEEDED if covered_at else Lot.Status.SOLD
        lot_id = rows.add(Lot, auction_id=auction_id, number=n, sequence=n, reserve_price=ZERO,
                          status=status)  # fmt: skip
        rows.add(LotAnimal, lot_id=lot_id, animal_id=animal.id, sold=not covered_at)
        if covered_at:
            continue
        fines, feeding = dues_of(entry, animals, at)
        expense = rng.choice(EXPENSES)
        price = hammer_price(rng, (fines + feeding) / len(animals))
        _sell(rows, entry, lot_id, n, number, bidders, at, price, expense, case)
        animal.state, animal.custody_ended_at = AnimalState.SOLD, at
        sold.append(animal)
        proceeds, expenses = proceeds + price, expenses + expense
        if proceeds >= fines + feeding + expenses:
            covered_at = at
            _event(rows, entry, at, Action.S16_COVERED, f"Proceeds ₹{proceeds} cover the dues",
                   {"case": case["id"], "proceeds": proceeds}, info.officer_id)  # fmt: skip
    rest = [a for a in animals if a not in sold]
    at = scheduled_for + timedelta(hours=3)
    _settle(rows, entry, case, animals, rest, at, expenses=expenses, proceeds=proceeds)


def _sell(rows, entry, lot_id, n, number, bidders, at, price, expense, case):
    info, rng = rows.info, rows.rng
    buyer = rng.choice(bidders)
    mode = "cash" if rng.random() < 0.8 else "upi"
    sale_id = rows.ids.next(Sale)
    rows.tables[Sale].append(
        {
            "id": sale_id,
            "lot_id": lot_id,
            "buyer_id": buyer["id"],
            "price": price,
            "payment_mode": mode,
            "payment_reference": "" if mode == "cash" else f"UPI-S{sale_id:09d}",
            "sold_at": at,
            "sold_by_id": info.officer_id,
            "expenses": expense,
            "certificate_id": rows.document(
                kind=IssuedDocument.Kind.SALE_CERTIFICATE,
                number=f"CERT/{number.split('/', 1)[1]}/{n}",
                at=at,
                subject_type="auctions.sale",
                subject_id=sale_id,
                by_id=info.officer_id,
            ),
        }
    )
    rows.post(
        kind=TransactionKind.SALE_S16,
        at=at,
        memo=f"{number} lot {n} sold to bidder {buyer['number']} for ₹{price}",
        source=f"auctions.sale:{sale_id}",
        section="s.16",
        by_id=info.officer_id,
        impoundment_id=entry.extras["id"],
        lines=[((info.pk, till(mode)), price), ((None, AccountKind.SALE_PROCEEDS_HELD), -price)],
    )
    _event(rows, entry, at, Action.AUCTION_SOLD, f"{number} lot {n} sold to bidder "
           f"{buyer['number']} for ₹{price}", {"auction": number, "lot": n, "price": price,
           "case": case["id"]}, info.officer_id)  # fmt: skip


def _settle(rows, entry, case, animals, rest, at, *, expenses, proceeds):
    """The account closed: the proceeds applied, the rest of the cattle and the balance handed
    back, any shortfall recorded."""
    info = rows.info
    fines, feeding = dues_of(entry, animals, at)
    (p_exp, p_feed, p_fines), balance = allocate(
        proceeds, expenses=expenses, feeding=feeding, fines=fines
    )
    short = {"expenses": expenses - p_exp, "feeding": feeding - p_feed, "fines": fines - p_fines}
    document = rows.document(kind=IssuedDocument.Kind.S16_ACCOUNT,
                             number=f"ACC/{info.code.upper()}/{case['id']:05d}", at=at,
                             subject_type="auctions.s16case", subject_id=case["id"])  # fmt: skip
    case.update(
        status=S16Case.Status.CLOSED,
        closed_at=at,
        closed_by_id=info.keeper_id,
        fines=fines,
        feeding=feeding,
        expenses=expenses,
        proceeds=proceeds,
        balance=balance,
        shortfall=sum(short.values(), ZERO),
        balance_mode="cash",
        acknowledgement="register_page",
        register_page=str(rows.rng.randint(1, 400)),
        account_document_id=document,
    )
    source = f"auctions.s16case:{case['id']}"
    rows.post(kind=TransactionKind.S16_SETTLED, at=at, section="s.17", source=source,
              memo=f"s.16 account of {entry.extras['number']}", impoundment_id=entry.extras["id"],
              lines=[((None, AccountKind.SALE_PROCEEDS_HELD), proceeds),
                     ((None, AccountKind.SALE_EXPENSES), -p_exp),
                     ((info.pk, AccountKind.FEEDING_PK), -p_feed),
                     ((None, AccountKind.FINES_DUE_DM), -p_fines),
                     ((None, AccountKind.OWNER_BALANCES_DUE), -balance)])  # fmt: skip
    if balance:
        rows.post(kind=TransactionKind.S16_BALANCE_PAID, at=at, section="s.16", source=source,
                  memo=f"s.16 account of {entry.extras['number']}: balance ₹{balance} paid",
                  impoundment_id=entry.extras["id"],
                  lines=[((None, AccountKind.OWNER_BALANCES_DUE), balance),
                         ((info.pk, till("cash")), -balance)])  # fmt: skip
    if case["shortfall"]:
        record_shortfall(rows, short, at, s16_case_id=case["id"])
    for animal in rest:
        animal.state, animal.custody_ended_at = AnimalState.RETURNED_S16, at
    rows.s16_returned.extend((case["id"], a.id) for a in rest)
    _event(rows, entry, at, Action.S16_SETTLED, f"{len(rest)} animal(s) and ₹{balance} returned "
           "to the owner with the account", {"case": case["id"], "balance": balance,
           "proceeds": proceeds, "fines": fines, "feeding": feeding, "expenses": expenses},
           info.keeper_id)  # fmt: skip
