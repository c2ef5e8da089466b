"""Releases: on payment (s.13) and on deposit (s.15); by a court's order in test_court_orders."""

import io
import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from PIL import Image

from accounts.models import Counter, IssuedDocument
from accounts.roles import Role
from impounding import services
from impounding.dues import dues
from impounding.models import (
    Animal,
    AnimalState,
    Deposit,
    Receipt,
    Release,
    ReleaseLine,
)
from kernel.formatting import inr
from kernel.models import Event
from ledger.models import AccountKind, Posting, Transaction, TransactionKind
from tests.accounts.factories import PoundFactory, staff
from tests.impounding.factories import cow, deposit, goat, make_entry, pay
from tests.pdfs import SCAN_PDF

IST = ZoneInfo("Asia/Kolkata")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=IST)

pytestmark = pytest.mark.time_machine(NOW, tick=False)

PDF = SCAN_PDF


def _image(fmt):
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(out, format=fmt)
    return out.getvalue()


JPEG, PNG = _image("JPEG"), _image("PNG")

COW_DUES = Decimal("20000.00") + 2 * Decimal("500.00")  # arrived yesterday: two days
GOAT_DUES = Decimal("1400.00") + 2 * Decimal("300.00")


def ist(month, day, hour=12, minute=0, year=2026):
    return datetime(year, month, day, hour, minute, tzinfo=IST)


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 24, 9),
        seized_at=ist(11, 24, 6),
        animals=[cow(), cow(), goat()],
    )


def claim(entry, by, animals, amount=None, *, key=None, **kw):
    """Call the s.13 service directly, with every field spelt out."""
    fields = (
        dict(
            claimant_name="Shyam Lal",
            claimant_address="Samesi",
            claimant_role="owner",
            owner_name="Shyam Lal",
            payment_mode="cash",
            acknowledgement="register_page",
            register_page="12",
        )
        | kw
    )
    if amount is None:
        amount = dues(animals).total
    return services.release_on_payment(
        entry=entry,
        by=by,
        animal_ids=[a.pk for a in animals],
        idempotency_key=key or uuid.uuid4(),
        amount_tendered=amount,
        **fields,
    )


def ledger_lines(txn):
    return {p.account.kind: p.amount for p in txn.postings.select_related("account")}


def states(entry):
    return list(entry.animals.order_by("number").values_list("state", flat=True))


def assert_nothing_released(entry):
    assert set(states(entry)) == {AnimalState.IMPOUNDED}
    assert not Release.objects.exists()
    assert not ReleaseLine.objects.exists()
    assert not Receipt.objects.exists()
    assert not Deposit.objects.exists()
    assert not IssuedDocument.objects.filter(kind__in=["receipt", "deposit_receipt"]).exists()
    assert not Transaction.objects.exists()
    assert not Counter.objects.filter(key__startswith="receipt:", value__gt=0).exists()
    pound_events = Event.objects.filter(pound=entry.pound)
    assert list(pound_events.values_list("action", flat=True)) == ["register.entered"]


# --- s.13: payment ---


