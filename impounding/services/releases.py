"""Releases: on payment (s.13) and on deposit (s.15); by order of a court (s.19, s.22) once the
order is checked, in `court_orders.py`.

A release on deposit shares every step but the booking with one on payment
(`release_to_claimant`); its booking and entry point live with the deposit's other steps, in
`deposits.py`.

No other path releases an animal: the state table has no other edge, the database refuses a
released animal without a recorded release or order, and the admin cannot change states.
"""

import base64
import binascii
import functools
import uuid
from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.roles import Permission
from accounts.scoping import authorise
from auctions import services as sales
from kernel import clock
from kernel.events import record_event
from kernel.formatting import inr
from kernel.messages import THE_CLAIMANT, Message
from kernel.uploads import SIGNATURE_MAX_PX, reencode_image
from ledger import services as ledger
from ledger.models import AccountKind, PaymentMode, TransactionKind
from payments import services as payments

from ..actions import Action
from ..dues import Statement, dues
from ..models import (
    Animal,
    AnimalState,
    ClaimantRole,
    Impoundment,
    Receipt,
    Release,
    ReleaseLine,
)
from ..tariffs import TariffMissing
from .claims import ensure_no_hold
from .common import ReleaseRefused, blank_errors
from .custody import end_custody
from .receipts import check_replaces, issue_receipt

MAX_SIGNATURE_BYTES = 400 * 1024
PNG_DATA_URL = "data:image/png;base64,"


def claimant_personal(release):
    """The claimant's fields the release's event keeps as personal data (docs/decisions/0010)."""
    return {"name": release.claimant_name, "agent_authority": release.agent_authority}


def _with_calves(animal_ids):
    """The chosen animals' ids and those of the calves that go with a chosen dam (docs/domain.md
    decision 12)."""
    ids = set(animal_ids)
    if not ids:
        raise ReleaseRefused({"animals": _("Choose at least one animal.")})
    return ids | set(Animal.objects.calves_of(ids).values_list("pk", flat=True))


def _ensure_may_leave(animals, ids):
    """Refuse animals that are not all this entry's, in the pound, calves with their dams."""
    if len(animals) != len(ids):
        raise ReleaseRefused({"animals": _("An animal chosen is not in this register entry.")})
    for animal in animals:
        if animal.state != AnimalState.IMPOUNDED:
            raise ReleaseRefused(
                {
                    "animals": _("Animal %(animal)s is no longer in the pound (%(state)s).")
                    % {"animal": animal.reference, "state": AnimalState(animal.state).label}
                }
            )
        # A calf leaves with its dam while she is in the pound; one whose dam has died or
        # escaped is released on its own.
        dam = animal.dam if animal.dam_id and animal.dam_id not in ids else None
        if dam is not None and dam.state == AnimalState.IMPOUNDED:
            raise ReleaseRefused(
                {
                    "animals": _("Calf %(calf)s was born in the pound and leaves with its dam.")
                    % {"calf": animal.reference}
                }
            )


def lock_animals(entry, animal_ids):
    """Lock the chosen animals (and the calves that go with a chosen dam), in a fixed order so
    that two people releasing overlapping animals cannot deadlock."""
    ids = _with_calves(animal_ids)
    animals = list(
        Animal.objects.select_for_update(of=("self",))
        .filter(pk__in=ids, impoundment=entry)
        .order_by("pk")
    )
    _ensure_may_leave(animals, ids)
    # Custody events feed the dues; fetch them after the lock.
    return list(
        Animal.objects.filter(pk__in=ids)
        .select_related("impoundment__pound__district")
        .prefetch_related("custody_events")
        .order_by("number")
    )


def claimable_animals(entry):
    """The entry's animals in the pound, which a claimant may take back; refused when none is."""
    animals = Animal.objects.claimable_in(entry)
    if not animals:
        raise ReleaseRefused(_("No animal of this entry is in the pound."))
    return animals


@dataclass(frozen=True)
class ReleaseStatement:
    """What a claimant would take back and owe: the animals, each chosen one followed by the
    calves that go with a chosen dam, and their itemised dues."""

    animals: list
    dues: Statement


