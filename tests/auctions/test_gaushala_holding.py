"""A gaushala's deaths and transfers (ADR 0070, "Deaths and transfers"): a death ends the body's
animal-days, a transfer moves them to the receiving body, a claim beyond the days actually held
is refused, and the capacity counts only the animals still held."""

import uuid
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import Role
from auctions.models import Gaushala, Handover, HoldingEnd, UpkeepClaim
from auctions.services import gaushala as gaushalas
from auctions.services import gaushala_holding as holding
from auctions.services.common import today
from kernel.events import PACK_KEY
from kernel.models import Event
from tests.accounts.factories import staff
from tests.auctions.factories import ready_for_sale
from tests.auctions.test_gaushala import BODY, body, cow_entry, hand_over  # noqa: F401

OTHER = {**BODY, "name": "Kamdhenu Gaushala", "registration": "UP/GS/2020/0007", "capacity": 5}


@pytest.fixture
def held(cow_entry, pound, body, dm_clerk, magistrate):  # noqa: F811
    """The entry's cattle handed to `body` ten days before last month began."""
    order = hand_over(pound, cow_entry, body, dm_clerk, magistrate)
    first = (today().replace(day=1) - timedelta(days=1)).replace(day=1)
    Handover.objects.filter(pk=order.handover.pk).update(received_on=first - timedelta(days=10))
    order.handover.refresh_from_db()
    return order.handover, list(order.animals.order_by("pk")), first


def end(handover, animal, by, **fields):
    fields = {
        "kind": "died",
        "on": today(),
        "cause": "old age",
        "reference": "GS/12/2026",
        **fields,
    }
    return holding.record_end(
        handover=handover, animal_id=animal.pk, by=by, idempotency_key=uuid.uuid4(), **fields
    )


def days_in(first):
    _first, last = holding.month_bounds(first)
    return (last - first).days + 1


def test_a_death_ends_the_bodys_days(held, body, dm_clerk):  # noqa: F811
    handover, animals, first = held
    full = days_in(first) * len(animals)
    assert holding.animal_days(body, first) == full

    died = end(handover, animals[0], dm_clerk, on=first + timedelta(days=9))

    assert holding.animal_days(body, first) == full - days_in(first) + 9
    assert holding.held_by(body) == len(animals) - 1
    event = Event.objects.get(action="gaushala.animal_died")
    assert event.by == dm_clerk and event.section == "s.14" and event.animal_id == animals[0].pk
    assert event.data["reference"] == "GS/12/2026" and PACK_KEY in event.data
    assert died.since == handover.received_on


def test_a_transfer_moves_the_days_to_the_receiving_body(held, body, district, dm_clerk):  # noqa: F811
    handover, animals, first = held
    other = gaushalas.register_gaushala(district=district, by=dm_clerk, **OTHER)
    on = first + timedelta(days=9)

    end(handover, animals[0], dm_clerk, kind="transferred", on=on, to_gaushala_id=other.pk)

    month = days_in(first)
    assert holding.animal_days(body, first) == month * len(animals) - month + 9
    assert holding.animal_days(other, first) == month - 9
    assert holding.held_by(other) == 1 and holding.held_by(body) == len(animals) - 1
    # The receiving body may itself report the death: its days end there.
    end(handover, animals[0], dm_clerk, on=on + timedelta(days=5))
    assert holding.animal_days(other, first) == 5 and holding.held_by(other) == 0
    assert holding.animals_held(Gaushala.objects.filter(pk=other.pk)) == ([], None)


def test_a_claim_over_the_days_held_is_refused(held, body, dm_clerk):  # noqa: F811
    handover, animals, first = held
    full = holding.animal_days(body, first)
    end(handover, animals[0], dm_clerk, on=first + timedelta(days=9))
    kept = full - days_in(first) + 9

    with pytest.raises(ValidationError, match="deaths and transfers"):
        gaushalas.prepare_claim(gaushala=body, month=first, animal_days_claimed=full, by=dm_clerk)
    assert not UpkeepClaim.objects.exists()
    claim = gaushalas.prepare_claim(
        gaushala=body, month=first, animal_days_claimed=kept, by=dm_clerk
    )
    assert claim.held_days == kept


def test_a_date_before_the_handover_or_in_the_future_is_refused(held, dm_clerk):
    handover, animals, _first = held
    for on in (handover.received_on - timedelta(days=1), today() + timedelta(days=1)):
        with pytest.raises(ValidationError) as refused:
            end(handover, animals[0], dm_clerk, on=on)
        assert "on" in refused.value.message_dict
    assert not HoldingEnd.objects.exists()


def test_an_animal_dies_once(held, dm_clerk):
    handover, animals, _first = held
    end(handover, animals[0], dm_clerk)
    with pytest.raises(ValidationError, match="already recorded"):
        end(handover, animals[0], dm_clerk)


def test_a_transfer_needs_room_at_the_receiving_body(held, district, dm_clerk):
    handover, animals, _first = held
    full = gaushalas.register_gaushala(district=district, by=dm_clerk, **{**OTHER, "capacity": 0})
    with pytest.raises(ValidationError) as refused:
        end(handover, animals[0], dm_clerk, kind="transferred", to_gaushala_id=full.pk)
    assert "to_gaushala" in refused.value.message_dict
    assert not HoldingEnd.objects.exists()