def test_two_owners_claim_their_own_animals_and_get_consecutive_receipts(entry, pound_keeper):
    a1, a2, a3 = entry.animals.order_by("number")

    first = pay(entry, pound_keeper, [a1, a3], claimant_name="Owner A", owner_name="Owner A")
    second = pay(entry, pound_keeper, [a2], claimant_name="Owner B", owner_name="Owner B")

    code = entry.pound.code.upper()
    assert (first.receipt.serial, first.receipt.number) == (1, f"{code}/2026-27/000001")
    assert (second.receipt.serial, second.receipt.number) == (2, f"{code}/2026-27/000002")
    assert first.receipt.financial_year == second.receipt.financial_year == "2026-27"
    assert (first.fines, first.feeding, first.amount) == (
        Decimal("21400.00"),
        Decimal("1600.00"),
        COW_DUES + GOAT_DUES,
    )
    assert second.amount == second.receipt.amount == COW_DUES
    assert (second.receipt.payer_name, second.receipt.kind) == ("Owner B", Receipt.Kind.PAYMENT)
    assert states(entry) == [AnimalState.RELEASED_PAID] * 3
    assert list(Animal.objects.filter(release=first).order_by("number")) == [a1, a3]
    assert [line.animal for line in first.lines.all()] == [a1, a3]
    a1.refresh_from_db()
    assert a1.custody_ended_at == NOW
    line = first.lines.get(animal=a1)
    assert (line.category, line.fine, line.feeding_days, line.feeding) == (
        "Camel, donkey, pig, buffalo, cow, bull, bullock or heifer",
        Decimal("20000.00"),
        2,
        Decimal("1000.00"),
    )
    assert line.detail["code"] == "2"
    assert line.detail["periods"][0][:4] == ["2026-11-24", "2026-11-25", 2, "500.00"]
    events = Event.objects.filter(action="release.paid").order_by("seq")
    assert [(e.section, e.by, e.data["receipt"]) for e in events] == [
        ("s.13", pound_keeper, first.receipt.number),
        ("s.13", pound_keeper, second.receipt.number),
    ]
    assert events[0].data["animals"] == [a1.reference, a3.reference]


def test_receipt_is_registered_as_an_issued_document(entry, pound_keeper):
    release = pay(entry, pound_keeper, list(entry.animals.all()))

    doc = IssuedDocument.objects.get(pk=release.receipt.document_id)
    assert (doc.kind, doc.number, doc.pound, doc.issued_by) == (
        IssuedDocument.Kind.RECEIPT,
        release.receipt.number,
        entry.pound,
        pound_keeper,
    )
    assert (doc.subject_type, doc.subject_id) == ("impounding.receipt", release.receipt.pk)


def test_receipts_are_numbered_per_pound_per_financial_year(
    time_machine, pound, pound_keeper, district, tariffs
):
    time_machine.move_to(ist(4, 2, year=2027), tick=False)
    entry = make_entry(
        pound=pound, by=pound_keeper, arrived_at=ist(3, 30, 10, year=2027), animals=[cow()] * 4
    )
    a1, a2, a3, a4 = entry.animals.order_by("number")
    sister = PoundFactory(district=district)
    sister_keeper = staff(Role.POUND_KEEPER, "sister_keeper", pound=sister)
    sister_entry = make_entry(pound=sister, by=sister_keeper, arrived_at=ist(3, 30, 10, year=2027))

    march = pay(entry, pound_keeper, [a1], at=ist(3, 31, 10, year=2027))
    # 19:00 UTC on 31 March is 00:30 IST on 1 April: the new financial year.
    april_1 = pay(entry, pound_keeper, [a2], at=datetime(2027, 3, 31, 19, 0, tzinfo=UTC))
    april_2 = pay(entry, pound_keeper, [a3], at=ist(4, 1, 10, year=2027))
    sister_release = pay(sister_entry, sister_keeper, at=ist(4, 1, 11, year=2027))

    assert (march.receipt.financial_year, march.receipt.serial) == ("2026-27", 1)
    assert (april_1.receipt.financial_year, april_1.receipt.serial) == ("2027-28", 1)
    assert (april_2.receipt.financial_year, april_2.receipt.serial) == ("2027-28", 2)
    assert sister_release.receipt.serial == 1
    assert march.receipt.number.endswith("/2026-27/000001")
    assert april_2.receipt.number.endswith("/2027-28/000002")
    # The release time is the time of the claim, and dues run to it.
    assert march.released_at == ist(3, 31, 10, year=2027)
    assert march.lines.get().feeding_days == 2
    assert april_2.lines.get().feeding_days == 3


def test_amount_different_from_the_dues_is_refused_and_nothing_is_written(entry, pound_keeper):
    animals = list(entry.animals.all())
    total = dues(animals).total

    with pytest.raises(ValidationError) as exc:
        claim(entry, pound_keeper, animals, amount=total - Decimal("500.00"))

    assert inr(total) in exc.value.message_dict["amount"][0]
    assert_nothing_released(entry)


