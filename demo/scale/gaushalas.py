"""Gaushala handovers in a scale data set (ADR 0070): each district's register of bodies, the
handovers of unsold cattle to them by the Magistrate's order under the proviso to s.14 (the
central pack's "other lawful" route), and each body's monthly upkeep claims, approved and paid
through the books, as `auctions.services.gaushala` writes them, back-dated.

The bodies are read (or registered) once; the handovers are rows of each pound's share
(demo/scale/sales.py); the claims follow once every pound is written, as a body takes cattle
from all the district's pounds. A body is never sent more than its capacity: each pound has its
part of the bodies' room, and once its part is full, its unsold cattle go to an institution."""

from collections import defaultdict
from datetime import datetime, time, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import District, User
from auctions.actions import Action
from auctions.models import (
    DisposalOrder,
    Gaushala,
    HoldingEnd,
    UpkeepClaim,
    UpkeepOverpayment,
    UpkeepRecovery,
)
from auctions.services import gaushala as service
from auctions.services import gaushala_recovery as recovery
from kernel.events import record_event
from kernel.messages import Message
from kernel.models import Event
from ledger import services as ledger
from ledger.models import AccountKind, PaymentMode, Posting, Transaction, TransactionKind
from rulepacks import services as rulepacks

from . import chain, gaushala_ends, plan, write
from .rows import Rows

# Two gaushalas a district, each taking up to CAPACITY head, at the rate the DM's order fixed.
BODIES = ("Shri Krishna Gaushala", "Kamdhenu Gau Seva Sadan")
CAPACITY = 300
RATE = Decimal("40.00")


def bodies(district, *, clerk_id, since):
    """The district's register, as [{id, name, ..., room}], `room` the head each body can still
    take (counting orders awaiting the Magistrate); registered at `since` on a first run."""
    have = list(Gaushala.objects.filter(district=district, active=True).order_by("pk"))
    if not have:
        clerk = User.objects.get(pk=clerk_id)
        at = timezone.make_aware(datetime.combine(since, time(11)))
        have = [_register(district, clerk, n, name, at) for n, name in enumerate(BODIES, 1)]
    pinned = rulepacks.pack_for(district)
    pack, dues = f"{pinned.code} {pinned.version}", service.dues_rule(pinned.rules)
    return [
        {
            "pack": pack,
            "dues_rule": dues,
            "id": b.pk,
            "name": b.name,
            "address": b.address,
            "phone": b.phone,
            "registration": b.registration,
            "room": max(0, b.capacity - service.held_by(b, pending=True)),
        }
        for b in have
        if b.kind == Gaushala.Kind.GAUSHALA
    ]


def _register(district, clerk, n, name, at):
    body = Gaushala.objects.create(
        district=district,
        kind=Gaushala.Kind.GAUSHALA,
        name=f"{name}, {district.name}",
        registration=f"GS/{district.code.upper()}/{n:03d}",
        address=f"Near the cattle market, {district.name}",
        phone=f"94150{district.pk % 100:02d}{n:03d}",
        capacity=CAPACITY,
        agreed_daily_rate=RATE,
        rate_authority=f"DM {district.name} order no. {n}/Gaushala/{at.year}",
        added_by=clerk,
        added_at=at,
    )
    record_event(
        action=Action.GAUSHALA_REGISTERED,
        section="s.14",
        by=clerk,
        district=district,
        at=at,
        summary=Message(
            gettext_noop("%(name)s (%(registration)s): capacity %(capacity)s, rate %(rate)s"),
            name=body.name,
            registration=body.registration,
            capacity=body.capacity,
            rate=body.agreed_daily_rate,
        ),
        data={
            "gaushala": body.pk,
            "capacity": body.capacity,
            "agreed_daily_rate": body.agreed_daily_rate,
            "rate_authority": body.rate_authority,
            "active": body.active,
        },
    )
    return body