def test_a_death_frees_room_for_another_handover(held, body, dm_clerk):  # noqa: F811
    handover, animals, _first = held
    before = holding.held_by(body, pending=True)
    end(handover, animals[0], dm_clerk)
    assert holding.held_by(body, pending=True) == before - 1


def _post(client, animal, **fields):
    data = {
        "idempotency_key": str(uuid.uuid4()),
        "kind": "died",
        "on": today().isoformat(),
        "cause": "old age",
        "reference": "GS/12/2026",
        **fields,
    }
    return client.post(reverse("auctions:holding_end_new", args=[animal.pk]), data), data


def test_the_clerk_records_a_death_once_when_sent_twice(client, held, body, dm_clerk):  # noqa: F811
    _handover, animals, _first = held
    client.force_login(dm_clerk)
    page = client.get(reverse("auctions:gaushala_animals") + f"?body={body.pk}")
    assert reverse("auctions:holding_end_new", args=[animals[0].pk]) in page.content.decode()

    first, data = _post(client, animals[0])
    again = client.post(reverse("auctions:holding_end_new", args=[animals[0].pk]), data)

    assert first.status_code == again.status_code == 302
    assert HoldingEnd.objects.count() == 1


def test_errors_show_beside_the_field(client, held, dm_clerk):
    handover, animals, _first = held
    client.force_login(dm_clerk)
    on = (handover.received_on - timedelta(days=1)).isoformat()
    response, _data = _post(client, animals[0], on=on)
    assert response.status_code == 200
    assert "on" in response.context["form"].errors
    assert "error-summary" in response.content.decode()
    assert not HoldingEnd.objects.exists()


def test_another_districts_animal_is_not_found(client, held, other_district):
    _handover, animals, _first = held
    client.force_login(staff(Role.DM_CLERK, district=other_district))
    response, _data = _post(client, animals[0])
    assert response.status_code == 404
    assert client.get(reverse("auctions:holding_end_new", args=[animals[0].pk])).status_code == 404


def test_the_register_counts_only_the_animals_still_held(client, held, body, dm_clerk):  # noqa: F811
    handover, animals, _first = held
    client.force_login(dm_clerk)
    listed = client.get(reverse("auctions:gaushalas")).context["bodies"]
    assert [b.held for b in listed] == [len(animals)]
    end(handover, animals[0], dm_clerk)
    listed = client.get(reverse("auctions:gaushalas")).context["bodies"]
    assert [b.held for b in listed] == [len(animals) - 1] == [holding.held_by(body)]


def test_the_animals_held_page_by_keyset_in_constant_queries(
    client,
    held,
    pound,
    body,  # noqa: F811
    district,
    dm_clerk,
    magistrate,
    pound_keeper,
    police_officer,  # noqa: F811
    django_assert_num_queries,
    monkeypatch,
):
    """The list pages on (held since, animal), merging the handed and the transferred-in
    animals: every animal once, and each page costs the same queries however many are held."""
    handover, animals, _first = held
    Gaushala.objects.filter(pk=body.pk).update(capacity=50)
    for _ in range(3):
        entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
        hand_over(pound, entry, body, dm_clerk, magistrate)
    other = gaushalas.register_gaushala(district=district, by=dm_clerk, **OTHER)
    end(handover, animals[0], dm_clerk, kind="transferred", to_gaushala_id=other.pk)
    monkeypatch.setattr("auctions.views.gaushala.LIST_SIZE", 1)
    client.force_login(dm_clerk)
    url = reverse("auctions:gaushala_animals")
    client.get(url)  # the session and the permissions, once
    seen, after, counts = [], "", set()
    for _ in range(20):
        with CaptureQueriesContext(connection) as queries:
            page = client.get(url + (f"?after={after}" if after else ""))
        counts.add(len(queries))
        assert len(page.context["animals"]) == 1
        seen += [animal.pk for animal, _name, _since in page.context["animals"]]
        after = page.context["next_cursor"]
        if after is None:
            break
    held_now = holding.held_by(body) + holding.held_by(other)
    assert len(seen) == len(set(seen)) == held_now >= 4
    assert len(counts) == 1


def test_a_transfer_back_on_the_handovers_day_starts_a_holding_of_its_own(
    cow_entry,  # noqa: F811
    pound,
    body,  # noqa: F811
    district,
    dm_clerk,
    magistrate,
):
    """Handed over, moved to another body and moved back the same day: the first body holds
    it again, its death there is recorded once, and its days are counted from that day."""
    order = hand_over(pound, cow_entry, body, dm_clerk, magistrate)
    handover, animals = order.handover, list(order.animals.order_by("pk"))
    other = gaushalas.register_gaushala(district=district, by=dm_clerk, **OTHER)
    on = handover.received_on
    end(handover, animals[0], dm_clerk, kind="transferred", on=on, to_gaushala_id=other.pk)
    back = end(handover, animals[0], dm_clerk, kind="transferred", on=on, to_gaushala_id=body.pk)

    assert back.gaushala == other and back.since == on
    assert holding.holding_of(handover, animals[0].pk)[:2] == (body.pk, on)
    assert holding.held_by(body) == len(animals) and holding.held_by(other) == 0
    assert [a.pk for a, _name, _since in holding.animals_held(Gaushala.objects.all())[0]] == [
        a.pk for a in animals
    ]
    died = end(handover, animals[0], dm_clerk, on=on)
    assert died.began_by == back and holding.held_by(body) == len(animals) - 1
    with pytest.raises(ValidationError, match="already recorded"):
        end(handover, animals[0], dm_clerk, on=on)