def release_statement(*, entry, animal_ids, at=None):
    """The statement the claimant checks before confirming a release (the dues at `at`, default
    now). Refused, as the release would be, when an animal may not leave or no tariff covers a
    day. Writes nothing and locks nothing: the release computes it again under its locks."""
    chosen = set(animal_ids)
    ids = _with_calves(chosen)
    animals = list(
        Animal.objects.filter(pk__in=ids, impoundment=entry)
        .select_related("impoundment__pound__district", "dam")
        .prefetch_related("custody_events")
    )
    _ensure_may_leave(animals, ids)
    animals.sort(key=lambda a: (a.pk not in chosen, a.number))
    try:
        return ReleaseStatement(animals=animals, dues=dues(animals, as_of=at))
    except TariffMissing as exc:
        raise ReleaseRefused(exc) from exc


def _replay(key):
    """The release a confirmation with this key already made, marked as a replay; or None."""
    release = Release.objects.filter(idempotency_key=key).first()
    if release is not None:
        release.replayed = True  # type: ignore[attr-defined]
    return release


@dataclass(frozen=True)
class ClaimAnswers:
    """The claimant's answers, named as the Release records them."""

    claimant_name: str
    claimant_address: str
    claimant_phone: str
    claimant_role: str
    owner_name: str
    agent_authority: str
    id_document: str
    payment_mode: str
    payment_reference: str
    acknowledgement: str
    register_page: str
    ground: str


def claim_errors(answers, *, owner_named=False):
    """The claimant's answers' rules, each refusal by its field (empty when none): what the claim
    screen's form, the API and the release itself check. The screens and the API also ask an
    agent for the owner's name (`owner_named`); a release recorded without it names the claimant.
    An answer missing from `answers` failed its own field's check and is not looked at."""
    errors = blank_errors(answers, ["claimant_name", "claimant_address"])
    if answers.get("claimant_role") == ClaimantRole.AGENT:
        if not (answers.get("agent_authority") or "").strip():
            errors["agent_authority"] = _("Record the authority the agent relies on.")
        if owner_named and not (answers.get("owner_name") or "").strip():
            errors["owner_name"] = _("Give the owner's name.")
    if (
        answers.get("payment_mode") in (PaymentMode.UPI, PaymentMode.OTHER)
        and not (answers.get("payment_reference") or "").strip()
    ):
        errors["payment_reference"] = _("Give the UPI transaction or other payment reference.")
    if (
        answers.get("acknowledgement") == Release.Acknowledgement.REGISTER_PAGE
        and not (answers.get("register_page") or "").strip()
    ):
        errors["register_page"] = _("Give the page of the register the claimant signed.")
    return errors


def read_signature(data_url):
    """The claimant's signature drawn on the screen, sent as a PNG data: URL, as a file; None when
    none was drawn. Refused (under `signature`) when it is not a PNG of at most 400 KB."""
    if not data_url:
        return None
    unreadable = ValidationError({"signature": _("The signature could not be read. Sign again.")})
    if not data_url.startswith(PNG_DATA_URL):
        raise unreadable
    try:
        raw = base64.b64decode(data_url.removeprefix(PNG_DATA_URL), validate=True)
    except (binascii.Error, ValueError):
        raise unreadable from None
    if not raw.startswith(b"\x89PNG\r\n\x1a\n") or len(raw) > MAX_SIGNATURE_BYTES:
        raise unreadable
    return ContentFile(raw, name="signature.png")


def _validate_claim(claim, signature):
    errors = claim_errors(asdict(claim))
    if claim.acknowledgement == Release.Acknowledgement.SIGNATURE and not signature:
        errors["signature"] = _("The claimant must sign on the screen.")
    if errors:
        raise ValidationError(errors)


def _dues_tendered(animals, *, amount_tendered, at):
    """The dues of the animals at `at`, which the claimant must have tendered to the paisa."""
    if at > clock.now(animals[0].impoundment.pound) + timedelta(minutes=1):
        raise ValidationError(_("A release cannot be dated in the future."))
    if isinstance(amount_tendered, float):
        raise TypeError("money must not be a float")
    statement = dues(animals, as_of=at)
    if Decimal(amount_tendered) != statement.total:
        raise ValidationError(
            {
                "amount": _(
                    "The dues are now %(total)s, not %(tendered)s: check them again with "
                    "the claimant."
                )
                % {"total": inr(statement.total), "tendered": inr(amount_tendered)}
            }
        )
    if statement.total <= 0:
        raise ValidationError(_("There is nothing to pay for these animals."))
    return statement


