"""What goes wrong at a release in a scale data set, and how the office puts it right: competing
claimants decided between on the proof before the cattle go (decision 14), and a receipt issued
in error, cancelled by the office at the keeper's request, its payment reversed, and the animals
released again on a corrected receipt (decision 11); and cattle released by a court's order,
checked by the office first (ADR 0056), as impounding.services write them."""

from datetime import timedelta
from decimal import Decimal

from accounts.models import IssuedDocument
from impounding.actions import Action
from impounding.models import (
    AnimalState,
    Claim,
    CourtOrder,
    CourtOrderCheck,
    Receipt,
    ReceiptCancellation,
    ReleaseLine,
)
from ledger.models import AccountKind, TransactionKind, till

from . import plan
from .names import PEOPLE, mobile

ZERO = Decimal("0.00")
PROOF = "Knows the animals' marks; the village pradhan vouches for him"


def competing_claims(rows, entry):
    """Two people claim the cattle; the officer upholds the claimant's claim an hour before the
    release and rejects the other's."""
    info, rng = rows.info, rows.rng
    decided = entry.claimed_at - timedelta(hours=1)
    first = max(entry.arrived_at + timedelta(hours=2), decided - timedelta(days=1))
    other = PEOPLE.name(rng)
    for n, (name, upheld) in enumerate([(entry.claimant, True), (other, False)]):
        at = first + timedelta(minutes=20 * n)
        claim_id = rows.add(
            Claim,
            impoundment_id=entry.extras["id"],
            claimant_name=name,
            claimant_address="the village of seizure",
            claimant_phone=mobile(rng),
            proof=PROOF,
            recorded_by_id=info.keeper_id,
            recorded_at=at,
            status=Claim.Status.UPHELD if upheld else Claim.Status.REJECTED,
            decided_by_id=info.officer_id,
            decided_at=decided,
            findings="Proof of ownership accepted" if upheld else "No proof of ownership",
        )
        rows.event(at=at, action=Action.CLAIM_RECORDED, section="s.13",
                   summary="Claimant recorded", impoundment_id=entry.extras["id"],
                   data={"claim": claim_id}, personal={"name": name})  # fmt: skip
        if n:
            rows.event(at=at, action=Action.CLAIMS_HELD, section="s.13",
                       summary="Release on hold: 2 competing claims",
                       impoundment_id=entry.extras["id"], data={"claims": 2})  # fmt: skip
    rows.event(at=decided, action=Action.CLAIMS_DECIDED, section="s.13",
               summary="Competing claims decided", impoundment_id=entry.extras["id"],
               by_id=info.officer_id, data={"upheld": 1, "rejected": 1})  # fmt: skip


def cancel_receipt(rows, entry, release):
    """The keeper asks within the hour, the office approves the next day: the receipt keeps its
    number and shows cancelled, the payment is reversed, and the animals are back in custody.
    Returns when they are released again, or None when that falls after the data set's end
    (then the approval does too, and the cancellation is left pending)."""
    info = rows.info
    asked = entry.claimed_at + timedelta(minutes=40)
    decided = plan.at_local(plan.local_date(entry.claimed_at) + timedelta(days=1), 11)
    again = decided + timedelta(hours=2)
    approved = again < rows.now - timedelta(hours=1)
    receipt = next(r for r in reversed(rows.tables[Receipt]) if r["id"] == release["receipt_id"])
    reason = "Wrong number of feeding days charged"
    rows.add(
        ReceiptCancellation,
        receipt_id=receipt["id"],
        reason=reason,
        requested_by_id=info.keeper_id,
        requested_at=asked,
        status=ReceiptCancellation.Status.APPROVED
        if approved
        else ReceiptCancellation.Status.PENDING,
        decided_by_id=info.office_id if approved else None,
        decided_at=decided if approved else None,
    )
    rows.event(at=asked, action=Action.RECEIPT_CANCELLATION_ASKED, section="s.13",
               summary=f"Cancellation of receipt {receipt['number']} asked for",
               impoundment_id=entry.extras["id"],
               data={"receipt": receipt["number"], "reason": reason})  # fmt: skip
    if not approved:
        return None
    receipt.update(cancelled_at=decided, cancelled_reason=reason)
    document = next(
        d for d in reversed(rows.tables[IssuedDocument]) if d["id"] == receipt["document_id"]
    )
    document.update(revoked_at=decided, revoked_reason=reason)
    for line in reversed(rows.tables[ReleaseLine]):  # the release's lines are the last written
        if line["release_id"] != release["id"]:
            break
        line["cancelled"] = True
    _reverse(rows, entry, release, receipt, decided)
    rows.event(at=decided, action=Action.RECEIPT_CANCELLED, section="s.13",
               summary=f"Receipt {receipt['number']} cancelled",
               impoundment_id=entry.extras["id"], by_id=info.office_id,
               data={"receipt": receipt["number"], "asked_by": info.keeper_id,
                     "decided_by": info.office_id, "reason": reason, "note": ""})  # fmt: skip
    return again