def test_amount_tendered_in_whole_rupees_matches(entry, pound_keeper):
    a1 = entry.animals.get(number=1)

    release = claim(entry, pound_keeper, [a1], amount="21000")

    assert release.amount == COW_DUES


def test_same_idempotency_key_gives_the_same_release_once(entry, pound_keeper):
    animals = list(entry.animals.all())
    key = uuid.uuid4()

    first = claim(entry, pound_keeper, animals, key=key)
    again = claim(entry, pound_keeper, animals, key=key)

    assert again.pk == first.pk
    assert Release.objects.count() == Receipt.objects.count() == 1
    assert Transaction.objects.count() == 1
    assert Event.objects.filter(action="release.paid").count() == 1
    assert Counter.objects.get(key=f"receipt:{entry.pound_id}:2026-27").value == 1


def test_replayed_key_gives_the_release_marked_as_a_replay(entry, pound_keeper):
    animals = list(entry.animals.all())
    key = uuid.uuid4()

    first = claim(entry, pound_keeper, animals, key=key)
    again = claim(entry, pound_keeper, animals, key=key)
    on_deposit = deposit(entry, pound_keeper, animals, key=key)

    assert type(again) is type(first) is Release
    assert (first.replayed, again.replayed, on_deposit.replayed) == (False, True, True)
    assert again.receipt.number == first.receipt.number


def test_replayed_key_does_not_skip_the_permission_check(entry, pound_keeper, outsider):
    key = uuid.uuid4()
    claim(entry, pound_keeper, list(entry.animals.all()), key=key)

    with pytest.raises(PermissionDenied):
        claim(entry, outsider, list(entry.animals.all()), key=key)


def test_agent_must_state_the_authority_relied_on(entry, pound_keeper):
    a1 = entry.animals.get(number=1)

    with pytest.raises(ValidationError) as exc:
        claim(entry, pound_keeper, [a1], claimant_role="agent", claimant_name="Grazier Mohan")

    assert "agent_authority" in exc.value.message_dict
    assert_nothing_released(entry)


def test_agent_with_authority_may_claim(entry, pound_keeper):
    a1 = entry.animals.get(number=1)

    release = claim(
        entry,
        pound_keeper,
        [a1],
        claimant_role="agent",
        claimant_name="Grazier Mohan",
        agent_authority="Letter of the owner dated 24-11-2026",
    )

    assert (release.claimant_role, release.agent_authority) == (
        "agent",
        "Letter of the owner dated 24-11-2026",
    )
    event = Event.objects.get(action="release.paid")
    assert event.data["claimant_role"] == "agent"
    assert event.personal == {"name": "Grazier Mohan", "agent_authority": release.agent_authority}


@pytest.mark.parametrize("mode", ["upi", "other"])
def test_payment_other_than_cash_needs_a_reference(entry, pound_keeper, mode):
    a1 = entry.animals.get(number=1)

    with pytest.raises(ValidationError) as exc:
        claim(entry, pound_keeper, [a1], payment_mode=mode, payment_reference=" ")

    assert "payment_reference" in exc.value.message_dict
    assert_nothing_released(entry)


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"acknowledgement": "register_page", "register_page": ""}, "register_page"),
        ({"acknowledgement": "signature"}, "signature"),
    ],
)
def test_claimant_must_sign_for_the_cattle(entry, pound_keeper, fields, error):
    with pytest.raises(ValidationError) as exc:
        claim(entry, pound_keeper, [entry.animals.get(number=1)], **fields)

    assert error in exc.value.message_dict
    assert_nothing_released(entry)


def test_payment_is_posted_cash_debit_fines_to_dm_feeding_to_pound_keeper(entry, pound_keeper):
    release = pay(entry, pound_keeper, list(entry.animals.all()))

    txn = Transaction.objects.get()
    assert (txn.kind, txn.section, txn.source, txn.impoundment_id) == (
        TransactionKind.PAYMENT_S13,
        "s.13",
        f"impounding.release:{release.pk}",
        entry.pk,
    )
    assert txn.at == release.released_at
    assert ledger_lines(txn) == {
        AccountKind.POUND_CASH: Decimal("44000.00"),
        AccountKind.FINES_DUE_DM: Decimal("-41400.00"),
        AccountKind.FEEDING_PK: Decimal("-2600.00"),
    }
    fines = Posting.objects.get(account__kind=AccountKind.FINES_DUE_DM).account
    assert fines.pound is None  # the District Magistrate's account (s.17)


