"""Cattle handed to a gaushala where the State's law forbids their sale (ADR 0070): the register
of bodies, the handover order (prepared by the office, approved by the Magistrate, never beyond
the body's capacity), the dues as the pack says, and the monthly upkeep claim in the books."""

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command

from auctions.models import Auction, DisposalOrder, Shortfall, UpkeepClaim
from auctions.services import gaushala as gaushalas
from impounding.models import AnimalState
from kernel.events import PACK_KEY
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Transaction
from rulepacks.schema import Handover
from tests.auctions.factories import conditions, ready_for_sale, schedule
from tests.rulepacks.factories import take

BODY = {
    "kind": "gaushala",
    "name": "Shri Krishna Gaushala, Mohanlalganj",
    "registration": "UP/GS/2019/0042",
    "address": "Mohanlalganj, Lucknow",
    "phone": "9415000002",
    "capacity": 2,
    "agreed_daily_rate": Decimal("50.00"),
    "rate_authority": "DM Lucknow order 112/2026 of 01-11-2026",
}


@pytest.fixture
def cow_entry(district, pound, pound_keeper, police_officer, tariffs):
    take(district, "up")
    conditions(district)
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    return entry


@pytest.fixture
def body(district, dm_clerk):
    return gaushalas.register_gaushala(district=district, by=dm_clerk, **BODY)


def hand_over(pound, entry, body, clerk, magistrate):
    order = gaushalas.propose_handover(
        pound=pound,
        gaushala_id=body.pk,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        by=clerk,
        reason="A cow may not be sold at auction in Uttar Pradesh",
        idempotency_key=uuid.uuid4(),
    )
    return gaushalas.decide_handover(order=order, by=magistrate, approve=True)


def test_under_the_up_pack_a_cow_is_refused_at_auction_and_handed_over_end_to_end(
    cow_entry, pound, body, dm_clerk, magistrate, police_officer
):
    with pytest.raises(ValidationError, match="may not be sold at auction"):
        schedule(pound, police_officer, [cow_entry.animals.all()])
    assert not Auction.objects.filter(pound=pound).exists()

    order = hand_over(pound, cow_entry, body, dm_clerk, magistrate)

    cow = cow_entry.animals.get()
    assert order.status == DisposalOrder.Status.APPROVED
    assert cow.state == AnimalState.DISPOSED
    assert order.handover.gaushala == body and order.handover.pack == "up 0.1"
    # The UP draft leaves the dues to the State: the claim against the owner is kept.
    assert order.handover.dues_rule == gaushalas.CLAIM_OWNER
    assert Shortfall.objects.get(disposal=order).status == Shortfall.Status.PENDING
    # Handed over: never on an auction again.
    with pytest.raises(ValidationError):
        schedule(pound, police_officer, [cow_entry.animals.all()])

    handed_on = order.handover.received_on
    first = (handed_on.replace(day=1) + timedelta(days=32)).replace(day=1)
    with time_machine.travel(first + timedelta(days=40)):
        days = gaushalas.animal_days(body, first)
        claim = gaushalas.prepare_claim(
            gaushala=body, month=first, animal_days_claimed=days, by=dm_clerk
        )
        with pytest.raises(PermissionDenied):
            gaushalas.decide_claim(claim=claim, by=dm_clerk, approve=True)
        gaushalas.decide_claim(claim=claim, by=magistrate, approve=True)
        gaushalas.pay_claim(
            claim=claim, by=dm_clerk, payment_mode="other", payment_reference="NEFT 998877"
        )

    claim.refresh_from_db()
    assert claim.status == UpkeepClaim.Status.PAID
    assert claim.amount == Decimal("50.00") * days and days >= 28
    assert claim.rate_source == BODY["rate_authority"]
    kinds = set(Transaction.objects.filter(source__endswith=f":{claim.pk}").values_list("kind"))
    assert {k for (k,) in kinds} == {"upkeep_claimed", "upkeep_paid"}
    assert run_checks() == []
    call_command("check_ledger")
    events = Event.objects.filter(action__startswith="upkeep.")
    assert events.count() == 3
    assert all(e.data[PACK_KEY]["pack"] == "up" for e in events)


