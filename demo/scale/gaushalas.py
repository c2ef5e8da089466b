"""Gaushala handovers in a scale data set (ADR 0070): each district's register of bodies, the
handovers of unsold cattle to them by the Magistrate's order under the proviso to s.14 (the
central pack's "other lawful" route), and each body's monthly upkeep claims, approved and paid
through the books, as `auctions.services.gaushala` writes them, back-dated.

The bodies are read (or registered) once; the handovers are rows of each pound's share
(demo/scale/sales.py); the claims follow once every pound is written, as a body takes cattle
from all the district's pounds. A body is never sent more than its capacity: once the
district's bodies are full, unsold cattle go to an institution instead."""

from collections import defaultdict
from datetime import datetime, time, timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import User
from auctions.actions import Action
from auctions.models import DisposalOrder, Gaushala, UpkeepClaim
from auctions.services import gaushala as service
from kernel.events import record_event
from kernel.messages import Message
from kernel.models import Event
from ledger.models import AccountKind, PaymentMode, Posting, Transaction, TransactionKind
from rulepacks import services as rulepacks

from . import chain, plan, write
from .rows import Rows

# Two gaushalas a district, each taking up to CAPACITY head, at the rate the DM's order fixed.
BODIES = ("Shri Krishna Gaushala", "Kamdhenu Gau Seva Sadan")
CAPACITY = 300
RATE = Decimal("40.00")


def bodies(district, *, clerk_id, since):
    """The district's register, as [{id, name, ..., capacity, held}] shared by its pounds;
    registered at `since` on a first run."""
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
            "capacity": b.capacity,
            "held": service.held_by(b, pending=True),
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


def with_room(info, head):
    """A body of the pound's district with room for `head` more (counting orders awaiting the
    Magistrate), its count taken; None when all are full."""
    for body in info.gaushalas:
        if body["held"] + head <= body["capacity"]:
            body["held"] += head
            return body
    return None


def claims(infos, now, heads, ids):
    """Each body's claim for every ended month its handovers give animal-days in and it has not
    claimed yet: prepared early the next month, approved days later, paid days after that.
    Written in bulk, a district at a time, with their postings and the district's events."""
    districts = {i.district_id: i for i in infos}
    received = defaultdict(list)  # {body id: [(received on, head)]}: one grouped query
    for body_id, on, head in (
        DisposalOrder.animals.through.objects.filter(
            disposalorder__handover__gaushala__district__in=districts,
            disposalorder__status=DisposalOrder.Status.APPROVED,
        )
        .values_list("disposalorder__handover__gaushala", "disposalorder__handover__received_on")
        .annotate(n=Count("pk"))
    ):
        received[body_id].append((on, head))
    done = set(UpkeepClaim.objects.exclude(status="rejected").values_list("gaushala_id", "month"))
    last = plan.local_date(now).replace(day=1)  # the first month not yet ended
    bodies = Gaushala.objects.filter(district__in=districts).select_related("district")
    for district_id, info in districts.items():
        rows = Rows(info=info, ids=ids, rng=None, now=now)
        for body in (b for b in bodies if b.district_id == district_id):
            rate, source = _rate(body)
            for month, held in _months(received[body.pk], last):
                if (body.pk, month) not in done:
                    _claim(rows, body, month, held, (rate, source))
        _write(rows, heads, district_id)


def _rate(body):
    if body.agreed_daily_rate is not None:  # the central pack gives no rate: the body's own
        return body.agreed_daily_rate, body.rate_authority
    return service.upkeep_rate(body)


def _months(received, last):
    """(month, animal-days) for each month from the first handover to `last`, as
    `service.animal_days` counts them."""
    if not received:
        return
    month = min(on for on, _n in received).replace(day=1)
    while month < last:
        first, end = service.month_bounds(month)
        held = sum(((end - max(on, first)).days + 1) * n for on, n in received if on <= end)
        if held:
            yield month, held
        month = (month + timedelta(days=32)).replace(day=1)


def _claim(rows, body, month, held, rate_source):
    now, info = rows.now, rows.info
    rate, source = rate_source
    following = (month + timedelta(days=32)).replace(day=1)
    prepared = timezone.make_aware(datetime.combine(following, time(11))) + timedelta(
        days=2 + body.pk % 4
    )
    if prepared >= now:
        return
    decided = prepared + timedelta(days=3, hours=3)
    paid = decided + timedelta(days=6)
    approved, settled = decided < now, paid < now
    claim = {
        "gaushala_id": body.pk,
        "month": month,
        "number": service.claim_number(body, month),  # the seed refuses no claim
        "animal_days": held,
        "held_days": held,
        "rate": rate,
        "rate_source": source[:200],
        "amount": (rate * held).quantize(service.PAISA),
        "prepared_by_id": info.office_id,
        "prepared_at": prepared,
        "status": "paid" if settled else "approved" if approved else "proposed",
        "decided_by_id": info.magistrate_id if approved else None,
        "decided_at": decided if approved else None,
        "paid_by_id": info.office_id if settled else None,
        "paid_at": paid if settled else None,
        "payment_mode": PaymentMode.OTHER if settled else "",
        "payment_reference": f"NEFT {claim_ref(body, month)}" if settled else "",
    }
    claim["id"] = rows.add(UpkeepClaim, **claim)
    _event(rows, claim, info.office_id, Action.UPKEEP_CLAIMED, prepared)
    if approved:
        _post(rows, body, claim, info.magistrate_id, TransactionKind.UPKEEP_CLAIMED, decided,
              AccountKind.UPKEEP_EXPENSE, AccountKind.UPKEEP_PAYABLE)  # fmt: skip
        _event(rows, claim, info.magistrate_id, Action.UPKEEP_APPROVED, decided)
    if settled:
        _post(rows, body, claim, info.office_id, TransactionKind.UPKEEP_PAID, paid,
              AccountKind.UPKEEP_PAYABLE, AccountKind.DM_TREASURY)  # fmt: skip
        _event(rows, claim, info.office_id, Action.UPKEEP_PAID, paid)


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
        for model in (UpkeepClaim, Transaction, Posting):
            write.copy_rows(model, rows.tables[model])
        write.copy_rows(Event, events)
        write.save_heads({k: v for k, v in heads.items() if k == chain_name})
