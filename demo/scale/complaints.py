"""Complaints against a seizure (s.20) of a scale data set, and what follows them: a deposit
refunded when the Magistrate holds the seizure illegal, with the seizer's liability (s.22), or
applied when he dismisses the complaint, as impounding.services.deposits writes them."""

from datetime import timedelta
from decimal import Decimal

from impounding.actions import Action
from impounding.models import Complaint, Deposit, SeizerLiability
from ledger.models import AccountKind, TransactionKind, till

from . import plan

SUBSTANCE = [
    "The cattle were seized on common grazing land, not on cultivated land.",
    "The cattle were taken from the owner's own field.",
    "No damage was done to any crop; the seizure was made out of enmity.",
]


def complain(rows, entry, deposit, number, *, apply):
    """The owner complains of the seizure within the ten days, or a little after; the office
    records the Magistrate's finding weeks later. Returns False when the complaint would fall
    after the data set's end (the deposit then goes its usual way)."""
    rng, info = rows.rng, rows.info
    today = plan.local_date(rows.now)
    claimed_on = plan.local_date(entry.claimed_at)
    deadline = deposit["complaint_deadline"]
    filed_on = max(claimed_on, deadline - timedelta(days=rng.randint(0, 6)))
    if filed_on >= today:
        return False
    decided_on = filed_on + timedelta(days=rng.randint(20, 60))
    decided = decided_on < today
    upheld = decided and rng.random() < plan.UPHELD
    outcome = (
        Complaint.Outcome.PENDING
        if not decided
        else Complaint.Outcome.UPHELD
        if upheld
        else Complaint.Outcome.DISMISSED
    )
    year = filed_on.year
    complaint = {
        "impoundment_id": entry.extras["id"],
        "deposit_id": deposit["id"],
        "complainant_name": entry.extras["claimant"],
        "mode": Complaint.Mode.WRITTEN if rng.random() < 0.8 else Complaint.Mode.ORAL,
        "substance": rng.choice(SUBSTANCE),
        "court": f"Court of the District Magistrate, {info.district_name}",
        "case_number": f"CTA/{year}/{rng.randint(100, 9999)}",
        "filed_on": filed_on,
        "deadline": deadline,
        "summons_on": filed_on + timedelta(days=3),
        "outcome": outcome,
        "decided_on": decided_on if decided else None,
        "order_reference": f"DM/{info.code.upper()}/CTA/{decided_on:%Y%m%d}" if decided else "",
        "compensation": rng.choice([Decimal("0.00"), Decimal("200.00"), Decimal("500.00")])
        if upheld
        else Decimal("0.00"),
        "payable_by": entry.seizer if upheld else "",
        "recorded_at": plan.at_local(filed_on, 12),
        "recorded_by_id": info.office_id,
    }
    complaint_id = rows.add(Complaint, **complaint)
    _recorded(rows, entry, complaint, complaint_id)
    if decided:
        _decided(rows, entry, complaint, complaint_id, deposit, number, apply=apply)
    return True


def _recorded(rows, entry, complaint, complaint_id):
    in_time = complaint["filed_on"] <= complaint["deadline"]
    rows.event(
        at=complaint["recorded_at"],
        action=Action.COMPLAINT_RECORDED,
        section="s.20",
        summary=f"Complaint by the complainant filed {complaint['filed_on']:%d-%m-%Y} in "
        f"{complaint['court']}" + ("" if in_time else " (after the 10 days of s.20)"),
        impoundment_id=entry.extras["id"],
        by_id=complaint["recorded_by_id"],
        data={
            "filed_on": complaint["filed_on"],
            "deadline": complaint["deadline"],
            "in_time": in_time,
            "court": complaint["court"],
            "mode": complaint["mode"],
            "deposit": complaint["deposit_id"],
        },
        personal={"name": complaint["complainant_name"]},
    )


def _decided(rows, entry, complaint, complaint_id, deposit, number, *, apply):
    info, decided_on = rows.info, complaint["decided_on"]
    at = plan.at_local(decided_on, 15)
    upheld = complaint["outcome"] == Complaint.Outcome.UPHELD
    if upheld:
        _refund_due(rows, entry, deposit, number, at)
        rows.add(
            SeizerLiability,
            impoundment_id=entry.extras["id"],
            complaint_id=complaint_id,
            payable_by=complaint["payable_by"],
            fines=deposit["fines"],
            feeding=deposit["feeding"],
            compensation=complaint["compensation"],
        )
    rows.event(
        at=at,
        action=Action(f"complaint.{complaint['outcome']}"),
        section="s.22",
        summary=f"Complaint by the complainant: {complaint['outcome']}",
        impoundment_id=entry.extras["id"],
        by_id=info.office_id,
        data={
            "decided_on": decided_on,
            "order": complaint["order_reference"],
            "compensation": complaint["compensation"],
            "payable_by": complaint["payable_by"],
            "deposit": deposit["id"],
        },
        personal={"name": complaint["complainant_name"]},
    )
    if upheld:
        refunded = at + timedelta(days=rows.rng.randint(3, 15), hours=-3)
        if refunded < rows.now:
            _refunded(rows, entry, deposit, number, refunded)
    elif plan.at_local(decided_on + timedelta(days=2), 1) < rows.now:
        apply(rows, entry, deposit, number, cleared_on=decided_on)


def _refund_due(rows, entry, deposit, number, at):
    deposit["status"] = Deposit.Status.REFUND_DUE
    rows.post(
        kind=TransactionKind.DEPOSIT_REFUND_DUE,
        at=at,
        memo=f"Deposit {number} to be refunded: {entry.extras['number']}",
        source=f"impounding.deposit:{deposit['id']}",
        section="s.22",
        by_id=rows.info.office_id,
        impoundment_id=entry.extras["id"],
        lines=[
            ((None, AccountKind.DEPOSITS_HELD), deposit["amount"]),
            ((None, AccountKind.DEPOSIT_REFUNDS_DUE), -deposit["amount"]),
        ],
    )


def _refunded(rows, entry, deposit, number, at):
    info = rows.info
    deposit.update(
        status=Deposit.Status.REFUNDED,
        refunded_at=at,
        refunded_by_id=info.keeper_id,
        refund_mode="cash",
    )
    rows.post(
        kind=TransactionKind.DEPOSIT_REFUNDED,
        at=at,
        memo=f"Deposit {number} refunded: {entry.extras['number']}",
        source=f"impounding.deposit:{deposit['id']}",
        section="s.22",
        impoundment_id=entry.extras["id"],
        lines=[
            ((None, AccountKind.DEPOSIT_REFUNDS_DUE), deposit["amount"]),
            ((info.pk, till("cash")), -deposit["amount"]),
        ],
    )
    rows.event(
        at=at,
        action=Action.DEPOSIT_REFUNDED,
        section="s.22",
        summary=f"Deposit of ₹{deposit['amount']} refunded",
        impoundment_id=entry.extras["id"],
        data={"deposit": deposit["id"], "mode": "cash", "reference": "", "authority": ""},
    )
