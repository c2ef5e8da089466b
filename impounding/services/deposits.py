"""s.15 deposits and the complaint that decides their fate (ss.20-22), docs/domain.md decision 6.

- Release on deposit: the owner disputes the seizure, deposits the fines and charges, and takes
  the animals back; the sum is held apart (the steps shared with s.13 are in releases.py).
- Complaint upheld (seizure or detention illegal): the deposit is refunded, and the fines,
  charges and compensation are recorded against the seizer (s.22, recoverable under s.23).
- Complaint dismissed, or none made by the end of the 10th day after the seizure: the deposit is
  applied as payment (fines to the District Magistrate, feeding to the pound-keeper), once the
  District Magistrate's office confirms it.
"""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import DistrictPolicy
from accounts.roles import Permission
from accounts.scoping import authorise, has_permission
from kernel import clock
from kernel.dates import complaint_deadline
from kernel.events import record_event
from kernel.idempotency import made_with_key
from kernel.messages import THE_CLAIMANT, Message, label
from kernel.refs import ref
from ledger import services as ledger
from ledger.models import AccountKind, PaymentMode, TransactionKind
from payments import services as payments

from ..actions import Action
from ..models import Complaint, Deposit, Impoundment, Release, SeizerLiability
from .common import ReleaseRefused
from .releases import ClaimAnswers, claimant_personal, release_to_claimant

# Who a summary names in its hashed link (docs/decisions/0010).
THE_COMPLAINANT = Message(gettext_noop("the complainant"))


def _may_record_court_matters(by, pound):
    if not (
        has_permission(by, Permission.PREPARE_ORDERS, pound)
        or has_permission(by, Permission.RECORD_IMPOUNDMENT, pound)
    ):
        authorise(by, Permission.PREPARE_ORDERS, pound)


def _check_complaint(
    entry, *, filed_on, through_agent, agent_name, agent_acquaintance, mode, substance, deposit
):
    """What a complaint under ss.20-21 must say before it is recorded."""
    if filed_on > clock.today(entry.pound):
        raise ValidationError({"filed_on": _("The filing date cannot be in the future.")})
    if filed_on < entry.seizure_date():
        raise ValidationError({"filed_on": _("The complaint cannot predate the seizure.")})
    if through_agent and not (agent_name.strip() and agent_acquaintance.strip()):
        raise ValidationError(
            {
                "agent_acquaintance": _(
                    "s.21: name the agent and say how he is personally acquainted with the facts."
                )
            }
        )
    if mode == Complaint.Mode.ORAL and not substance.strip():
        raise ValidationError({"substance": _("Write down the substance of the oral complaint.")})
    if deposit is not None and deposit.release.impoundment_id != entry.pk:
        raise ValidationError(_("That deposit belongs to another register entry."))


@transaction.atomic
def record_complaint(
    *,
    entry,
    by,
    complainant_name,
    mode,
    court,
    filed_on,
    deposit=None,
    through_agent=False,
    agent_name="",
    agent_acquaintance="",
    substance="",
    case_number="",
    summons_on=None,
    idempotency_key=None,
):
    """Record a complaint under s.20. A late one is recorded and flagged, never refused: the
    Magistrate decides whether to entertain it. Once for each `idempotency_key`: the same form
    sent again returns the complaint it recorded."""
    _may_record_court_matters(by, entry.pound)
    entry = Impoundment.objects.select_for_update(of=("self",)).get(pk=entry.pk)
    done = made_with_key(Complaint, idempotency_key, impoundment_id=entry.pk, recorded_by_id=by.pk)
    if done is not None:
        return done
    _check_complaint(
        entry,
        filed_on=filed_on,
        through_agent=through_agent,
        agent_name=agent_name,
        agent_acquaintance=agent_acquaintance,
        mode=mode,
        substance=substance,
        deposit=deposit,
    )
    policy = DistrictPolicy.for_district(entry.pound.district)
    complaint = Complaint(
        impoundment=entry,
        deposit=deposit,
        complainant_name=complainant_name,
        through_agent=through_agent,
        agent_name=agent_name,
        agent_acquaintance=agent_acquaintance,
        mode=mode,
        substance=substance,
        court=court,
        case_number=case_number,
        filed_on=filed_on,
        summons_on=summons_on,
        deadline=complaint_deadline(entry.seizure_date(), policy.complaint_days),
        recorded_by=by,
        idempotency_key=idempotency_key,
    )
    complaint.full_clean(exclude=["impoundment", "deposit"])
    complaint.save()
    _complaint_event(complaint, entry=entry, by=by)
    return complaint


