"""The money of a scale data set: each claim's receipt (numbered without gaps per pound and
financial year), its issued document, the release with its itemised lines, the s.15 deposit,
and the balanced ledger transaction with the event, as `impounding.services.releases` posts
them."""

from datetime import timedelta
from decimal import Decimal

from accounts.models import IssuedDocument
from impounding.actions import Action
from impounding.models import AnimalState, Deposit, Receipt, Release, ReleaseLine
from kernel.dates import complaint_deadline, financial_year
from ledger.models import AccountKind, TransactionKind, till

from . import amends, complaints, plan, s16
from .rows import idempotency_key


def _receipt(rows, entry, amount, kind):
    info, at = rows.info, entry.claimed_at
    fy = financial_year(plan.local_date(at))
    serial = rows.serial(f"receipt:{info.pk}:{fy}")
    number = f"{info.code.upper()}/{fy}/{serial:06d}"
    receipt_id = rows.ids.next(Receipt)
    document = rows.document(
        kind=IssuedDocument.Kind.RECEIPT
        if kind == Receipt.Kind.PAYMENT
        else IssuedDocument.Kind.DEPOSIT_RECEIPT,
        number=number,
        at=at,
        subject_type="impounding.receipt",
        subject_id=receipt_id,
    )
    mode = entry.payment_mode
    rows.tables[Receipt].append(
        {
            "id": receipt_id,
            "pound_id": info.pk,
            "financial_year": fy,
            "serial": serial,
            "number": number,
            "kind": kind,
            "issued_at": at,
            "issued_by_id": info.keeper_id,
            "payer_name": entry.extras["claimant"],
            "amount": amount,
            "payment_mode": mode,
            "payment_reference": "" if mode == "cash" else f"{mode.upper()}-{receipt_id:09d}",
            "document_id": document,
        }
    )
    return receipt_id, number


def _lines(rows, entry, animals, release_id):
    days = plan.feeding_days(entry, entry.claimed_at)
    first = plan.local_date(entry.arrived_at)
    last = plan.local_date(entry.claimed_at)
    fines = feeding = Decimal("0.00")
    for animal in animals:
        rows.add(
            ReleaseLine,
            release_id=release_id,
            animal_id=animal.id,
            category=animal.category,
            fine=animal.fine,
            feeding_days=days,
            feeding=animal.rate * days,
            detail={
                "scale": rows.info.scale,
                "code": animal.code,
                "periods": [
                    [first.isoformat(), last.isoformat(), days, str(animal.rate),
                     rows.info.feeding_order]
                ],
            },
        )  # fmt: skip
        fines += animal.fine
        feeding += animal.rate * days
    return fines, feeding


def release(rows, entry, rng):
    """A claim on payment (s.13) or on deposit (s.15) of the animals left in the pound: after
    competing claimants are decided between, for a few; for a few others, a receipt issued in
    error, cancelled by the office, and the animals released again on a corrected one."""
    animals = plan.claimed(entry)
    if not animals:
        return
    entry.extras["claimant"] = entry.claimant
    if rng.random() < plan.COMPETING:
        amends.competing_claims(rows, entry)
    if entry.outcome == "order":
        amends.court_order(rows, entry, animals, rows.scan)
        return
    if entry.outcome == "refused":
        s16.refused(rows, entry, animals)
        return
    if entry.outcome == "paid" and rng.random() < plan.CANCELLED:
        first = _release(rows, entry, rng, animals)
        again = amends.cancel_receipt(rows, entry, first)
        if again is not None:
            entry.claimed_at = again
            _release(rows, entry, rng, animals, replaces=first["receipt_id"])
        return
    _release(rows, entry, rng, animals)


def _release(rows, entry, rng, animals, replaces=None):
    deposit = entry.outcome == "deposit"
    release_id = rows.ids.next(Release)
    fines, feeding = _lines(rows, entry, animals, release_id)
    kind = Receipt.Kind.DEPOSIT if deposit else Receipt.Kind.PAYMENT
    receipt_id, number = _receipt(rows, entry, fines + feeding, kind)
    rows.tables[Receipt][-1]["replaces_id"] = replaces
    rows.tables[Release].append(_release_row(rows, entry, rng, release_id, receipt_id, deposit))
    rows.tables[Release][-1].update(fines=fines, feeding=feeding, amount=fines + feeding)
    state = AnimalState.RELEASED_ON_DEPOSIT if deposit else AnimalState.RELEASED_PAID
    for animal in animals:
        animal.state, animal.release_id = state, release_id
        animal.custody_ended_at = entry.claimed_at
    booking = _book_deposit if deposit else _book_payment
    return booking(rows, entry, animals, rows.tables[Release][-1], number)


def _release_row(rows, entry, rng, release_id, receipt_id, deposit):
    return {
        "id": release_id,
        "impoundment_id": entry.extras["id"],
        "kind": Release.Kind.DEPOSIT if deposit else Release.Kind.PAYMENT,
        "idempotency_key": idempotency_key(rng),
        "claimant_name": entry.extras["claimant"],
        "claimant_phone": entry.claimant_phone,
        "claimant_address": "the village of seizure",
        "claimant_role": "owner",
        "owner_name": entry.extras["claimant"],
        "payment_mode": entry.payment_mode,
        "payment_reference": rows.tables[Receipt][-1]["payment_reference"],
        "ground": "the cattle were seized on common grazing land" if deposit else "",
        "acknowledgement": Release.Acknowledgement.REGISTER_PAGE,
        "register_page": str(rng.randint(1, 400)),
        "released_at": entry.claimed_at,
        "released_by_id": rows.info.keeper_id,
        "receipt_id": receipt_id,
    }