def test_upi_payment_goes_to_the_digital_collections_account(entry, pound_keeper):
    release = pay(entry, pound_keeper, [entry.animals.get(number=3)], mode="upi")

    assert (release.payment_mode, release.payment_reference) == ("upi", "UPI-123")
    assert ledger_lines(Transaction.objects.get()) == {
        AccountKind.POUND_DIGITAL: GOAT_DUES,
        AccountKind.FINES_DUE_DM: Decimal("-1400.00"),
        AccountKind.FEEDING_PK: Decimal("-600.00"),
    }


def test_calf_born_in_the_pound_leaves_with_its_dam_at_no_charge(entry, pound_keeper):
    dam = entry.animals.get(number=1)
    calf = services.record_birth(
        dam=dam, by=pound_keeper, at=ist(11, 24, 22), sex="female", colour="Red"
    )

    release = pay(entry, pound_keeper, [dam])

    calf.refresh_from_db()
    assert (calf.state, calf.release) == (AnimalState.RELEASED_PAID, release)
    assert release.amount == COW_DUES
    calf_line = release.lines.get(animal=calf)
    assert (calf_line.fine, calf_line.feeding, calf_line.feeding_days) == (
        Decimal("0.00"),
        Decimal("0.00"),
        0,
    )
    assert "Born in the pound" in calf_line.category
    event = Event.objects.get(action="release.paid")
    assert event.data["animals"] == [dam.reference, calf.reference]


def test_calf_alone_is_refused(entry, pound_keeper):
    dam = entry.animals.get(number=1)
    calf = services.record_birth(
        dam=dam, by=pound_keeper, at=ist(11, 24, 22), sex="female", colour="Red"
    )

    with pytest.raises(ValidationError, match="leaves with its dam"):
        claim(entry, pound_keeper, [calf], amount=Decimal("0.00"))

    assert not Release.objects.exists()
    calf.refresh_from_db()
    assert calf.state == AnimalState.IMPOUNDED


def test_animal_already_released_is_refused(entry, pound_keeper):
    a1, a2, _ = entry.animals.order_by("number")
    pay(entry, pound_keeper, [a1])

    with pytest.raises(ValidationError, match="no longer in the pound"):
        claim(entry, pound_keeper, [a1, a2], amount=2 * COW_DUES)

    a2.refresh_from_db()
    assert a2.state == AnimalState.IMPOUNDED
    assert Release.objects.count() == Receipt.objects.count() == Transaction.objects.count() == 1


def test_animal_of_another_entry_is_refused(entry, pound, pound_keeper):
    other = make_entry(pound=pound, by=pound_keeper, arrived_at=ist(11, 24, 9))

    with pytest.raises(ValidationError, match="not in this register entry"):
        claim(entry, pound_keeper, [other.animals.get()], amount=COW_DUES)

    assert not Release.objects.exists()


def test_claim_needs_an_animal(entry, pound_keeper):
    with pytest.raises(ValidationError):
        claim(entry, pound_keeper, [], amount=Decimal("0.00"))

    assert not Release.objects.exists()


@pytest.mark.parametrize("who", ["outsider", "police_officer", "dm_clerk", "auditor"])
def test_only_this_pounds_keeper_may_release(request, entry, who):
    user = request.getfixturevalue(who)

    with pytest.raises(PermissionDenied):
        claim(entry, user, list(entry.animals.all()))

    assert_nothing_released(entry)


# --- s.15: deposit ---