def test_a_handover_beyond_the_bodys_capacity_is_refused(
    district, pound, pound_keeper, police_officer, cow_entry, dm_clerk, magistrate
):
    small = gaushalas.register_gaushala(
        district=district, by=dm_clerk, **{**BODY, "capacity": 0, "registration": "X1"}
    )
    with pytest.raises(ValidationError, match="has room for 0"):
        gaushalas.propose_handover(
            pound=pound,
            gaushala_id=small.pk,
            animal_ids=list(cow_entry.animals.values_list("pk", flat=True)),
            by=dm_clerk,
            reason="No auction",
        )
    assert not DisposalOrder.objects.exists()


def test_whoever_prepares_a_handover_may_not_approve_it(cow_entry, pound, body, dm_clerk):
    order = gaushalas.propose_handover(
        pound=pound,
        gaushala_id=body.pk,
        animal_ids=list(cow_entry.animals.values_list("pk", flat=True)),
        by=dm_clerk,
        reason="No auction",
    )
    with pytest.raises(PermissionDenied):
        gaushalas.decide_handover(order=order, by=dm_clerk, approve=True)


def test_where_the_pack_writes_the_dues_off_the_approval_writes_them_off(
    cow_entry, pound, body, dm_clerk, magistrate, monkeypatch
):
    monkeypatch.setattr(gaushalas, "dues_rule", lambda rules: gaushalas.WRITE_OFF)
    order = hand_over(pound, cow_entry, body, dm_clerk, magistrate)
    shortfall = Shortfall.objects.get(disposal=order)
    assert shortfall.status == Shortfall.Status.WRITTEN_OFF and shortfall.decided_by == magistrate
    assert Event.objects.filter(action="handover.dues_written_off").exists()
    assert run_checks() == []


def test_a_pack_that_leaves_the_dues_for_the_state_keeps_the_claim():
    assert gaushalas.dues_rule(type("R", (), {"handover": None})()) == gaushalas.CLAIM_OWNER
    cite = {"authority": "The State", "instrument": "The State law"}
    said = Handover(dues="write_off", cite=cite)
    assert gaushalas.dues_rule(type("R", (), {"handover": said})()) == gaushalas.WRITE_OFF


def test_a_claim_beyond_the_animal_days_held_is_refused(
    cow_entry, pound, body, dm_clerk, magistrate
):
    order = hand_over(pound, cow_entry, body, dm_clerk, magistrate)
    first = (order.handover.received_on.replace(day=1) + timedelta(days=32)).replace(day=1)
    with time_machine.travel(first + timedelta(days=40)):
        held = gaushalas.animal_days(body, first)
        with pytest.raises(ValidationError, match="animal-days"):
            gaushalas.prepare_claim(
                gaushala=body, month=first, animal_days_claimed=held + 1, by=dm_clerk
            )
    assert not UpkeepClaim.objects.exists()


def test_without_a_pack_rate_or_an_agreed_rate_no_claim_is_made(
    cow_entry, pound, district, dm_clerk, magistrate
):
    body = gaushalas.register_gaushala(
        district=district,
        by=dm_clerk,
        **{**BODY, "agreed_daily_rate": None, "rate_authority": ""},
    )
    order = hand_over(pound, cow_entry, body, dm_clerk, magistrate)
    first = (order.handover.received_on.replace(day=1) + timedelta(days=32)).replace(day=1)
    with time_machine.travel(first + timedelta(days=40)), pytest.raises(ValidationError):
        gaushalas.prepare_claim(gaushala=body, month=first, animal_days_claimed=1, by=dm_clerk)


