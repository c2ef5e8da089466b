"""The District Magistrate's side of a scale data set, and the pound's daily book: each month's
fines remitted with a challan and confirmed by the office (s.17); the surplus of each s.14 sale
received in deposit, claimed by some owners, and credited to revenue after three months (s.17);
and the daily feeding log (s.9), as office.services and impounding.services.custody write them.
"""

from collections import Counter, defaultdict
from datetime import timedelta
from decimal import Decimal

from django.db.models import Max

from impounding.actions import Action as CustodyAction
from impounding.models import FeedingLog
from kernel.dates import surplus_expiry
from ledger.models import AccountKind, Posting, Transaction, TransactionKind, till
from office.actions import Action
from office.models import Remittance, SurplusClaim, SurplusDeposit

from . import plan
from .names import PEOPLE

ZERO = Decimal("0.00")
# Of the surpluses received: those an owner claims; of the claims decided, those allowed.
CLAIMED, ALLOWED = 0.08, 0.7
# Of the days with cattle in the pound: those with no feeding log (flagged, s.27).
MISSED = 0.03
FODDER = ["Dry fodder (bhusa) and water", "Green fodder and water", "Bhusa, chuni and water"]


def surplus(rows):
    """Each sale's surplus: received by the office days after the sale, then claimed, paid, or
    credited to revenue the day after its three months."""
    for sale in rows.sales:
        if sale["surplus"]:
            _surplus(rows, sale)


def _surplus(rows, sale):
    info, rng = rows.info, rows.rng
    received_on = sale["day"] + timedelta(days=rng.randint(2, 10))
    received = plan.at_local(received_on, 14) < rows.now
    deposit = {
        "sale_id": sale["id"],
        "pound_id": info.pk,
        "district_id": info.district_id,
        "amount": sale["surplus"],
        "sale_date": sale["day"],
        "status": SurplusDeposit.Status.AWAITING_RECEIPT,
        "destination": "",
    }
    deposit_id = rows.add(SurplusDeposit, **deposit)
    deposit = rows.tables[SurplusDeposit][-1]
    if not received:
        return
    at = plan.at_local(received_on, 14)
    expires = surplus_expiry(received_on, sale["day"])
    deposit.update(
        received_on=received_on,
        received_by_id=info.office_id,
        expires_on=expires,
        status=SurplusDeposit.Status.HELD,
    )
    rows.post(
        kind=TransactionKind.SURPLUS_RECEIVED,
        at=at,
        memo=f"Surplus of sale {sale['id']} received; held until {expires:%d-%m-%Y}",
        source=f"office.surplusdeposit:{deposit_id}",
        section="s.17",
        by_id=info.office_id,
        lines=[
            ((None, AccountKind.DM_TREASURY), sale["surplus"]),
            ((info.pk, till(sale["payment_mode"])), -sale["surplus"]),
        ],
    )
    _event(rows, at, Action.SURPLUS_RECEIVED, f"Surplus ₹{sale['surplus']} received on "
           f"{received_on:%d-%m-%Y}; held until {expires:%d-%m-%Y}",
           {"deposit": deposit_id, "expires_on": expires}, info.office_id)  # fmt: skip
    pending = rng.random() < CLAIMED and _claim(rows, deposit, received_on)
    transfer = plan.at_local(expires + timedelta(days=1), 0, 45)
    if not pending and deposit["status"] == SurplusDeposit.Status.HELD and transfer < rows.now:
        _transfer(rows, deposit, transfer)


def _event(rows, at, action, summary, data, by_id, personal=None):
    rows.event(at=at, action=action, section="s.17", summary=summary, impoundment_id=None,
               data=data, by_id=by_id, personal=personal)  # fmt: skip