def _complaint_event(complaint, *, entry, by):
    record_event(
        action=Action.COMPLAINT_RECORDED,
        section="s.20",
        summary=Message(
            gettext_noop("Complaint by %(name)s filed %(filed_on)s in %(court)s")
            if complaint.in_time
            else gettext_noop(
                "Complaint by %(name)s filed %(filed_on)s in %(court)s (after the 10 days of s.20)"
            ),
            name=THE_COMPLAINANT,
            filed_on=complaint.filed_on,
            court=complaint.court,
        ),
        by=by,
        impoundment=entry,
        personal={"name": complaint.complainant_name},
        data={
            "filed_on": complaint.filed_on,
            "deadline": complaint.deadline,
            "in_time": complaint.in_time,
            "court": complaint.court,
            "mode": complaint.mode,
            "deposit": complaint.deposit_id,
        },
    )


def _check_decision(complaint, *, outcome, decided_on):
    if complaint.outcome != Complaint.Outcome.PENDING:
        raise ValidationError(_("This complaint has already been decided."))
    if outcome not in (Complaint.Outcome.UPHELD, Complaint.Outcome.DISMISSED):
        raise ValidationError({"outcome": _("Choose the outcome.")})
    if decided_on < complaint.filed_on or decided_on > clock.today(complaint.impoundment.pound):
        raise ValidationError(
            {"decided_on": _("The decision date must fall between the filing date and today.")}
        )


def _refund_due(deposit, *, entry, by):
    """s.22: a held deposit becomes due to the owner again; one already dealt with stays so."""
    deposit = Deposit.objects.select_for_update(of=("self",)).get(pk=deposit.pk)
    if deposit.status != Deposit.Status.HELD:
        return deposit
    deposit.status = Deposit.Status.REFUND_DUE
    deposit.save(update_fields=["status"])
    district = entry.pound.district
    ledger.post(
        district=district,
        pound=entry.pound,
        kind=TransactionKind.DEPOSIT_REFUND_DUE,
        memo=f"Deposit {deposit.release.receipt.number} to be refunded: {entry.register_number}",
        by=by,
        source=ref(deposit),
        section="s.22",
        impoundment_id=entry.pk,
        lines=[
            (ledger.account(district=district, kind=AccountKind.DEPOSITS_HELD), deposit.amount),
            (
                ledger.account(district=district, kind=AccountKind.DEPOSIT_REFUNDS_DUE),
                -deposit.amount,
            ),
        ],
    )
    return deposit


def _record_liability(complaint, *, entry, deposit):
    """s.22: the fines and charges (those deposited, or else those paid) and the compensation
    are recorded against whoever the order names, to be recovered under s.23."""
    if deposit is not None:
        fines, feeding = deposit.fines, deposit.feeding
    else:
        releases = list(entry.releases.all())
        fines = sum((r.fines for r in releases), Decimal("0.00"))
        feeding = sum((r.feeding for r in releases), Decimal("0.00"))
    SeizerLiability.objects.create(
        impoundment=entry,
        complaint=complaint,
        payable_by=complaint.payable_by,
        fines=fines,
        feeding=feeding,
        compensation=complaint.compensation,
    )


@transaction.atomic
def decide_complaint(
    *,
    complaint,
    by,
    outcome,
    decided_on,
    order_reference="",
    compensation=Decimal("0.00"),
    payable_by="",
):
    """Record the Magistrate's finding. Upheld: a held deposit becomes due for refund and the
    seizer's liability (s.22) is recorded. Dismissed: the deposit may be applied."""
    complaint = Complaint.objects.select_for_update(of=("self",)).get(pk=complaint.pk)
    entry = complaint.impoundment
    # The court's finding is entered by the District Magistrate's office, not the pound.
    authorise(
        by,
        Permission.PREPARE_ORDERS,
        entry.pound,
        _("The District Magistrate's office records the court's decision."),
    )
    _check_decision(complaint, outcome=outcome, decided_on=decided_on)
    compensation = Decimal(compensation)
    if outcome == Complaint.Outcome.UPHELD and not payable_by.strip():
        raise ValidationError({"payable_by": _("Name who the order makes pay (s.22).")})
    complaint.outcome, complaint.decided_on = outcome, decided_on
    complaint.order_reference, complaint.compensation = order_reference, compensation
    complaint.payable_by = payable_by
    complaint.save(
        update_fields=["outcome", "decided_on", "order_reference", "compensation", "payable_by"]
    )
    deposit = complaint.deposit
    if outcome == Complaint.Outcome.UPHELD:
        if deposit is None:
            # A complaint about the seizure covers the deposit made for that seizure, named or
            # not.
            deposit = (
                Deposit.objects.filter(release__impoundment=entry, status=Deposit.Status.HELD)
                .order_by("pk")
                .first()
            )
        if deposit is not None:
            deposit = _refund_due(deposit, entry=entry, by=by)
        _record_liability(complaint, entry=entry, deposit=deposit)
    record_event(
        action=Action(f"complaint.{outcome}"),
        section="s.22",
        summary=Message(
            gettext_noop("Complaint by %(name)s: %(outcome)s"),
            name=THE_COMPLAINANT,
            outcome=label(complaint.get_outcome_display()),
        ),
        by=by,
        impoundment=entry,
        personal={"name": complaint.complainant_name},
        data={
            "decided_on": decided_on,
            "order": order_reference,
            "compensation": compensation,
            "payable_by": payable_by,
            "deposit": deposit.pk if deposit else None,
        },
    )
    return complaint


