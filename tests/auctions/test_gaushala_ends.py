"""An animal's escape from a gaushala, its recapture, and its return to the owner (ADR 0070,
"Escape, recapture and return"): the moves `HOLDING_MOVES` allows, each allowed and each refused
one tested; the upkeep stops on the day of the escape or return and restarts on the recapture;
an escaped animal found dead is final and pays nothing after the escape; a month already paid
is flagged over-paid through balanced postings; the legal basis is kept."""

# ruff: noqa: F811  (the fixtures are imported from the handover and recovery tests)

import uuid
from datetime import date
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from accounts.roles import Role
from auctions.models import HOLDING_MOVES, HoldingEnd, UpkeepOverpayment
from auctions.services import gaushala as gaushalas
from auctions.services import gaushala_holding as holding
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import AccountKind, Transaction
from tests.accounts.factories import staff
from tests.auctions.test_gaushala import BODY, body, hand_over  # noqa: F401
from tests.auctions.test_gaushala_recovery import JAN, RATE, balance, claim_for, herd  # noqa: F401

KINDS = ["died", "transferred", "escaped", "returned", "recaptured", "found_dead"]
# The law of the bodies' animals, written out: what may follow each state, nothing else.
ALLOWED = {
    "held": {"died", "transferred", "escaped", "returned"},
    "escaped": {"recaptured", "found_dead"},
    "died": set(),
    "returned": set(),
    "found_dead": set(),
}
# The moves that bring a held animal to each state.
PATHS = {"held": [], "found_dead": ["escaped", "found_dead"]}
FIELDS = {
    "died": {"cause": "old age"},
    "found_dead": {"cause": "drowned in the canal"},
    "returned": {"basis": "Order of the CJM, Lucknow, in Misc. Case 12/2027"},
}
ON = date(2027, 1, 10)


def record(handover, animal, kind, clerk, *, on=ON, **kw):
    fields = {"reference": "GS/7/2027", **FIELDS.get(kind, {}), **kw}
    return holding.record_end(
        handover=handover,
        animal_id=animal.pk,
        kind=kind,
        on=on,
        by=clerk,
        idempotency_key=uuid.uuid4(),
        **fields,
    )


@pytest.fixture
def other(district, dm_clerk):
    return gaushalas.register_gaushala(
        district=district,
        by=dm_clerk,
        **{**BODY, "name": "Kamdhenu Gaushala", "registration": "UP/GS/2020/0007"},
    )


def bring_to(start, handover, cow, clerk):
    for kind in PATHS.get(start, [start]):
        record(handover, cow, kind, clerk)


def test_the_moves_are_written_out():
    assert {k: set(v) for k, v in HOLDING_MOVES.items()} == ALLOWED
    assert set(KINDS) == set(HoldingEnd.Kind.values)  # every kind is tried from every state


@pytest.mark.parametrize("start", list(ALLOWED))
@pytest.mark.parametrize("kind", KINDS)
def test_every_move_from_every_state(herd, other, start, kind, dm_clerk):
    handover, cows = herd
    bring_to(start, handover, cows[0], dm_clerk)
    extra = {"to_gaushala_id": other.pk} if kind == "transferred" else {}
    if kind in ALLOWED[start]:
        end = record(handover, cows[0], kind, dm_clerk, on=date(2027, 1, 20), **extra)
        assert end.kind == kind
    else:
        with pytest.raises(ValidationError) as refused:
            record(handover, cows[0], kind, dm_clerk, on=date(2027, 1, 20), **extra)
        assert "kind" in refused.value.message_dict
        assert HoldingEnd.objects.filter(kind=kind, on=date(2027, 1, 20)).count() == 0


def test_an_escape_stops_the_upkeep_and_a_recapture_restarts_it(herd, body, dm_clerk):
    handover, cows = herd
    assert holding.animal_days(body, JAN) == 62
    record(handover, cows[0], "escaped", dm_clerk)  # held 1-9 January
    assert holding.animal_days(body, JAN) == 31 + 9
    assert holding.held_by(body) == 1
    record(handover, cows[0], "recaptured", dm_clerk, on=date(2027, 1, 25))  # held again 25-31
    assert holding.animal_days(body, JAN) == 31 + 9 + 7
    assert holding.held_by(body) == 2
    # Held again, it may escape again, and the body's list shows it while it is out.
    record(handover, cows[0], "escaped", dm_clerk, on=date(2027, 1, 28))
    assert holding.animal_days(body, JAN) == 31 + 9 + 3
    assert [e.animal_id for e in holding.animals_escaped([body.pk])] == [cows[0].pk]


