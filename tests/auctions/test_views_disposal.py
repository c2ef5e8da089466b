"""The District Magistrate's disposal orders (s.14 proviso): the office prepares, the Magistrate
approves or not."""

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from auctions import services
from auctions.models import Auction, DisposalOrder, Lot
from auctions.selectors import disposal_order
from impounding import services as impounding_services
from impounding.models import Animal, AnimalState, Sex
from kernel.models import Event
from tests.accounts.factories import staff
from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
from tests.impounding.factories import cow, make_entry


@pytest.fixture
def reported(pound, pound_keeper, police_officer, tariffs, district):
    conditions(district)
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9)
    return entry.animals.get()


@pytest.fixture
def order(reported, pound, dm_clerk):
    return services.propose_disposal(
        pound=pound,
        animal_ids=[reported.pk],
        by=dm_clerk,
        reason="Old and barren: no bid at two auctions",
        mode=DisposalOrder.Mode.GAUSHALA,
        recipient="Shri Krishna Gaushala, Nigohan",
    )


@pytest.fixture
def other_clerk(other_district):
    return staff(Role.DM_CLERK, "other_clerk", district=other_district)


@pytest.fixture
def other_magistrate(other_district):
    return staff(Role.MAGISTRATE, "other_magistrate", district=other_district)


def snapshot():
    return (
        DisposalOrder.objects.count(),
        list(DisposalOrder.objects.order_by("pk").values_list("status", "decided_by")),
        list(Animal.objects.order_by("pk").values_list("state", flat=True)),
        list(Lot.objects.order_by("pk").values_list("status", flat=True)),
        Event.objects.count(),
    )


def errors(response, field):
    return response.context["form"].errors.get(field, [])


def order_data(*animals, **kw):
    return {
        "idempotency_key": str(uuid.uuid4()),
        "animals": [a.pk for a in animals],
        "reason": "Blind in one eye; no buyer likely",
        "mode": "gaushala",
        "recipient": "Shri Krishna Gaushala",
    } | kw


# --- Who may open the pages --------------------------------------------------------------------

REFUSED = {
    "disposals": ["administrator"],
    "disposal_new": ["pound_keeper", "police_officer", "auditor", "administrator"],
    "disposal_decide": ["pound_keeper", "police_officer", "dm_clerk", "auditor", "administrator"],
}


def url(name, order):
    return reverse(
        f"auctions:{name}", kwargs={"pk": order.pk} if name == "disposal_decide" else None
    )


@pytest.mark.parametrize("name", list(REFUSED))
@pytest.mark.parametrize("method", ["get", "post"])
def test_disposal_pages_send_anonymous_visitor_to_login(client, order, name, method):
    response = getattr(client, method)(url(name, order))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", list(REFUSED))
@pytest.mark.parametrize("method", ["get", "post"])
def test_disposal_pages_refuse_roles_without_the_action(
    client, role_users, order, reported, name, method
):
    for role in REFUSED[name]:
        before = snapshot()
        client.force_login(role_users[role])
        response = getattr(client, method)(url(name, order), order_data(reported, approve="1"))
        assert response.status_code == 403, role
        assert snapshot() == before


@pytest.mark.parametrize("method", ["get", "post"])
def test_another_districts_order_is_not_found(client, order, other_magistrate, method):
    before = snapshot()
    client.force_login(other_magistrate)
    response = getattr(client, method)(url("disposal_decide", order), {"approve": "1"})
    assert response.status_code == 404
    assert snapshot() == before


def test_another_districts_orders_and_animals_are_not_offered(
    client, order, reported, other_clerk, outsider
):
    client.force_login(outsider)
    response = client.get(reverse("auctions:disposals"))
    assert response.context["pending"] == [] and response.context["decided"] == []
    client.force_login(other_clerk)
    response = client.get(reverse("auctions:disposal_new"))
    assert not response.context["form"].fields["animals"].queryset.exists()
    before = snapshot()
    response = client.post(reverse("auctions:disposal_new"), order_data(reported))
    assert errors(response, "animals")
    assert snapshot() == before


# --- The list -----------------------------------------------------------------------------------


