"""Upkeep paid for days a body no longer held the animal, and its recovery (ADR 0070 addendum,
"Upkeep over-paid").

A death or a transfer out may be recorded after the month it happened in was claimed and the
claim approved (or paid). The claim then paid for days the body did not hold the animal. Nothing
posted is edited: the over-payment is flagged against the claim that paid it (the days the claim
paid beyond the days the body now held, at that claim's rate) and its expense reversed into a
receivable from the body, in the same transaction as the death. The body's next claims deduct
it, as a line of their own, up to their gross amount (a larger over-payment carries its
remainder to the claim after); their approval posts the gross upkeep and the recovery together.
Until then the receivable stays open, listed on the body's page."""

from decimal import Decimal

from django.db.models import DecimalField, F, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_noop

from kernel.events import record_event
from kernel.messages import Message
from kernel.refs import ref
from ledger import services as ledger
from ledger.models import AccountKind, TransactionKind
from rulepacks import services as rulepacks

from ..actions import Action
from ..models import UpkeepClaim, UpkeepOverpayment, UpkeepRecovery
from . import gaushala_holding as holding

PAISA = Decimal("0.01")
ZERO = Decimal("0.00")
SECTION = "s.14"
POSTED = (UpkeepClaim.Status.APPROVED, UpkeepClaim.Status.PAID)


def flag_overpayments(end, *, by):
    """Flag what the body's posted claims paid beyond the days it now held, after `end` (a death
    or transfer out) was recorded: one over-payment per claim, for the days not already flagged,
    at the claim's rate. The claims are locked, so two ends recorded at once count each day
    once. Returns the over-payments made."""
    claims = list(
        UpkeepClaim.objects.select_for_update(of=("self",))
        .filter(gaushala_id=end.gaushala_id, month__gte=end.on.replace(day=1), status__in=POSTED)
        .select_related("gaushala__district")
        .order_by("month", "id")
    )
    made = []
    for claim in claims:
        flagged = claim.overpayments.aggregate(n=Sum("days", default=0))["n"]
        days = (
            max(0, claim.animal_days - holding.animal_days(claim.gaushala, claim.month)) - flagged
        )
        if days > 0:
            made.append(_flag(claim, end, days, by=by))
    return made


def _flag(claim, end, days, *, by):
    district = claim.gaushala.district
    pack = rulepacks.pack_for(district)
    over = UpkeepOverpayment.objects.create(
        claim=claim,
        end=end,
        gaushala=claim.gaushala,
        days=days,
        rate=claim.rate,
        amount=(claim.rate * days).quantize(PAISA),
        section=SECTION,
        rule_pack=f"{pack.code} {pack.version}"[:40],
        recorded_by=by,
    )
    ledger.post(
        district=district,
        kind=TransactionKind.UPKEEP_OVERPAID,
        section=SECTION,
        by=by,
        memo=f"{claim.number}: {days} animal-days over-paid at ₹{claim.rate}, {claim.gaushala}",
        source=ref(over),
        lines=[
            (ledger.account(district=district, kind=AccountKind.UPKEEP_RECOVERABLE), over.amount),
            (ledger.account(district=district, kind=AccountKind.UPKEEP_EXPENSE), -over.amount),
        ],
    )
    record_event(
        action=Action.UPKEEP_OVERPAID,
        section=SECTION,
        by=by,
        district=district,
        summary=Message(
            gettext_noop(
                "%(number)s paid %(days)s animal-days after a death or transfer: ₹%(amount)s "
                "to recover from the next claim"
            ),
            number=claim.number,
            days=days,
            amount=over.amount,
        ),
        data={
            "claim": claim.number,
            "gaushala": claim.gaushala_id,
            "end": end.pk,
            "animal": end.animal_id,
            "on": end.on,
            "days": days,
            "rate": claim.rate,
            "amount": over.amount,
            "rule_pack": over.rule_pack,
        },
    )
    return over


def _recovered():
    """What the claims not refused recovered of an over-payment, for a subquery."""
    return Coalesce(
        Subquery(
            UpkeepRecovery.objects.filter(overpayment=OuterRef("pk"))
            .exclude(claim__status=UpkeepClaim.Status.REJECTED)
            .order_by()
            .values("overpayment")
            .annotate(s=Sum("amount"))
            .values("s")
        ),
        Value(ZERO),
        output_field=DecimalField(max_digits=12, decimal_places=2),
    )


def open_overpayments(bodies):
    """The over-payments of `bodies` not yet wholly recovered, oldest first, each with
    `recovered` and `left` (one query)."""
    return (
        UpkeepOverpayment.objects.filter(gaushala__in=bodies)
        .annotate(recovered=_recovered())
        .annotate(left=F("amount") - F("recovered"))
        .filter(left__gt=0)
        .select_related("claim", "end__animal", "gaushala", "recorded_by")
        .order_by("recorded_at", "id")
    )


def deduct(claim):
    """Deduct the body's open over-payments from a claim just prepared, oldest first, up to its
    gross amount: what is left over carries to the next claim. Returns the deduction."""
    left = claim.amount
    for over in open_overpayments([claim.gaushala_id]):
        take = min(over.left, left)
        if take <= 0:
            break
        UpkeepRecovery.objects.create(overpayment=over, claim=claim, amount=take)
        left -= take
    claim.deduction = claim.amount - left
    if claim.deduction:
        claim.save(update_fields=["deduction"])
    return claim.deduction


def overpaid_on():
    """An annotation of a claim queryset: the upkeep found over-paid on each claim."""
    return Coalesce(
        Subquery(
            UpkeepOverpayment.objects.filter(claim=OuterRef("pk"))
            .order_by()
            .values("claim")
            .annotate(s=Sum("amount"))
            .values("s")
        ),
        Value(ZERO),
        output_field=DecimalField(max_digits=12, decimal_places=2),
    )


def claim_lines(claim):
    """For a claim's page: the over-payments it recovers (each with the claim that paid them)
    and those found on it since."""
    return {
        "recoveries": claim.recoveries.select_related(
            "overpayment__claim", "overpayment__end__animal"
        ).order_by("pk"),
        "overpayments": claim.overpayments.select_related("end__animal", "recorded_by"),
    }
