"""Demo data for a handover to a gaushala (ADR 0070), built through the services.

The demo's Lucknow district keeps the central pack, under which its cows are auctioned; an old,
blind bullock nobody will pay a fair price for goes instead to a gaushala of the district's
register by the Magistrate's order under the proviso to s.14 (the pack's "other lawful" route).
The handover is back-dated some sixteen weeks, so that three months have ended since: the first
month's upkeep claim is approved and paid through the books, the second's approved and awaiting
its payment, the last month's awaiting the Magistrate.
"""

from datetime import timedelta
from decimal import Decimal

from django.utils import timezone

from accounts.models import IssuedDocument
from auctions.models import DisposalOrder, Handover
from auctions.services import gaushala as handovers
from impounding.models import AgeClass, Sex, Species

from . import register as register_demo

HANDED_OVER_DAYS_AGO = 110


def seed_handover(cast, *, old_entry, reported):
    """`cast`: demo.unclaimed's cast; `old_entry`, `reported`: its helpers."""
    body = handovers.register_gaushala(
        district=cast.pound.district,
        by=cast.clerk,
        kind="gaushala",
        name="Shri Krishna Gaushala, Nigohan",
        registration="UP/LKO/GS/2019/0042",
        address="Nigohan, Mohanlalganj tahsil, Lucknow",
        phone="9415000042",
        capacity=40,
        agreed_daily_rate=Decimal("50.00"),
        rate_authority="DM Lucknow order no. 112/Gaushala/2024 of 02-04-2024",
    )
    bullock = register_demo.animal(
        Species.CATTLE, Sex.CASTRATED, AgeClass.ADULT, "White, very old", "Blind left eye"
    )
    entry = old_entry(cast, HANDED_OVER_DAYS_AGO + 24, [bullock])
    reported(
        cast,
        entry,
        sent_days_ago=HANDED_OVER_DAYS_AGO + 16,
        posted_days_ago=HANDED_OVER_DAYS_AGO + 15,
    )
    order = handovers.propose_handover(
        pound=cast.pound,
        gaushala_id=body.pk,
        animal_ids=[entry.animals.get().pk],
        by=cast.clerk,
        reason="Old and blind bullock: no bid at two auctions and no fair price likely",
    )
    handovers.decide_handover(
        order=order, by=cast.magistrate, approve=True, note="Approved under the proviso to s.14"
    )
    _back_date(order, cast.now - timedelta(days=HANDED_OVER_DAYS_AGO))
    _claims(cast, body)
    return body


def _back_date(order, then):
    """The order was decided, the bullock received and its certificate issued `then` (the
    claims need ended months)."""
    DisposalOrder.objects.filter(pk=order.pk).update(decided_at=then)
    order.animals.update(custody_ended_at=then)
    handover = Handover.objects.filter(order_id=order.pk)
    handover.update(received_on=timezone.localdate(then))
    IssuedDocument.objects.filter(pk=handover.get().certificate_id).update(issued_at=then)


def _claims(cast, body):
    """Three ended months: paid; approved, to be paid; awaiting the Magistrate."""
    last = handovers.month_of(cast.today.replace(day=1) - timedelta(days=1))
    second = handovers.month_of(last - timedelta(days=1))
    first = handovers.month_of(second - timedelta(days=1))
    paid, approved, _waiting = (_claim(cast, body, month) for month in (first, second, last))
    for claim in (paid, approved):
        handovers.decide_claim(claim=claim, by=cast.magistrate, approve=True)
    handovers.pay_claim(
        claim=paid, by=cast.clerk, payment_mode="other", payment_reference="NEFT SBIN00418873"
    )


def _claim(cast, body, month):
    return handovers.prepare_claim(
        gaushala=body,
        month=month,
        animal_days_claimed=handovers.animal_days(body, month),
        by=cast.clerk,
    )