def _save_release(release, signature):
    if signature:
        signature = reencode_image(signature, field="signature", max_px=SIGNATURE_MAX_PX, fmt="PNG")
        release.signature.save(signature.name, signature, save=False)
    release.full_clean(exclude=["receipt", "signature"])
    try:
        with transaction.atomic():
            release.save()
    except IntegrityError:
        # The same key won a race we could not see: give back the release that was made.
        raise ValidationError(_("This release was already confirmed.")) from None


def _save_lines(release, statement):
    """Keep the itemised statement the claimant paid, as it stood at the release."""
    ReleaseLine.objects.bulk_create(
        ReleaseLine(
            release=release,
            animal=line.animal,
            category=line.category or line.note,
            fine=line.fine,
            feeding_days=line.feeding_days,
            feeding=line.feeding,
            detail={
                "scale": line.scale,
                "code": line.category_code,
                "category_en": line.category_en,
                "category_hi": line.category_hi,
                "periods": [
                    [p.first.isoformat(), p.last.isoformat(), p.days, str(p.rate), p.order]
                    for p in line.periods
                ],
            },
        )
        for line in statement.lines
    )


def _hand_over(animals, *, release, at):
    new_state = (
        AnimalState.RELEASED_PAID
        if release.kind == Release.Kind.PAYMENT
        else AnimalState.RELEASED_ON_DEPOSIT
    )
    end_custody(animals, state=new_state, at=at, release=release)


def _book_payment(release, animals, payment=None):
    """s.13: the fines are owed to the District Magistrate, the feeding to the pound-keeper. The
    money is in the till, or, paid through the gateway (`payment`), held by the gateway: that
    payment is taken, once, in this transaction (docs/decisions/0075)."""
    entry, receipt = release.impoundment, release.receipt
    pound = entry.pound
    if payment is not None:
        # Dues grown since the payment (a feeding day) are topped up in cash at the till, in
        # the same balanced transaction (docs/decisions/0085).
        top_up = payments.take_for_release(payment=payment, release=release)
        paid_in = [
            (
                ledger.account(district=pound.district, kind=AccountKind.GATEWAY_CLEARING),
                release.amount - top_up,
            ),
        ]
        if top_up:
            paid_in.append((ledger.till_account(pound, PaymentMode.CASH), top_up))
    else:
        # The same dues paid online and again at the till would be paid twice.
        payments.ensure_none_open(entry)
        paid_in = [(ledger.till_account(pound, release.payment_mode), release.amount)]
    ledger.post(
        district=pound.district,
        pound=pound,
        kind=TransactionKind.PAYMENT_S13,
        memo=f"{receipt.number}: {entry.register_number}",
        by=release.released_by,
        source=f"impounding.release:{release.pk}",
        section="s.13",
        impoundment_id=entry.pk,
        at=release.released_at,
        lines=[
            *paid_in,
            (
                ledger.account(district=pound.district, kind=AccountKind.FINES_DUE_DM),
                -release.fines,
            ),
            (
                ledger.account(district=pound.district, pound=pound, kind=AccountKind.FEEDING_PK),
                -release.feeding,
            ),
        ],
    )
    record_event(
        action=Action.RELEASE_PAID,
        section="s.13",
        summary=Message(
            gettext_noop(
                "%(count)s animal(s) released to %(name)s on payment of ₹%(amount)s (%(receipt)s)"
            ),
            count=len(animals),
            name=THE_CLAIMANT,
            amount=release.amount,
            receipt=receipt.number,
        ),
        by=release.released_by,
        impoundment=entry,
        data={
            "animals": [a.reference for a in animals],
            "receipt": receipt.number,
            "replaces": receipt.replaces.number if receipt.replaces else "",
            "fines": release.fines,
            "feeding": release.feeding,
            "claimant_role": release.claimant_role,
        },
        personal=claimant_personal(release),
    )


def _refusing(steps):
    """Raise every refusal of the release's steps (the claim's answers, the hold, the animals'
    states, the dues, the receipt replaced, the records' own checks) as one ReleaseRefused."""

    @functools.wraps(steps)
    def refused(**kwargs):
        try:
            return steps(**kwargs)
        except ReleaseRefused:
            raise
        except ValidationError as exc:
            raise ReleaseRefused(exc) from exc

    return refused