def test_disposals_list_pending_first_and_decide_link_for_the_magistrate(
    client, order, magistrate, dm_clerk
):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.get(reverse("auctions:disposals"))
    assert snapshot() == before
    assert response.context["pending"] == [order]
    decide = reverse("auctions:disposal_decide", kwargs={"pk": order.pk})
    assert decide not in response.content.decode()
    client.force_login(magistrate)
    assert decide in client.get(reverse("auctions:disposals")).content.decode()


def test_disposals_list_query_count_flat(
    client, pound, pound_keeper, police_officer, dm_clerk, reported
):
    def add(n):
        for _ in range(n):
            entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
            report_and_notice(
                entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9
            )
            services.propose_disposal(
                pound=pound,
                animal_ids=[entry.animals.get().pk],
                by=dm_clerk,
                reason="r",
                mode="gaushala",
                recipient="g",
            )

    add(1)
    client.force_login(dm_clerk)
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("auctions:disposals"))
    add(5)
    with CaptureQueriesContext(connection) as many:
        client.get(reverse("auctions:disposals"))
    assert len(many) == len(few)


def test_disposals_lists_page_by_keyset(
    client, pound, pound_keeper, police_officer, dm_clerk, magistrate, monkeypatch
):
    monkeypatch.setattr("auctions.selectors.LIST_SIZE", 2)
    made = []
    for _ in range(5):
        entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
        report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9)
        made.append(
            services.propose_disposal(
                pound=pound,
                animal_ids=[entry.animals.get().pk],
                by=dm_clerk,
                reason="r",
                mode="gaushala",
                recipient="g",
            )
        )
    latest = [o.pk for o in sorted(made, key=lambda o: (o.prepared_at, o.pk), reverse=True)]
    client.force_login(magistrate)
    url = reverse("auctions:disposals")
    first = client.get(url)
    assert [o.pk for o in first.context["pending"]] == latest[:2]
    assert all(o.can_decide for o in first.context["pending"])
    seen, after = [], None
    for _ in range(5):
        response = client.get(url, {"list": "pending", **({"after": after} if after else {})})
        (page,) = response.context["lists"]
        seen.append([o.pk for o in page.rows])
        after = page.next_cursor
        if after is None:
            break
    assert seen == [latest[:2], latest[2:4], latest[4:]]
    assert client.get(url, {"list": "decided"}).context["decided"] == []


# --- Preparing an order -------------------------------------------------------------------------


def test_disposal_form_offers_reported_and_unsold_animals(
    client, dm_clerk, reported, pound, pound_keeper, police_officer
):
    not_reported = make_entry(pound=pound, by=pound_keeper, animals=[cow()]).animals.get()
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=police_officer,
        scheduled_for=timezone.now(),
        lots=[[reported.pk]],
        officer=police_officer,
    )
    lot = auction.lots.get()
    services.mark_unsold(lot=lot, by=police_officer, note="No bid")
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.get(reverse("auctions:disposal_new") + f"?lot={lot.pk}")
    assert response.status_code == 200
    choices = list(response.context["form"].fields["animals"].queryset)
    assert choices == [reported] and not_reported not in choices
    assert response.context["form"]["animals"].value() == [reported.pk]
    assert "not sold at auction" in response.content.decode()
    assert snapshot() == before


def test_disposal_order_prepared(client, dm_clerk, reported, pound_keeper):
    calf = impounding_services.record_birth(
        dam=reported,
        by=pound_keeper,
        at=timezone.now() - timedelta(days=1),
        sex=Sex.MALE,
        colour="Red",
    )
    client.force_login(dm_clerk)
    response = client.post(reverse("auctions:disposal_new"), order_data(reported))
    assert response.status_code == 302 and response["Location"] == reverse("auctions:disposals")
    order = DisposalOrder.objects.get()
    assert order.status == DisposalOrder.Status.PROPOSED and order.prepared_by == dm_clerk
    assert set(order.animals.all()) == {reported, calf}  # the calf goes with its dam
    assert Event.objects.filter(action="disposal.proposed", section="s.14").exists()


def test_disposal_invalid_post_writes_nothing(client, dm_clerk, reported):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.post(
        reverse("auctions:disposal_new"), order_data(reported, reason="", recipient="", mode="x")
    )
    assert errors(response, "reason") and errors(response, "recipient") and errors(response, "mode")
    response = client.post(reverse("auctions:disposal_new"), order_data())
    assert errors(response, "animals")
    assert snapshot() == before