def deposit_awaiting_application(deposit, today=None):
    """A held deposit may be applied when its complaint was dismissed, or when no complaint was
    made by the end of the complaint window."""
    if deposit.status != Deposit.Status.HELD:
        return False
    today = today or clock.today(deposit.release.impoundment.pound)
    # .all() rather than .filter(), so that a list page's prefetched complaints are used.
    complaints = list(deposit.complaints.all()) or [
        c for c in deposit.release.impoundment.complaints.all() if c.deposit_id is None
    ]
    return awaiting_application({c.outcome for c in complaints}, deposit.complaint_deadline, today)


def awaiting_application(outcomes, complaint_deadline, today):
    """The rule of deposit_awaiting_application, from the outcomes of the deposit's deciding
    complaints: all dismissed, or none made and the window to complain over."""
    if outcomes:
        return all(outcome == Complaint.Outcome.DISMISSED for outcome in outcomes)
    return today > complaint_deadline


@transaction.atomic
def apply_deposit(*, deposit, by):
    """The District Magistrate's office confirms; the deposit becomes the payment it stood for."""
    deposit = (
        Deposit.objects.select_for_update(of=("self",))
        .select_related("release__impoundment__pound__district", "release__receipt")
        .get(pk=deposit.pk)
    )
    entry = deposit.release.impoundment
    authorise(
        by,
        Permission.APPLY_DEPOSIT,
        entry.pound,
        _("Only the District Magistrate (or a delegate) confirms applying a deposit."),
    )
    if not deposit_awaiting_application(deposit):
        raise ValidationError(
            _(
                "This deposit cannot be applied: a complaint is pending or was "
                "upheld, or the complaint period has not ended."
            )
        )
    pound, district = entry.pound, entry.pound.district
    deposit.status, deposit.applied_at, deposit.applied_by = (
        Deposit.Status.APPLIED,
        timezone.now(),
        by,
    )
    deposit.save(update_fields=["status", "applied_at", "applied_by"])
    ledger.post(
        district=district,
        pound=pound,
        kind=TransactionKind.DEPOSIT_APPLIED,
        memo=f"Deposit {deposit.release.receipt.number} applied: {entry.register_number}",
        by=by,
        source=ref(deposit),
        section="s.15",
        impoundment_id=entry.pk,
        lines=[
            (ledger.account(district=district, kind=AccountKind.DEPOSITS_HELD), deposit.amount),
            (ledger.account(district=district, kind=AccountKind.FINES_DUE_DM), -deposit.fines),
            (
                ledger.account(district=district, pound=pound, kind=AccountKind.FEEDING_PK),
                -deposit.feeding,
            ),
        ],
    )
    record_event(
        action=Action.DEPOSIT_APPLIED,
        section="s.15",
        summary=Message(
            gettext_noop(
                "Deposit %(receipt)s of ₹%(amount)s applied as payment of fines and charges"
            ),
            receipt=deposit.release.receipt.number,
            amount=deposit.amount,
        ),
        by=by,
        impoundment=entry,
        data={"deposit": deposit.pk, "fines": deposit.fines, "feeding": deposit.feeding},
    )
    return deposit


@transaction.atomic
def pay_deposit_refund(*, deposit, by, mode, reference="", authority=""):
    """Hand back a deposit the Magistrate ordered refunded (s.22), out of the pound's till."""
    deposit = (
        Deposit.objects.select_for_update(of=("self",))
        .select_related("release__impoundment__pound__district", "release__receipt")
        .get(pk=deposit.pk)
    )
    entry = deposit.release.impoundment
    ledger.authorise_till_payment(by, entry.pound, authority)
    if deposit.status != Deposit.Status.REFUND_DUE:
        raise ValidationError(_("This deposit is not due for refund."))
    if mode != PaymentMode.CASH and not reference.strip():
        raise ValidationError({"reference": _("Give the reference of the transfer.")})
    pound, district = entry.pound, entry.pound.district
    deposit.status, deposit.refunded_at, deposit.refunded_by = (
        Deposit.Status.REFUNDED,
        timezone.now(),
        by,
    )
    deposit.refund_mode, deposit.refund_reference = mode, reference
    deposit.refund_authority = authority.strip()
    deposit.save(
        update_fields=[
            "status",
            "refunded_at",
            "refunded_by",
            "refund_mode",
            "refund_reference",
            "refund_authority",
        ]
    )
    ledger.post(
        district=district,
        pound=pound,
        kind=TransactionKind.DEPOSIT_REFUNDED,
        memo=f"Deposit {deposit.release.receipt.number} refunded: {entry.register_number}",
        by=by,
        source=ref(deposit),
        section="s.22",
        impoundment_id=entry.pk,
        lines=[
            (
                ledger.account(district=district, kind=AccountKind.DEPOSIT_REFUNDS_DUE),
                deposit.amount,
            ),
            (ledger.till_account(pound, mode), -deposit.amount),
        ],
    )
    record_event(
        action=Action.DEPOSIT_REFUNDED,
        section="s.22",
        summary=Message(gettext_noop("Deposit of ₹%(amount)s refunded"), amount=deposit.amount),
        by=by,
        impoundment=entry,
        data={
            "deposit": deposit.pk,
            "mode": mode,
            "reference": reference,
            "authority": deposit.refund_authority,
        },
    )
    return deposit