@_refusing
def release_to_claimant(
    *,
    kind,
    book,
    entry,
    by,
    animal_ids,
    idempotency_key,
    amount_tendered,
    claim,
    signature,
    at,
    replaces=None,
):
    """The steps a release on payment and one on deposit share; `book(release, animals)` posts
    the money and writes the event. Returns the Release, with `replayed` True when this key's
    confirmation had already made it (nothing is written)."""
    key = uuid.UUID(str(idempotency_key))
    pound = entry.pound
    # Checked before the replay look-up, so a known key returns nothing to someone not allowed.
    authorise(by, Permission.RELEASE_ANIMAL, pound)
    authorise(by, Permission.RECORD_PAYMENT, pound)
    if (replayed := _replay(key)) is not None:
        return replayed  # a replayed or double-clicked confirmation: the same release
    _validate_claim(claim, signature)
    # A claimant who names no owner is the owner (an agent names the owner he claims for).
    claim = replace(claim, owner_name=claim.owner_name or claim.claimant_name)
    # Competing claims freeze every release (decision 14); the entry's lock orders us after a
    # claim being recorded.
    entry = (
        Impoundment.objects.select_for_update(of=("self",)).select_related("pound").get(pk=entry.pk)
    )
    ensure_no_hold(entry, claim.claimant_name)
    try:
        animals = lock_animals(entry, animal_ids)
    except ValidationError:
        # The same form confirmed a moment earlier released these animals while we waited for
        # their locks: that is this release, not a refusal.
        if (replayed := _replay(key)) is not None:
            return replayed
        raise
    if (replayed := _replay(key)) is not None:  # confirmed meanwhile, as we waited for locks
        return replayed
    at = at or clock.now(entry.pound)
    statement = _dues_tendered(animals, amount_tendered=amount_tendered, at=at)
    receipt = issue_receipt(
        replaces=check_replaces(replaces, entry) if replaces is not None else None,
        animal_count=len(animals),
        pound=pound,
        kind=Receipt.Kind.PAYMENT if kind == Release.Kind.PAYMENT else Receipt.Kind.DEPOSIT,
        by=by,
        payer_name=claim.claimant_name,
        amount=statement.total,
        payment_mode=claim.payment_mode,
        payment_reference=claim.payment_reference,
        at=at,
    )
    release = Release(
        impoundment=entry,
        kind=kind,
        idempotency_key=key,
        **asdict(claim),
        fines=statement.fines,
        feeding=statement.feeding,
        amount=statement.total,
        released_at=at,
        released_by=by,
        receipt=receipt,
    )
    _save_release(release, signature)
    _save_lines(release, statement)
    _hand_over(animals, release=release, at=at)
    # A lot still open for one of these animals is withdrawn: claimed before the hammer.
    sales.withdraw_claimed_lots(animals, by=by)
    book(release, animals)
    release.replayed = False  # type: ignore[attr-defined]
    return release


@transaction.atomic
def release_on_payment(
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
    owner_name="",
    claimant_phone="",
    agent_authority="",
    id_document="",
    payment_reference="",
    register_page="",
    signature=None,
    at=None,
    replaces=None,
    payment=None,
):
    """s.13: the owner or his agent pays the fines and charges and takes the animals back.

    The receipt, the release, the animals' new state, the ledger transaction and the event are
    written together or not at all. Confirming the same form twice gives the same release, with
    `replayed` set on it. `replaces`: the cancelled receipt this one corrects (decision 11).
    A blank `owner_name` is the claimant's. Every refusal is a ReleaseRefused. `payment`: a
    payment through the gateway that paid the dues, which the release takes (the receipt names
    its reference); without it the money is in the till.
    """
    if payment is not None:
        payment_mode, payment_reference = PaymentMode.OTHER, payment.reference
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
        ground="",
    )
    return release_to_claimant(
        kind=Release.Kind.PAYMENT,
        book=functools.partial(_book_payment, payment=payment),
        entry=entry,
        by=by,
        animal_ids=animal_ids,
        idempotency_key=idempotency_key,
        amount_tendered=amount_tendered,
        claim=claim,
        signature=signature,
        at=at,
        replaces=replaces,
    )