def test_an_escaped_animal_found_dead_pays_nothing_after_the_escape_and_is_final(
    herd, body, district, dm_clerk, magistrate
):
    handover, cows = herd
    jan = claim_for(body, JAN, dm_clerk, magistrate)
    escape = record(handover, cows[0], "escaped", dm_clerk)  # held 1-9 January
    assert UpkeepOverpayment.objects.get().days == 22
    dead = record(handover, cows[0], "found_dead", dm_clerk, on=date(2027, 1, 20))
    assert holding.animal_days(body, JAN) == 31 + 9  # nothing after the escape, nothing again
    assert holding.held_by(body) == 1
    assert (dead.began_by, dead.since, dead.gaushala) == (escape, ON, body)
    assert dead.cause == "drowned in the canal" and dead.to_gaushala is None
    # The escape flagged the days already paid; being found dead flags and posts nothing more.
    assert UpkeepOverpayment.objects.get().claim == jan
    assert balance(district, AccountKind.UPKEEP_RECOVERABLE) == RATE * 22
    assert run_checks() == []
    assert holding.standing(handover, cows[0].pk)[0] == "found_dead"
    assert holding.animals_escaped([body.pk]).count() == 0  # no longer out
    # The same basis rules as the escape: the pack's citation, who, when, the pack's version.
    assert dead.basis == escape.basis and dead.rule_pack == "up 0.1"
    event = Event.objects.get(action="gaushala.animal_found_dead")
    assert event.section == "s.14" and event.by == dm_clerk
    assert event.data["basis"] == dead.basis and event.data["since"] == str(ON)
    assert "found dead" in event.summary_text


def test_found_dead_is_not_before_the_escape_and_needs_no_cause(herd, dm_clerk):
    handover, cows = herd
    record(handover, cows[0], "escaped", dm_clerk)
    with pytest.raises(ValidationError) as refused:
        record(handover, cows[0], "found_dead", dm_clerk, on=date(2027, 1, 9))
    assert "on" in refused.value.message_dict
    dead = record(handover, cows[0], "found_dead", dm_clerk, cause=" ")  # the cause unknown
    assert dead.cause == "" and dead.on == ON


def test_a_return_to_the_owner_stops_the_upkeep_and_is_final(herd, body, dm_clerk):
    handover, cows = herd
    end = record(handover, cows[1], "returned", dm_clerk)
    assert holding.animal_days(body, JAN) == 31 + 9
    assert end.basis.startswith("Order of the CJM") and end.rule_pack == "up 0.1"
    assert holding.standing(handover, cows[1].pk)[0] == "returned"


def test_an_escape_after_the_month_was_paid_is_over_paid_in_balanced_postings(
    herd, body, district, dm_clerk, magistrate
):
    handover, cows = herd
    jan = claim_for(body, JAN, dm_clerk, magistrate)
    end = record(handover, cows[0], "escaped", dm_clerk)
    over = UpkeepOverpayment.objects.get()
    assert (over.claim, over.end, over.days) == (jan, end, 22)
    assert balance(district, AccountKind.UPKEEP_RECOVERABLE) == RATE * 22
    txn = Transaction.objects.get(kind="upkeep_overpaid")
    assert sum(p.amount for p in txn.postings.all()) == Decimal("0.00")
    # A recapture flags nothing and posts nothing.
    record(handover, cows[0], "recaptured", dm_clerk, on=date(2027, 2, 3))
    assert UpkeepOverpayment.objects.count() == 1
    assert run_checks() == []


def test_a_return_after_the_month_was_paid_is_over_paid(herd, body, district, dm_clerk, magistrate):
    handover, cows = herd
    claim_for(body, JAN, dm_clerk, magistrate)
    record(handover, cows[1], "returned", dm_clerk, on=date(2027, 1, 30))
    assert UpkeepOverpayment.objects.get().days == 2
    assert run_checks() == []


def test_the_escape_names_the_packs_citation_who_and_when(herd, dm_clerk):
    handover, cows = herd
    end = record(handover, cows[0], "escaped", dm_clerk)
    assert "Uttar Pradesh Prevention of Cow Slaughter Act" in end.basis and not end.basis_note
    assert end.rule_pack == "up 0.1" and end.recorded_by == dm_clerk
    event = Event.objects.get(action="gaushala.animal_escaped")
    assert event.section == "s.14" and event.by == dm_clerk
    assert event.data["basis"] == end.basis and event.data["rule_pack"] == "up 0.1"


def test_without_a_pack_citation_the_agreement_or_a_reason_is_kept(herd, body, dm_clerk):
    handover, cows = herd
    pinned = holding.rulepacks.pack_of(cows[0].impoundment.rule_pack_id)
    no_route = pinned.rules.model_copy(update={"disposal": pinned.rules.disposal[1:]})
    cattle_free = type(pinned)(**{**pinned.__dict__, "rules": no_route})
    from unittest import mock

    with mock.patch.object(holding.rulepacks, "pack_of", return_value=cattle_free):
        basis = holding.legal_basis("escaped", cows[0], body, "")
        assert basis == (body.rate_authority, "the body's agreement", "up 0.1")
        body.rate_authority = ""
        basis = holding.legal_basis("escaped", cows[0], body, "")
        assert basis[0] == "" and "cites no rule" in basis[1] and basis[2] == "up 0.1"