def apportion(infos, shares):
    """Give each pound its own part of its district's bodies' room, in proportion to its share
    of the entries. A pound then fills its part alone, whatever the district's other pounds do:
    the pounds may be seeded in any order, or at once in worker processes, and leave the same
    rows. A body's room taken in turn by the pounds would make each pound's rows depend on the
    pounds written before it."""
    by_district = defaultdict(list)
    for info, share in zip(infos, shares, strict=True):
        by_district[info.district_id].append((info, share))
    for pounds in by_district.values():
        register = pounds[0][0].gaushalas
        total = sum(share for _info, share in pounds) or 1
        for info, _share in pounds:
            info.gaushalas = [dict(body) for body in register]
        for n, body in enumerate(register):
            parts = [body["room"] * share // total for _info, share in pounds]
            for i in range(body["room"] - sum(parts)):
                parts[i % len(parts)] += 1
            for (info, _share), part in zip(pounds, parts, strict=True):
                info.gaushalas[n]["room"] = part


def with_room(info, head):
    """A body of the pound's district with room for `head` more in the pound's part of it (see
    `apportion`), the room taken; None when all are full."""
    for body in info.gaushalas:
        if head <= body["room"]:
            body["room"] -= head
            return body
    return None


def claims(infos, now, heads, ids):
    """Each body's claim for every ended month its handovers give animal-days in and it has not
    claimed yet: prepared early the next month, approved days later, paid days after that; and
    the deaths and escapes at the bodies, with the upkeep they leave over-paid and its recovery
    (demo/scale/gaushala_ends.py). Written in bulk, a district at a time, with their postings
    and the district's events."""
    districts = {i.district_id: i for i in infos}
    handed = defaultdict(list)  # {body id: [(animal id, handover id, received on, name)]}
    for body_id, animal_id, handover_id, on, entry, number in (
        DisposalOrder.animals.through.objects.filter(
            disposalorder__handover__gaushala__district__in=districts,
            disposalorder__status=DisposalOrder.Status.APPROVED,
        )
        .values_list(
            "disposalorder__handover__gaushala",
            "animal_id",
            "disposalorder__handover__id",
            "disposalorder__handover__received_on",
            "animal__impoundment__register_number",
            "animal__number",
        )
        .order_by("animal__impoundment__register_number", "animal__number")
    ):
        handed[body_id].append((animal_id, handover_id, on, f"{entry}/{number}"))
    ended = defaultdict(list)  # the ends an earlier run wrote: one query
    for end in HoldingEnd.objects.filter(gaushala__district__in=districts).values(
        "gaushala_id", "animal_id", "on"
    ):
        ended[end.pop("gaushala_id")].append({**end, "late": False, "written": True})
    owed = defaultdict(list)  # their over-payments still to recover: one query
    for over in recovery.open_overpayments(Gaushala.objects.filter(district__in=districts)):
        owed[over.gaushala_id].append((over.pk, over.left, over.recorded_at))
    done = set(UpkeepClaim.objects.exclude(status="rejected").values_list("gaushala_id", "month"))
    floors = defaultdict(lambda: None)
    for body_id, month in done:
        floors[body_id] = max(month, floors[body_id] or month)
    last = plan.local_date(now).replace(day=1)  # the first month not yet ended
    bodies = Gaushala.objects.filter(district__in=districts).select_related("district")
    for district_id, info in districts.items():
        info.accounts[None, AccountKind.UPKEEP_RECOVERABLE] = ledger.account(
            district=District.objects.get(pk=district_id), kind=AccountKind.UPKEEP_RECOVERABLE
        ).pk
        pack = info.gaushalas[0]["pack"] if info.gaushalas else ""
        rows = Rows(info=info, ids=ids, rng=None, now=now)
        for body in (b for b in bodies if b.district_id == district_id):
            rate, source = _rate(body)
            before = {e["animal_id"] for e in ended[body.pk]}
            fresh = [a for a in handed[body.pk] if a[0] not in before]
            drawn = gaushala_ends.draw(fresh, last, floors[body.pk])
            ends = gaushala_ends.Ends(rows, body, [*ended[body.pk], *drawn], owed[body.pk])
            received = [(on, 1) for _a, _h, on, _n in handed[body.pk]]
            for month, full in _months(received, last):
                if (body.pk, month) not in done:
                    claim, late_at = _claim(rows, body, month, full, (rate, source), ends)
                    ends.settle(claim, month, late_at, pack)
            ends.unwritten(pack)
        _write(rows, heads, district_id)


def _rate(body):
    if body.agreed_daily_rate is not None:  # the central pack gives no rate: the body's own
        return body.agreed_daily_rate, body.rate_authority
    return service.upkeep_rate(body)


def _months(received, last):
    """(month, animal-days) for each month from the first handover to `last`, as
    `service.animal_days` counts them before any death or escape."""
    if not received:
        return
    month = min(on for on, _n in received).replace(day=1)
    while month < last:
        first, end = service.month_bounds(month)
        held = sum(((end - max(on, first)).days + 1) * n for on, n in received if on <= end)
        if held:
            yield month, held
        month = (month + timedelta(days=32)).replace(day=1)


def _claim(rows, body, month, full, rate_source, ends):
    """The month's claim (None when none is made by the data set's end, or the body held no
    animal that month), and when the ends the body reported late were recorded (after the
    claim was paid; None when that is past the data set's end)."""
    now, info = rows.now, rows.info
    rate, source = rate_source
    following = (month + timedelta(days=32)).replace(day=1)
    prepared = timezone.make_aware(datetime.combine(following, time(11))) + timedelta(
        days=2 + body.pk % 4
    )
    if prepared >= now:
        return None, None
    decided = prepared + timedelta(days=3, hours=3)
    paid = decided + timedelta(days=6)
    late_at = paid + timedelta(days=3) if paid + timedelta(days=3) < now else None
    held = ends.held(month, full, late_at is not None)
    if held <= 0:
        return None, None
    approved = decided < now
    amount = (rate * held).quantize(service.PAISA)
    claim = {
        "gaushala_id": body.pk,
        "month": month,
        "number": service.claim_number(body, month),  # the seed refuses no claim
        "animal_days": held,
        "held_days": held,
        "rate": rate,
        "rate_source": source[:200],
        "amount": amount,
        "deduction": Decimal("0.00"),
        "prepared_by_id": info.office_id,
        "prepared_at": prepared,
        "decided_by_id": info.magistrate_id if approved else None,
        "decided_at": decided if approved else None,
    }
    claim["id"] = rows.add(UpkeepClaim, **claim)
    row = rows.tables[UpkeepClaim][-1]
    row["deduction"] = claim["deduction"] = ends.deduct(claim)
    net = amount - claim["deduction"]
    settled = paid < now and net > 0  # a nil net is not paid (the payment screen refuses it)
    row.update(
        status="paid" if settled else "approved" if approved else "proposed",
        paid_by_id=info.office_id if settled else None,
        paid_at=paid if settled else None,
        payment_mode=PaymentMode.OTHER if settled else "",
        payment_reference=f"NEFT {claim_ref(body, month)}" if settled else "",
    )
    _event(rows, claim, info.office_id, Action.UPKEEP_CLAIMED, prepared)
    if approved:
        _approve(rows, body, claim, decided)
        _event(rows, claim, info.magistrate_id, Action.UPKEEP_APPROVED, decided)
    if settled:
        _post(rows, body, {**claim, "amount": net}, info.office_id, TransactionKind.UPKEEP_PAID,
              paid, AccountKind.UPKEEP_PAYABLE, AccountKind.DM_TREASURY)  # fmt: skip
        _event(rows, claim, info.office_id, Action.UPKEEP_PAID, paid)
    return claim, late_at if approved else None


def _approve(rows, body, claim, at):
    """As `service._post_approval`: the gross expense, the net payable, the recovery."""
    net = claim["amount"] - claim["deduction"]
    memo = f"{claim['number']}: {claim['animal_days']} animal-days at ₹{claim['rate']}, {body}"
    if claim["deduction"]:
        memo += f"; less ₹{claim['deduction']} over-paid before"
    txn = rows.add(
        Transaction,
        district_id=body.district_id,
        pound_id=None,
        kind=TransactionKind.UPKEEP_CLAIMED,
        at=at,
        by_id=rows.info.magistrate_id,
        memo=memo[:300],
        section="s.14",
        source=f"auctions.upkeepclaim:{claim['id']}",
        impoundment_id=None,
        reverses_id=None,
    )
    lines = [(AccountKind.UPKEEP_EXPENSE, claim["amount"]), (AccountKind.UPKEEP_PAYABLE, -net)]
    if claim["deduction"]:
        lines.append((AccountKind.UPKEEP_RECOVERABLE, -claim["deduction"]))
    accounts = rows.info.accounts
    for kind, amount in lines:
        if amount:
            rows.add(Posting, transaction_id=txn, account_id=accounts[None, kind], amount=amount)


def claim_ref(body, month):
    return f"{body.district_id:02d}{body.pk:04d}{month:%Y%m}"


def _post(rows, body, claim, by_id, kind, at, debit, credit):
    """As `service._post`: the district's transaction, no pound."""
    accounts = rows.info.accounts
    txn = rows.add(
        Transaction,
        district_id=body.district_id,
        pound_id=None,
        kind=kind,
        at=at,
        by_id=by_id,
        memo=f"{claim['number']}: {claim['animal_days']} animal-days at ₹{claim['rate']}, {body}"[
            :300
        ],
        section="s.14",
        source=f"auctions.upkeepclaim:{claim['id']}",
        impoundment_id=None,
        reverses_id=None,
    )
    for account, amount in ((debit, claim["amount"]), (credit, -claim["amount"])):
        rows.add(Posting, transaction_id=txn, account_id=accounts[None, account], amount=amount)


def _event(rows, claim, by_id, action, at):
    """As `service._record_claim`: on the district's chain."""
    rows.event(
        at=at,
        action=action,
        section="s.14",
        by_id=by_id,
        impoundment_id=None,
        summary=f"{claim['number']}: {claim['animal_days']} animal-days, ₹{claim['amount']}",
        data={
            "claim": claim["number"],
            "gaushala": claim["gaushala_id"],
            "month": claim["month"],
            "animal_days": claim["animal_days"],
            "held_days": claim["held_days"],
            "rate": claim["rate"],
            "rate_source": claim["rate_source"],
            "amount": claim["amount"],
            "prepared_by": claim["prepared_by_id"],
            "note": "",
        },
    )
    rows.events[-1][2]["pound_id"] = None


def _write(rows, heads, district_id):
    chain_name = f"district:{district_id}"
    with transaction.atomic():
        events = chain.link(rows, heads, chain=chain_name)
        for model in (UpkeepClaim, HoldingEnd, UpkeepOverpayment, UpkeepRecovery, Transaction):
            write.copy_rows(model, rows.tables[model])
        write.copy_rows(Posting, rows.tables[Posting])
        write.copy_rows(Event, events)
        write.save_heads({k: v for k, v in heads.items() if k == chain_name})