def _post(rows, entry, *, at=None, **fields):
    return rows.post(at=at or entry.claimed_at, impoundment_id=entry.extras["id"], **fields)


def _book_payment(rows, entry, animals, release, number):
    info, claimant = rows.info, release["claimant_name"]
    release["transaction_id"] = _post(
        rows,
        entry,
        kind=TransactionKind.PAYMENT_S13,
        memo=f"{number}: {entry.extras['number']}",
        source=f"impounding.release:{release['id']}",
        section="s.13",
        lines=[
            ((info.pk, till(release["payment_mode"])), release["amount"]),
            ((None, AccountKind.FINES_DUE_DM), -release["fines"]),
            ((info.pk, AccountKind.FEEDING_PK), -release["feeding"]),
        ],
    )
    rows.event(
        at=entry.claimed_at,
        action=Action.RELEASE_PAID,
        section="s.13",
        summary=f"{len(animals)} animal(s) released to {claimant} on payment of "
        f"₹{release['amount']} ({number})",
        impoundment_id=entry.extras["id"],
        data={
            "animals": [f"{entry.extras['number']}/{a.number}" for a in animals],
            "receipt": number,
            "fines": release["fines"],
            "feeding": release["feeding"],
            "claimant": [claimant, "owner", ""],
        },
    )
    return release


def _book_deposit(rows, entry, animals, release, number):
    info, claimant = rows.info, release["claimant_name"]
    deadline = complaint_deadline(plan.local_date(entry.seized_at), info.complaint_days)
    deposit = rows.add(
        Deposit,
        release_id=release["id"],
        pound_id=info.pk,
        fines=release["fines"],
        feeding=release["feeding"],
        amount=release["amount"],
        complaint_deadline=deadline,
        status=Deposit.Status.HELD,
    )
    _post(
        rows,
        entry,
        kind=TransactionKind.DEPOSIT_S15,
        memo=f"{number}: deposit, {entry.extras['number']}",
        source=f"impounding.deposit:{deposit}",
        section="s.15",
        lines=[
            ((info.pk, till(release["payment_mode"])), release["amount"]),
            ((None, AccountKind.DEPOSITS_HELD), -release["amount"]),
        ],
    )
    rows.event(
        at=entry.claimed_at,
        action=Action.RELEASE_DEPOSIT,
        section="s.15",
        summary=f"{len(animals)} animal(s) released to {claimant} on deposit of "
        f"₹{release['amount']} ({number}); complaint due by {deadline:%d-%m-%Y}",
        impoundment_id=entry.extras["id"],
        data={
            "animals": [f"{entry.extras['number']}/{a.number}" for a in animals],
            "receipt": number,
            "ground": release["ground"],
            "deadline": deadline,
        },
    )
    deposit = rows.tables[Deposit][-1]
    if rows.rng.random() < plan.COMPLAINED and complaints.complain(
        rows, entry, deposit, number, apply=_apply_deposit
    ):
        return
    if deadline + timedelta(days=APPLIED_AFTER) < plan.local_date(rows.now):
        _apply_deposit(rows, entry, deposit, number)


# Days after the last day to complain by which the office has confirmed and the daily run has
# applied an uncontested deposit (s.15): older deposits are applied, as in a district that works.
APPLIED_AFTER = 14


def _apply_deposit(rows, entry, deposit, number, *, cleared_on=None):
    """The office confirms the uncontested deposit the day after the complaint period ends (or
    the complaint was dismissed, `cleared_on`), and the daily run applies it the day after that,
    as impounding.services.apply_deposit posts it."""
    info = rows.info
    cleared_on = cleared_on or deposit["complaint_deadline"]
    confirmed = plan.at_local(cleared_on + timedelta(days=1), hour=11)
    applied = plan.at_local(cleared_on + timedelta(days=2), hour=0, minute=30)
    deposit.update(
        status=Deposit.Status.APPLIED,
        application_confirmed_by_id=info.office_id,
        application_confirmed_at=confirmed,
        applied_at=applied,
        applied_by_id=rows.system_id,
    )
    _post(
        rows,
        entry,
        kind=TransactionKind.DEPOSIT_APPLIED,
        memo=f"Deposit {number} applied: {entry.extras['number']}",
        source=f"impounding.deposit:{deposit['id']}",
        section="s.15",
        lines=[
            ((None, AccountKind.DEPOSITS_HELD), deposit["amount"]),
            ((None, AccountKind.FINES_DUE_DM), -deposit["fines"]),
            ((info.pk, AccountKind.FEEDING_PK), -deposit["feeding"]),
        ],
        at=applied,
        by_id=rows.system_id,
    )
    rows.event(
        at=applied,
        action=Action.DEPOSIT_APPLIED,
        section="s.15",
        summary=f"Deposit {number} of ₹{deposit['amount']} applied as payment of fines and charges",
        impoundment_id=entry.extras["id"],
        data={"deposit": deposit["id"], "fines": deposit["fines"], "feeding": deposit["feeding"]},
        by_id=rows.system_id,
    )