def _claim(rows, deposit, received_on):
    """An owner's claim within the three months, decided by the Magistrate weeks later. Returns
    whether it is still pending."""
    info, rng = rows.info, rows.rng
    filed_on = received_on + timedelta(days=rng.randint(3, 60))
    if filed_on > deposit["expires_on"] or plan.at_local(filed_on, 13) >= rows.now:
        return False
    decided_at = plan.at_local(filed_on + timedelta(days=rng.randint(7, 30)), 15)
    decided = decided_at < rows.now
    allowed = decided and rng.random() < ALLOWED
    status = (
        SurplusClaim.Status.PENDING
        if not decided
        else SurplusClaim.Status.ALLOWED
        if allowed
        else SurplusClaim.Status.REJECTED
    )
    name = PEOPLE.name(rng)
    claim_id = rows.add(
        SurplusClaim,
        deposit_id=deposit["id"],
        claimant_name=name,
        claimant_address="the village of seizure",
        capacity="Owner",
        proof="Affidavit and the village pradhan's certificate of ownership",
        filed_on=filed_on,
        prepared_by_id=info.office_id,
        status=status,
        decided_by_id=info.magistrate_id if decided else None,
        decided_at=decided_at if decided else None,
        decision="Ownership proved" if allowed else ("Not proved" if decided else ""),
        payment_mode="cash" if allowed else "",
    )
    _event(rows, plan.at_local(filed_on, 13), Action.SURPLUS_CLAIMED,
           f"Claim by the claimant to surplus ₹{deposit['amount']}",
           {"claim": claim_id, "deposit": deposit["id"]}, info.office_id,
           {"name": name, "address": "the village of seizure"})  # fmt: skip
    if not decided:
        return True
    _event(rows, decided_at, Action(f"ledger.surplus_claim_{status}"),
           f"Claim to surplus ₹{deposit['amount']}: {status}",
           {"claim": claim_id, "deposit": deposit["id"]}, info.magistrate_id)  # fmt: skip
    if allowed:
        deposit["status"] = SurplusDeposit.Status.PAID
        rows.post(
            kind=TransactionKind.SURPLUS_CLAIM_PAID,
            at=decided_at,
            memo=f"Surplus ₹{deposit['amount']} paid on proved claim #{claim_id}",
            source=f"office.surplusdeposit:{deposit['id']}",
            section="s.17",
            by_id=info.magistrate_id,
            lines=[
                ((None, AccountKind.DM_SURPLUS_HELD), deposit["amount"]),
                ((None, AccountKind.DM_TREASURY), -deposit["amount"]),
            ],
        )
    return False


def _transfer(rows, deposit, at):
    info = rows.info
    local = info.local_fund
    deposit.update(
        status=SurplusDeposit.Status.TRANSFERRED,
        destination=SurplusDeposit.Destination.LOCAL_FUND
        if local
        else SurplusDeposit.Destination.STATE_REVENUE,
        transferred_at=at,
    )
    section = "s.31" if local else "s.17"
    rows.post(
        kind=TransactionKind.SURPLUS_TRANSFERRED,
        at=at,
        memo=f"Surplus ₹{deposit['amount']} credited to "
        f"{'the local fund' if local else 'the revenues of the State'}",
        source=f"office.surplusdeposit:{deposit['id']}",
        section=section,
        by_id=rows.system_id,
        lines=[
            ((None, AccountKind.DM_SURPLUS_HELD), deposit["amount"]),
            ((None, AccountKind.LOCAL_FUND if local else AccountKind.STATE_REVENUE),
             -deposit["amount"]),
        ],
    )  # fmt: skip
    rows.event(at=at, action=Action.SURPLUS_TRANSFERRED, section=section,
               summary=f"Surplus ₹{deposit['amount']} credited to revenue", impoundment_id=None,
               data={"deposit": deposit["id"], "destination": deposit["destination"]},
               by_id=rows.system_id)  # fmt: skip


def remittances(rows):
    """Each month's fines, remitted from the cash box in the first days of the next month and
    confirmed by the office some days later (s.17). The current month waits."""
    info, rng = rows.info, rows.rng
    fines_account = info.accounts[(None, AccountKind.FINES_DUE_DM)]
    when = {t["id"]: t["at"] for t in rows.tables[Transaction]}
    months = defaultdict(lambda: ZERO)
    for posting in rows.tables[Posting]:
        if posting["account_id"] == fines_account:
            day = plan.local_date(when[posting["transaction_id"]])
            months[day.replace(day=1)] -= posting["amount"]
    for month, amount in sorted(months.items()):
        remitted_on = (month + timedelta(days=32)).replace(day=rng.randint(3, 10))
        sent_at = plan.at_local(remitted_on, 12)
        if amount <= 0 or sent_at >= rows.now:
            continue
        _remit(rows, month, amount, remitted_on, sent_at)