@transaction.atomic
def release_on_deposit(
    *,
    entry,
    by,
    animal_ids,
    idempotency_key,
    amount_tendered,
    claimant_name,
    claimant_address,
    claimant_role,
    payment_mode,
    acknowledgement,
    ground,
    owner_name="",
    claimant_phone="",
    agent_authority="",
    id_document="",
    payment_reference="",
    register_page="",
    signature=None,
    at=None,
):
    """s.15: the owner disputes the seizure and deposits the fines and charges; the animals go
    back to him and the deposit is held apart until the complaint is decided. Confirming the
    same form twice gives the same release, with `replayed` set on it. A blank `owner_name` is
    the claimant's. Every refusal is a ReleaseRefused."""
    if not ground.strip():
        raise ReleaseRefused({"ground": _("Record why the owner says the seizure was illegal.")})
    claim = ClaimAnswers(
        claimant_name=claimant_name,
        claimant_address=claimant_address,
        claimant_phone=claimant_phone,
        claimant_role=claimant_role,
        owner_name=owner_name,
        agent_authority=agent_authority,
        id_document=id_document,
        payment_mode=payment_mode,
        payment_reference=payment_reference,
        acknowledgement=acknowledgement,
        register_page=register_page,
        ground=ground,
    )
    return release_to_claimant(
        kind=Release.Kind.DEPOSIT,
        book=book_deposit,
        entry=entry,
        by=by,
        animal_ids=animal_ids,
        idempotency_key=idempotency_key,
        amount_tendered=amount_tendered,
        claim=claim,
        signature=signature,
        at=at,
    )


def book_deposit(release, animals):
    """s.15: the whole sum is held apart until the complaint is decided (ss.20-22)."""
    entry, receipt = release.impoundment, release.receipt
    # The same dues may be paid online any moment: a deposit of them now could take them twice.
    if payments.in_progress(entry):
        raise ReleaseRefused(
            {
                "payment_mode": _(
                    "A payment of these dues is in progress online. A deposit cannot be taken "
                    "until the gateway answers; try again in a few minutes."
                )
            }
        )
    pound = entry.pound
    policy = DistrictPolicy.for_district(pound.district)
    deposit = Deposit.objects.create(
        release=release,
        fines=release.fines,
        feeding=release.feeding,
        amount=release.amount,
        complaint_deadline=complaint_deadline(entry.seizure_date(), policy.complaint_days),
    )
    ledger.post(
        district=pound.district,
        pound=pound,
        kind=TransactionKind.DEPOSIT_S15,
        memo=f"{receipt.number}: deposit, {entry.register_number}",
        by=release.released_by,
        source=f"impounding.deposit:{deposit.pk}",
        section="s.15",
        impoundment_id=entry.pk,
        at=release.released_at,
        lines=[
            (
                ledger.till_account(pound, release.payment_mode),
                release.amount,
            ),
            (
                ledger.account(district=pound.district, kind=AccountKind.DEPOSITS_HELD),
                -release.amount,
            ),
        ],
    )
    record_event(
        action=Action.RELEASE_DEPOSIT,
        section="s.15",
        summary=Message(
            gettext_noop(
                "%(count)s animal(s) released to %(name)s on deposit of ₹%(amount)s (%(receipt)s); "
                "complaint due by %(due)s"
            ),
            count=len(animals),
            name=THE_CLAIMANT,
            amount=release.amount,
            receipt=receipt.number,
            due=deposit.complaint_deadline,
        ),
        by=release.released_by,
        impoundment=entry,
        data={
            "animals": [a.reference for a in animals],
            "receipt": receipt.number,
            "ground": release.ground,
            "deadline": deposit.complaint_deadline,
            "claimant_role": release.claimant_role,
        },
        personal=claimant_personal(release),
    )