def _reverse(rows, entry, release, receipt, at):
    info = rows.info
    rows.post(
        kind=TransactionKind.REVERSAL,
        at=at,
        memo=f"Reversal of #{release['transaction_id']}: receipt {receipt['number']} cancelled",
        source=f"impounding.release:{release['id']}",
        section="s.13",
        by_id=info.office_id,
        impoundment_id=entry.extras["id"],
        reverses_id=release["transaction_id"],
        lines=[
            ((info.pk, till(release["payment_mode"])), -release["amount"]),
            ((None, AccountKind.FINES_DUE_DM), release["fines"]),
            ((info.pk, AccountKind.FEEDING_PK), release["feeding"]),
        ],
    )


def court_order(rows, entry, animals, scan):
    """A Magistrate's or Civil Court's order releases the cattle (s.19): the keeper records it
    with its scan, and the office checks it against the court's record before they go (ADR
    0056). The dues stay unpaid, payable by whom the order says; no money moves."""
    info, rng = rows.info, rows.rng
    recorded = entry.claimed_at - timedelta(hours=3)
    civil = rng.random() < 0.3
    court = (
        f"Court of the Civil Judge (Junior Division), {info.district_name}"
        if civil
        else f"Court of the Sub-Divisional Magistrate, {info.district_name}"
    )
    case_number = f"{'OS' if civil else 'Misc'}/{entry.claimed_at.year}/{rng.randint(10, 999)}"
    fines = sum((a.fine for a in animals), ZERO)
    feeding = sum((a.rate for a in animals), ZERO) * plan.feeding_days(entry, entry.claimed_at)
    order_id = rows.add(
        CourtOrder,
        impoundment_id=entry.extras["id"],
        kind=CourtOrder.Kind.CIVIL_COURT if civil else CourtOrder.Kind.MAGISTRATE,
        status=CourtOrder.Status.RELEASED,
        court=court,
        case_number=case_number,
        order_date=plan.local_date(recorded) - timedelta(days=1),
        scan=scan,
        order_text="The cattle be released to the applicant pending the decision of the case.",
        unpaid_fines=fines,
        unpaid_feeding=feeding,
        dues_payable_by=entry.claimant,
        recorded_at=recorded,
        recorded_by_id=info.keeper_id,
        reviewed_by_id=info.office_id,
        reviewed_at=entry.claimed_at,
    )
    rows.court_order_animals.extend((order_id, a.id) for a in animals)
    rows.add(
        CourtOrderCheck,
        order_id=order_id,
        outcome=CourtOrderCheck.Outcome.CONFIRMED,
        how=CourtOrderCheck.How.COURT_WEBSITE if civil else CourtOrderCheck.How.COURT_OFFICE,
        reference=f"Checked {case_number}",
        checked_by_id=info.office_id,
        checked_at=entry.claimed_at,
    )
    for animal in animals:
        animal.state, animal.court_order_id = AnimalState.RELEASED_BY_ORDER, order_id
        animal.custody_ended_at = entry.claimed_at
    references = [f"{entry.extras['number']}/{a.number}" for a in animals]
    data = {"order": order_id, "court": court, "case": case_number}
    rows.event(at=recorded, action=Action.COURT_ORDER_RECORDED, section="s.19",
               summary=f"Order of {court}, case {case_number}, recorded for {len(animals)} "
               "animal(s): they stay until it is checked", impoundment_id=entry.extras["id"],
               data=data | {"animals": references})  # fmt: skip
    rows.event(at=entry.claimed_at, action=Action.RELEASE_COURT_ORDER, section="s.19",
               summary=f"{len(animals)} animal(s) released by order of {court}, case "
               f"{case_number}, checked against the court's record",
               impoundment_id=entry.extras["id"], by_id=info.office_id,
               data=data | {"animals": references, "unpaid_fines": fines,
                            "unpaid_feeding": feeding, "payable_by": entry.claimant})  # fmt: skip