def _remit(rows, month, amount, remitted_on, sent_at):
    info, rng = rows.info, rows.rng
    confirmed_at = sent_at + timedelta(days=rng.randint(2, 12), hours=3)
    confirmed = confirmed_at < rows.now
    year = remitted_on.year
    number = f"REM/{info.code.upper()}/{year}/{rows.serial(f'rem:{info.pk}:{year}'):05d}"
    remittance_id = rows.ids.next(Remittance)
    challan = f"GRN{remittance_id:012d}"
    rows.tables[Remittance].append(
        {
            "id": remittance_id,
            "pound_id": info.pk,
            "number": number,
            "amount": amount,
            "challan_number": challan,
            "treasury": f"District Treasury, {info.district_name}",
            "remitted_on": remitted_on,
            "from_cash": True,
            "sent_by_id": info.keeper_id,
            "sent_at": sent_at,
            "status": Remittance.Status.CONFIRMED if confirmed else Remittance.Status.SENT,
            "confirmed_by_id": info.office_id if confirmed else None,
            "confirmed_at": confirmed_at if confirmed else None,
        }
    )
    source = f"office.remittance:{remittance_id}"
    rows.post(kind=TransactionKind.REMITTANCE_SENT, at=sent_at, section="s.17", source=source,
              memo=f"{number}: fines ₹{amount} of {month:%m-%Y} remitted, challan {challan}",
              lines=[((None, AccountKind.REMITTANCES_IN_TRANSIT), amount),
                     ((info.pk, till("cash")), -amount)])  # fmt: skip
    _event(rows, sent_at, Action.REMITTANCE_SENT, f"{number}: ₹{amount} of fines remitted, "
           f"challan {challan}", {"remittance": number, "amount": amount, "challan": challan},
           info.keeper_id)  # fmt: skip
    if not confirmed:
        return
    rows.post(kind=TransactionKind.REMITTANCE_CONFIRMED, at=confirmed_at, section="s.17",
              source=source, by_id=info.office_id,
              memo=f"{number}: ₹{amount} received, challan {challan}",
              lines=[((None, AccountKind.REMITTANCES_IN_TRANSIT), -amount),
                     ((None, AccountKind.DM_TREASURY), amount),
                     ((None, AccountKind.FINES_DUE_DM), amount),
                     ((None, AccountKind.FINES_RECEIVED), -amount)])  # fmt: skip
    _event(rows, confirmed_at, Action.REMITTANCE_CONFIRMED, f"{number}: ₹{amount} confirmed "
           "received", {"remittance": number, "amount": amount}, info.office_id)  # fmt: skip


def feeding_logs(rows, entries):
    """One feeding round a day the pound held cattle, bar a few days missed (s.27): the number
    fed is the number in the pound that day."""
    info, rng = rows.info, rows.rng
    today = plan.local_date(rows.now)
    change = Counter()
    for entry in entries:
        for animal in entry.animals:
            change[plan.local_date(entry.arrived_at)] += 1
            if animal.custody_ended_at is not None or animal.end_at is not None:
                ended = animal.custody_ended_at or animal.end_at
                change[plan.local_date(ended) + timedelta(days=1)] -= 1
    if not change:
        return
    # A data set added to (--append) feeds its own cattle in a later round of the same day.
    rounds = dict(
        FeedingLog.objects.filter(pound_id=info.pk)
        .values_list("date")
        .annotate(last=Max("round"))
        .values_list("date", "last")
    )
    day, held = min(change), 0
    while day < today:
        held += change.get(day, 0)
        if held > 0 and rng.random() >= MISSED:
            at = plan.at_local(day, 9, rng.randint(0, 59))
            fodder = rng.choice(FODDER)
            n = rounds.get(day, 0) + 1
            rows.add(FeedingLog, pound_id=info.pk, date=day, animals_fed=held, fodder=fodder,
                     watered=True, round=n, recorded_at=at,
                     recorded_by_id=info.keeper_id)  # fmt: skip
            rows.event(at=at, action=CustodyAction.CUSTODY_FED, section="s.9",
                       summary=f"Fed and watered {held} animal(s) on {day:%d-%m-%Y}",
                       impoundment_id=None,
                       data={"date": day, "animals": held, "fodder": fodder, "watered": True,
                             "cost": None, "round": n})  # fmt: skip
        day += timedelta(days=1)