def test_a_return_needs_the_order_it_is_made_under(herd, dm_clerk):
    handover, cows = herd
    with pytest.raises(ValidationError) as refused:
        record(handover, cows[0], "returned", dm_clerk, basis=" ")
    assert "basis" in refused.value.message_dict


def test_a_recapture_needs_room_at_the_body(herd, body, dm_clerk):
    handover, cows = herd
    record(handover, cows[0], "escaped", dm_clerk)
    type(body).objects.filter(pk=body.pk).update(capacity=1)
    with pytest.raises(ValidationError) as refused:
        record(handover, cows[0], "recaptured", dm_clerk, on=date(2027, 1, 12))
    assert "to_gaushala" in refused.value.message_dict


def test_a_recapture_is_not_before_the_escape(herd, dm_clerk):
    handover, cows = herd
    record(handover, cows[0], "escaped", dm_clerk)
    with pytest.raises(ValidationError) as refused:
        record(handover, cows[0], "recaptured", dm_clerk, on=date(2027, 1, 9))
    assert "on" in refused.value.message_dict


def _post(client, animal, **fields):
    data = {
        "idempotency_key": str(uuid.uuid4()),
        "kind": "escaped",
        "on": "2027-01-10",
        "reference": "GS/7/2027",
        **fields,
    }
    url = reverse("auctions:holding_end_new", args=[animal.pk])
    return client.post(url, data), data


def test_the_clerk_records_an_escape_once_and_then_only_a_recapture(client, herd, dm_clerk):
    _handover, cows = herd
    client.force_login(dm_clerk)
    url = reverse("auctions:holding_end_new", args=[cows[0].pk])
    page = client.get(url).content.decode()
    assert 'value="escaped"' in page and 'value="returned"' in page
    first, data = _post(client, cows[0])
    again = client.post(url, data)
    assert first.status_code == again.status_code == 302
    assert HoldingEnd.objects.count() == 1
    page = client.get(url).content.decode()
    assert 'value="recaptured"' in page and 'value="escaped"' not in page
    assert 'value="found_dead"' in page and 'name="cause"' in page
    animals = client.get(reverse("auctions:gaushala_animals")).content.decode()
    assert 'id="escaped"' in animals and url in animals
    refused, _data = _post(client, cows[0], kind="died", cause="x")
    assert refused.status_code == 200 and "kind" in refused.context["form"].errors


def test_a_return_without_its_order_shows_the_error_beside_the_field(client, herd, dm_clerk):
    _handover, cows = herd
    client.force_login(dm_clerk)
    response, _data = _post(client, cows[0], kind="returned")
    assert response.status_code == 200
    assert "basis" in response.context["form"].errors
    assert "error-summary" in response.content.decode()
    assert not HoldingEnd.objects.exists()


def test_another_districts_clerk_gets_a_404(client, herd, other_district):
    _handover, cows = herd
    client.force_login(staff(Role.DM_CLERK, district=other_district))
    response, _data = _post(client, cows[0])
    assert response.status_code == 404
    assert client.get(reverse("auctions:holding_end_new", args=[cows[0].pk])).status_code == 404


def test_the_form_is_translated(client, herd, dm_clerk):
    _handover, cows = herd
    client.force_login(dm_clerk)
    url = reverse("auctions:holding_end_new", args=[cows[0].pk])
    client.cookies["django_language"] = "hi"
    try:
        page = client.get(url).content.decode()
    finally:
        translation.activate("en")  # the middleware leaves the request's language active
    assert "संस्था से भाग गया" in page and "Escaped from the body" not in page


def test_the_clerk_records_an_escaped_animal_found_dead(client, herd, dm_clerk):
    handover, cows = herd
    record(handover, cows[0], "escaped", dm_clerk)
    client.force_login(dm_clerk)
    response, data = _post(client, cows[0], kind="found_dead", on="2027-01-12", cause="")
    assert response.status_code == 302
    assert client.post(response.request["PATH_INFO"], data).status_code == 302  # sent twice
    assert HoldingEnd.objects.filter(kind="found_dead").count() == 1
    page = client.get(reverse("auctions:holding_end_new", args=[cows[0].pk])).content.decode()
    assert "This animal was found dead after its escape." in page and 'name="kind"' not in page
    animals = client.get(reverse("auctions:gaushala_animals")).content.decode()
    assert 'id="escaped"' not in animals


def test_after_a_return_the_page_offers_no_move(client, herd, dm_clerk):
    handover, cows = herd
    record(handover, cows[0], "returned", dm_clerk)
    client.force_login(dm_clerk)
    page = client.get(reverse("auctions:holding_end_new", args=[cows[0].pk])).content.decode()
    assert "This animal has gone back to its owner." in page and 'name="kind"' not in page
    response, _data = _post(client, cows[0], kind="recaptured")
    assert response.status_code == 200 and HoldingEnd.objects.count() == 1