def test_animal_in_a_pending_order_is_not_offered_again(client, dm_clerk, order, reported):
    client.force_login(dm_clerk)
    response = client.get(reverse("auctions:disposal_new"))
    assert reported not in response.context["form"].fields["animals"].queryset


# --- The Magistrate's decision ------------------------------------------------------------------


def test_decision_page_get_writes_nothing(client, magistrate, order):
    client.force_login(magistrate)
    before = snapshot()
    response = client.get(reverse("auctions:disposal_decide", kwargs={"pk": order.pk}))
    assert response.status_code == 200
    assert "Shri Krishna Gaushala" in response.content.decode()
    assert snapshot() == before


def test_magistrate_approves_the_disposal(
    client, magistrate, order, reported, police_officer, pound
):
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=police_officer,
        scheduled_for=timezone.now(),
        lots=[[reported.pk]],
        officer=police_officer,
    )
    client.force_login(magistrate)
    response = client.post(
        reverse("auctions:disposal_decide", kwargs={"pk": order.pk}), {"approve": "1", "note": ""}
    )
    assert response.status_code == 302
    order.refresh_from_db()
    reported.refresh_from_db()
    assert order.status == DisposalOrder.Status.APPROVED and order.decided_by == magistrate
    assert reported.state == AnimalState.DISPOSED and disposal_order(reported) == order
    assert auction.lots.get().status == Lot.Status.WITHDRAWN
    assert Event.objects.filter(action="disposal.approved", section="s.14").exists()


def test_magistrate_rejects_with_a_note(client, magistrate, order, reported):
    client.force_login(magistrate)
    url_ = reverse("auctions:disposal_decide", kwargs={"pk": order.pk})
    before = snapshot()
    response = client.post(url_, {"approve": "0", "note": ""})
    assert errors(response, "note")
    response = client.post(url_, {"note": "x"})
    assert errors(response, "approve")
    assert snapshot() == before
    response = client.post(url_, {"approve": "0", "note": "Offer it once more without reserve"})
    assert response.status_code == 302
    order.refresh_from_db()
    reported.refresh_from_db()
    assert order.status == DisposalOrder.Status.REJECTED
    assert order.decision_note == "Offer it once more without reserve"
    assert reported.state == AnimalState.IMPOUNDED
    assert Event.objects.filter(action="disposal.rejected", section="s.14").exists()


def test_decided_order_cannot_be_decided_again(client, magistrate, order):
    services.decide_disposal(order=order, by=magistrate, approve=False, note="no")
    client.force_login(magistrate)
    before = snapshot()
    response = client.post(
        reverse("auctions:disposal_decide", kwargs={"pk": order.pk}), {"approve": "1"}
    )
    assert "This order has already been decided." in response.context["form"].non_field_errors()
    assert snapshot() == before


def test_the_form_offers_one_pounds_animals_chosen_by_pound(
    client, dm_clerk, reported, pound, district, police_station
):
    """An order covers one pound: a district's hundreds of reported animals are offered a pound
    at a time, the first by name unless ?pound= names another, and the choice is kept on POST."""
    from tests.accounts.factories import PoundFactory, PoundVillageFactory

    second = PoundFactory(district=district, nearest_police_station=police_station, name="Zz")
    PoundVillageFactory(pound=second)
    keeper = staff(Role.POUND_KEEPER, "keeper_zz", pound=second)
    entry = unclaimed_entry(pound=second, keeper=keeper, days_ago=20)
    officer = staff(Role.POLICE_OFFICER, "officer_zz", police_station=police_station)
    report_and_notice(entry, keeper, officer, sent_days_ago=11, posted_days_ago=9)
    theirs = entry.animals.get()
    client.force_login(dm_clerk)
    url = reverse("auctions:disposal_new")

    first = client.get(url)
    chosen = client.get(url, {"pound": second.pk})

    assert [p.pk for p in first.context["pounds"]] == [pound.pk, second.pk]
    assert [a.pk for a in first.context["form"].fields["animals"].queryset] == [reported.pk]
    assert [a.pk for a in chosen.context["form"].fields["animals"].queryset] == [theirs.pk]
    assert 'name="pound"' in first.content.decode()
    response = client.post(f"{url}?pound={second.pk}", order_data(theirs))
    assert response.status_code == 302
    assert list(DisposalOrder.objects.get().animals.all()) == [theirs]
