"""Competing claimants (docs/domain.md decision 14): a second claimant freezes every release path
(payment, deposit, the s.16 sale) with a message that names the hold, until a police officer or
the office decides on the proof; the decision lifts the hold for the winner alone."""

import uuid

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from accounts.models import ToDo
from auctions.services import open_s16_case
from impounding import services
from impounding.models import Claim, Receipt
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from office.deadlines import run
from tests.impounding.factories import cow, deposit, make_entry, pay


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(pound=pound, by=pound_keeper, animals=[cow()])


def claim(entry, keeper, name, proof="Knows the brand on the left flank"):
    return services.record_claim(
        entry=entry, by=keeper, claimant_name=name, claimant_address="Samesi", proof=proof
    )


@pytest.fixture
def contested(entry, pound_keeper):
    first = claim(entry, pound_keeper, "Shyam Lal")
    second = claim(entry, pound_keeper, "Mohan Lal", proof="Bought her at the Bakshi fair")
    return first, second


RELEASES = {
    "payment": lambda entry, keeper, name: pay(entry, keeper, claimant_name=name),
    "deposit": lambda entry, keeper, name: deposit(entry, keeper, claimant_name=name),
    "s16": lambda entry, keeper, name: open_s16_case(
        entry=entry,
        animal_ids=[a.pk for a in entry.animals.all()],
        by=keeper,
        owner_name=name,
        owner_address="Samesi",
    ),
}


@pytest.mark.parametrize("path", list(RELEASES))
def test_a_second_claimant_freezes_every_release_path(entry, pound_keeper, contested, path):
    with pytest.raises(ValidationError) as refused:
        RELEASES[path](entry, pound_keeper, "Shyam Lal")

    message = " ".join(refused.value.messages)
    assert "Release on hold: 2 people claim these cattle (Shyam Lal, Mohan Lal)" in message
    assert not Receipt.objects.exists()
    assert set(entry.animals.values_list("state", flat=True)) == {"impounded"}


def test_one_claimant_is_no_hold(entry, pound_keeper):
    claim(entry, pound_keeper, "Shyam Lal")

    release = pay(entry, pound_keeper, claimant_name="Shyam Lal")

    assert release.receipt.number


def test_the_decision_lifts_the_hold_for_the_winner_alone(
    entry, pound_keeper, police_officer, contested
):
    first, second = contested

    services.decide_claims(
        entry=entry, by=police_officer, winner=second, findings="Sale deed of the fair seen"
    )

    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (Claim.Status.REJECTED, Claim.Status.UPHELD)
    assert second.decided_by == police_officer and second.findings == "Sale deed of the fair seen"
    with pytest.raises(ValidationError, match="decided for Mohan Lal"):
        pay(entry, pound_keeper, claimant_name="Shyam Lal")
    assert pay(entry, pound_keeper, claimant_name="mohan  lal").receipt.number
    event = Event.objects.get(action="claim.decided")
    assert event.data["upheld"] == second.pk and event.by == police_officer


def test_the_keeper_does_not_decide_and_the_findings_are_required(
    entry, pound_keeper, dm_clerk, contested
):
    with pytest.raises(PermissionDenied):
        services.decide_claims(entry=entry, by=pound_keeper, winner=contested[0], findings="x")
    with pytest.raises(ValidationError, match="findings"):
        services.decide_claims(entry=entry, by=dm_clerk, winner=contested[0], findings=" ")

    services.decide_claims(entry=entry, by=dm_clerk, winner=contested[0], findings="Brand seen")


def test_the_hold_is_recorded_as_an_event(entry, contested):
    assert Event.objects.filter(action="claim.recorded").count() == 2
    assert Event.objects.filter(action="claim.hold").count() == 1


def test_the_hold_shows_on_the_entry_page_and_the_today_board(
    client, entry, pound_keeper, contested
):
    client.force_login(pound_keeper)

    page = client.get(reverse("impounding:entry", args=[entry.pk])).text
    board = client.get(reverse("impounding:today")).text

    assert "Release on hold: competing claims" in page
    assert "Shyam Lal" in page and "Mohan Lal" in page
    assert "release on hold: competing claims" in board


def test_the_hold_is_a_to_do_until_decided(entry, police_officer, contested):
    run()
    todo = ToDo.objects.get(key=f"claims_hold:{entry.pk}")
    assert entry.register_number in todo.title and todo.done_at is None

    services.decide_claims(entry=entry, by=police_officer, winner=contested[0], findings="Brand")
    run()

    todo.refresh_from_db()
    assert todo.done_at is not None


def test_the_pages_record_and_decide(client, entry, pound_keeper, police_officer):
    client.force_login(pound_keeper)
    url = reverse("impounding:claim_new", args=[entry.pk])
    for name in ("Shyam Lal", "Mohan Lal"):
        response = client.post(
            url,
            {
                "claimant_name": name,
                "claimant_address": "Samesi",
                "proof": "Brand",
                "idempotency_key": str(uuid.uuid4()),
            },
        )
        assert response.status_code == 302
    decide = reverse("impounding:claims_decide", args=[entry.pk])
    assert client.get(decide).status_code == 403

    client.force_login(police_officer)
    winner = Claim.objects.get(claimant_name="Mohan Lal")
    response = client.post(decide, {"winner": winner.pk, "findings": "Sale deed seen"})

    assert response.status_code == 302
    winner.refresh_from_db()
    assert winner.status == Claim.Status.UPHELD
