"""Deaths and escapes of handed-over cattle at the gaushalas of a scale data set, and the upkeep
they leave over-paid (ADR 0070, "Deaths and transfers", "Upkeep over-paid", "Escape, recapture
and return"), as `auctions.services.gaushala_holding` and `gaushala_recovery` write them.

Of the cattle a body holds, DIED die there and ESCAPED escape (never recaptured), at a day drawn
from the animal's own generator within its first year at the body. Half of them (LATE) the body
reports only after the month it happened in was claimed and paid: the office records the end
three days after the payment, the claim is flagged over-paid (the days after the end, at the
claim's rate) with its posting *upkeep recoverable / upkeep expense*, and the body's next claims
deduct it. The rest are reported the next day, so the month's claim counts only the days held.
Everything is computed in memory from the rows already read: no query is made for a row."""

import random
from collections import deque
from datetime import datetime, time, timedelta

from django.utils import timezone

from auctions.actions import Action
from auctions.models import HoldingEnd, UpkeepOverpayment, UpkeepRecovery
from auctions.services import gaushala as service
from auctions.services import gaushala_recovery as recovery
from ledger.models import AccountKind, Posting, Transaction, TransactionKind

DIED, ESCAPED, LATE = 0.06, 0.02, 0.5
CAUSES = ("old age", "bloat", "haemorrhagic septicaemia", "injury", "weakness after calving")


def draw(animals, last, floor):
    """The ends of a body's animals [(animal id, handover id, received on, name)]: [{...}] with
    the day (`on`) and whether the body reported it late. Only days after the body's last month
    claimed before this run (`floor`) and before `last` (the first month not ended). An
    animal's generator is seeded by its name (register number and animal number), not its id:
    ids drawn by worker processes at once interleave, and the ends would change with them."""
    ends = []
    for animal_id, handover_id, received, name in animals:
        rng = random.Random(f"gaushala-end:{name}")
        roll = rng.random()
        if roll >= DIED + ESCAPED:
            continue
        on = received + timedelta(days=rng.randint(3, 365))
        if on >= last or (floor is not None and on < floor + timedelta(days=32)):
            continue
        ends.append(
            {
                "animal_id": animal_id,
                "handover_id": handover_id,
                "since": received,
                "kind": HoldingEnd.Kind.DIED if roll < DIED else HoldingEnd.Kind.ESCAPED,
                "on": on,
                "late": rng.random() < LATE,
                "cause": rng.choice(CAUSES),
            }
        )
    return ends


def lost(end, first, last):
    """The days of the month [first, last] the body no longer held the animal after `end`."""
    if end["on"] > last:
        return 0
    return (last - max(end["on"], first)).days + 1


def prompt_at(end):
    return timezone.make_aware(datetime.combine(end["on"] + timedelta(days=1), time(10)))