def test_deposit_is_held_apart_until_the_complaint_deadline(entry, pound_keeper):
    a1 = entry.animals.get(number=1)

    release = deposit(entry, pound_keeper, [a1])

    held = release.deposit
    assert release.kind == Release.Kind.DEPOSIT
    assert release.ground == "The cattle were on my own land"
    assert release.receipt.kind == Receipt.Kind.DEPOSIT
    assert release.receipt.document.kind == IssuedDocument.Kind.DEPOSIT_RECEIPT
    assert (held.fines, held.feeding, held.amount) == (
        Decimal("20000.00"),
        Decimal("1000.00"),
        COW_DUES,
    )
    assert held.status == Deposit.Status.HELD
    assert held.complaint_deadline == date(2026, 12, 4)  # seized 24-11: until the end of S+10
    a1.refresh_from_db()
    assert (a1.state, a1.release) == (AnimalState.RELEASED_ON_DEPOSIT, release)
    txn = Transaction.objects.get()
    assert (txn.kind, txn.section, txn.source) == (
        TransactionKind.DEPOSIT_S15,
        "s.15",
        f"impounding.deposit:{held.pk}",
    )
    assert ledger_lines(txn) == {
        AccountKind.POUND_CASH: COW_DUES,
        AccountKind.DEPOSITS_HELD: -COW_DUES,
    }
    event = Event.objects.get(action="release.deposit")
    assert (event.section, event.by) == ("s.15", pound_keeper)
    assert event.data["deadline"] == "2026-12-04"


def test_deposit_deadline_counts_from_the_ist_day_of_seizure(pound, pound_keeper, tariffs):
    # Seized at 00:30 IST on 24 November, which is still 23 November in UTC.
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=ist(11, 24, 9),
        seized_at=datetime(2026, 11, 23, 19, 0, tzinfo=UTC),
    )

    release = deposit(entry, pound_keeper)

    assert release.deposit.complaint_deadline == date(2026, 12, 4)


def test_deposit_shares_the_receipt_series(entry, pound_keeper):
    a1, a2, _ = entry.animals.order_by("number")

    paid = pay(entry, pound_keeper, [a1])
    held = deposit(entry, pound_keeper, [a2])

    assert (paid.receipt.serial, held.receipt.serial) == (1, 2)


def test_deposit_needs_the_ground_stated(entry, pound_keeper):
    with pytest.raises(ValidationError) as exc:
        deposit(entry, pound_keeper, ground="  ")

    assert "ground" in exc.value.message_dict
    assert_nothing_released(entry)


def test_deposit_with_the_wrong_amount_is_refused(entry, pound_keeper):
    with pytest.raises(ValidationError):
        services.release_on_deposit(
            entry=entry,
            by=pound_keeper,
            animal_ids=[entry.animals.get(number=1).pk],
            idempotency_key=uuid.uuid4(),
            amount_tendered=Decimal("100.00"),
            claimant_name="Shyam Lal",
            claimant_address="Samesi",
            claimant_role="owner",
            owner_name="Shyam Lal",
            payment_mode="cash",
            acknowledgement="register_page",
            register_page="13",
            ground="Seized on my own land",
        )

    assert_nothing_released(entry)


def test_outsider_may_not_take_a_deposit(entry, outsider):
    with pytest.raises(PermissionDenied):
        deposit(entry, outsider)

    assert_nothing_released(entry)


# --- the database's own guard (s.19) ---


@pytest.mark.parametrize(
    "released",
    [AnimalState.RELEASED_PAID, AnimalState.RELEASED_ON_DEPOSIT, AnimalState.RELEASED_BY_ORDER],
)
def test_database_refuses_a_released_animal_without_a_release_or_order(entry, released):
    animal = entry.animals.get(number=1)

    with pytest.raises(IntegrityError), transaction.atomic():
        Animal.objects.filter(pk=animal.pk).update(state=released)

    animal.refresh_from_db()
    assert animal.state == AnimalState.IMPOUNDED


def test_database_refuses_a_birth_without_a_dam(entry):
    with pytest.raises(IntegrityError), transaction.atomic():
        entry.animals.filter(number=1).update(born_at=NOW - timedelta(hours=1))