def test_an_agreed_rate_needs_the_order_that_fixed_it(district, dm_clerk):
    with pytest.raises(ValidationError) as refused:
        gaushalas.register_gaushala(
            district=district, by=dm_clerk, **{**BODY, "rate_authority": ""}
        )
    assert "rate_authority" in refused.value.message_dict


def test_another_districts_office_may_not_register_a_body_here(district, outsider):
    with pytest.raises(PermissionDenied):
        gaushalas.register_gaushala(district=district, by=outsider, **BODY)


def test_the_handover_certificate_is_bilingual_and_verifiable(
    cow_entry, pound, body, dm_clerk, magistrate, client
):
    from auctions import documents
    from tests.readpdf import text

    order = hand_over(pound, cow_entry, body, dm_clerk, magistrate)
    certificate = order.handover.certificate
    pdf = documents.handover_certificate_pdf(order.handover)

    words = text(pdf)
    assert "Certificate of handover" in words and body.name in words
    assert certificate.number in words
    response = client.get(certificate.get_absolute_url())
    assert response.status_code == 200 and certificate.number in response.text


def test_a_claim_waits_on_the_magistrates_to_dos_until_decided(
    cow_entry, pound, body, dm_clerk, magistrate
):
    from accounts import todos
    from office import deadlines

    order = hand_over(pound, cow_entry, body, dm_clerk, magistrate)
    first = (order.handover.received_on.replace(day=1) + timedelta(days=32)).replace(day=1)
    with time_machine.travel(first + timedelta(days=40)):
        claim = gaushalas.prepare_claim(
            gaushala=body, month=first, animal_days_claimed=5, by=dm_clerk
        )
        deadlines.run()
        key = f"upkeep_decide:{claim.pk}"
        assert todos.for_user(magistrate).filter(key=key).exists()
        gaushalas.decide_claim(claim=claim, by=magistrate, approve=False, note="Not kept")
        assert not todos.for_user(magistrate).filter(key=key).exists()


def test_a_month_claimed_again_after_a_refusal_gets_its_own_number(
    cow_entry, pound, body, dm_clerk, magistrate
):
    order = hand_over(pound, cow_entry, body, dm_clerk, magistrate)
    month = order.handover.received_on.replace(day=1)
    with time_machine.travel(month + timedelta(days=40), tick=False):
        claim = gaushalas.prepare_claim(
            gaushala=body, month=month, animal_days_claimed=1, by=dm_clerk
        )
        gaushalas.decide_claim(claim=claim, by=magistrate, approve=False)
        again = gaushalas.prepare_claim(
            gaushala=body, month=month, animal_days_claimed=1, by=dm_clerk
        )

    assert again.number == f"{claim.number}-2"


def test_a_refusal_is_not_held_to_the_bodys_capacity(cow_entry, pound, body, dm_clerk, magistrate):
    order = gaushalas.propose_handover(
        pound=pound,
        gaushala_id=body.pk,
        animal_ids=list(cow_entry.animals.values_list("pk", flat=True)),
        by=dm_clerk,
        reason="A cow may not be sold at auction in Uttar Pradesh",
        idempotency_key=uuid.uuid4(),
    )
    type(body).objects.filter(pk=body.pk).update(capacity=0)

    decided = gaushalas.decide_handover(order=order, by=magistrate, approve=False)

    assert decided.status == DisposalOrder.Status.REJECTED


def test_capacity_cannot_be_lowered_below_the_orders_awaiting_approval(
    cow_entry, pound, body, dm_clerk
):
    gaushalas.propose_handover(
        pound=pound,
        gaushala_id=body.pk,
        animal_ids=list(cow_entry.animals.values_list("pk", flat=True)),
        by=dm_clerk,
        reason="A cow may not be sold at auction in Uttar Pradesh",
        idempotency_key=uuid.uuid4(),
    )

    with pytest.raises(ValidationError):
        gaushalas.amend_gaushala(gaushala=body, by=dm_clerk, capacity=0)