class Ends:
    """A body's ends as the months are claimed in order: the days each claim may count, the
    over-payments the late ones flag, and their recovery from the claims after."""

    def __init__(self, rows, body, ends, open_overpayments):
        self.rows, self.body, self.ends = rows, body, ends
        # (over-payment id, left to recover, recorded at), oldest first
        self.open = deque(open_overpayments)

    def held(self, month, full, late_here):
        """The month's animal-days the office sees when it prepares the claim: every end up to
        the month's last day taken off, bar the month's own late ones when the claim is paid in
        time for them to follow (`late_here`): those are recorded after it, and flag it."""
        first, last = service.month_bounds(month)
        seen = (
            e
            for e in self.ends
            if e["on"] <= last and not (late_here and e["late"] and e["on"] >= first)
        )
        return full - sum(lost(e, first, last) for e in seen)

    def deduct(self, claim):
        """Draw the open over-payments recorded before the claim was prepared, oldest first, up
        to its gross amount; returns the deduction."""
        left, taken = claim["amount"], []
        while self.open and left > 0 and self.open[0][2] < claim["prepared_at"]:
            over_id, owed, at = self.open.popleft()
            take = min(owed, left)
            self.rows.add(UpkeepRecovery, overpayment_id=over_id, claim_id=claim["id"], amount=take)
            left -= take
            if owed > take:
                taken.append((over_id, owed - take, at))
        self.open.extendleft(reversed(taken))
        return claim["amount"] - left

    def settle(self, claim, month, late_at, pack):
        """After the month's claim (None when none was made): write the month's ends, and flag
        what the late ones over-paid, recorded at `late_at` (after the claim was paid; None
        when the data set ends first)."""
        first, last = service.month_bounds(month)
        for end in (e for e in self.ends if first <= e["on"] <= last and not e.get("written")):
            late = claim is not None and late_at is not None and end["late"]
            end["at"] = late_at if late else prompt_at(end)
            if end["at"] >= self.rows.now:
                continue
            end_id = self._write(end, pack)
            if late:
                self._flag(claim, end, end_id, lost(end, first, last), pack)

    def unwritten(self, pack):
        """The ends of months no claim was made for (none held, or not yet prepared)."""
        for end in self.ends:
            if not end.get("written") and prompt_at(end) < self.rows.now:
                end["at"] = prompt_at(end)
                self._write(end, pack)

    def _write(self, end, pack):
        end["written"] = True
        info, body = self.rows.info, self.body
        died = end["kind"] == HoldingEnd.Kind.DIED
        end_id = self.rows.add(
            HoldingEnd,
            handover_id=end["handover_id"],
            animal_id=end["animal_id"],
            gaushala_id=body.pk,
            since=end["since"],
            began_by_id=None,
            kind=end["kind"],
            on=end["on"],
            cause=end["cause"] if died else "",
            reference=f"{body.registration}/{end['on']:%Y}/{end['animal_id']}",
            to_gaushala_id=None,
            basis="" if died else body.rate_authority,
            basis_note="" if died else "the body's agreement",
            rule_pack="" if died else pack,
            recorded_by_id=info.office_id,
            recorded_at=end["at"],
            idempotency_key=None,
        )
        what = "died at" if died else "escaped from"
        self.rows.event(
            at=end["at"],
            action=Action.GAUSHALA_ANIMAL_DIED if died else Action.GAUSHALA_ANIMAL_ESCAPED,
            section="s.14",
            by_id=info.office_id,
            impoundment_id=None,
            animal_id=end["animal_id"],
            summary=f"Animal {end['animal_id']} {what} {body.name} on {end['on']:%d.%m.%Y}",
            data={
                "handover": end["handover_id"],
                "gaushala": body.pk,
                "since": end["since"],
                "kind": end["kind"],
                "on": end["on"],
                "cause": end["cause"] if died else "",
                "to_gaushala": None,
                "rule_pack": "" if died else pack,
            },
        )
        self.rows.events[-1][2]["pound_id"] = None
        return end_id

    def _flag(self, claim, end, end_id, days, pack):
        rows, body, at = self.rows, self.body, end["at"]
        amount = (claim["rate"] * days).quantize(recovery.PAISA)
        over_id = rows.add(
            UpkeepOverpayment,
            claim_id=claim["id"],
            end_id=end_id,
            gaushala_id=body.pk,
            days=days,
            rate=claim["rate"],
            amount=amount,
            section="s.14",
            rule_pack=pack,
            recorded_by_id=rows.info.office_id,
            recorded_at=at,
        )
        memo = f"{claim['number']}: {days} animal-days over-paid at ₹{claim['rate']}, {body}"
        txn = rows.add(
            Transaction,
            district_id=body.district_id,
            pound_id=None,
            kind=TransactionKind.UPKEEP_OVERPAID,
            at=at,
            by_id=rows.info.office_id,
            memo=memo[:300],
            section="s.14",
            source=f"auctions.upkeepoverpayment:{over_id}",
            impoundment_id=None,
            reverses_id=None,
        )
        accounts = rows.info.accounts
        for kind, value in (
            (AccountKind.UPKEEP_RECOVERABLE, amount),
            (AccountKind.UPKEEP_EXPENSE, -amount),
        ):
            rows.add(Posting, transaction_id=txn, account_id=accounts[None, kind], amount=value)
        rows.event(
            at=at,
            action=Action.UPKEEP_OVERPAID,
            section="s.14",
            by_id=rows.info.office_id,
            impoundment_id=None,
            summary=f"{claim['number']} paid {days} animal-days after a death or escape: "
            f"₹{amount} to recover from the next claim",
            data={
                "claim": claim["number"],
                "gaushala": body.pk,
                "end": end_id,
                "animal": end["animal_id"],
                "on": end["on"],
                "days": days,
                "rate": claim["rate"],
                "amount": amount,
                "rule_pack": pack,
            },
        )
        rows.events[-1][2]["pound_id"] = None
        self.open.append((over_id, amount, at))
