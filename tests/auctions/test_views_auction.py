"""The screens of the auction: the District Magistrate's conditions, scheduling, the s.19 check of
bidders, bids and the hammer, lots not sold, and closing (ss.14, 16, 19)."""

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from auctions import services
from auctions.models import Auction, AuctionConditions, Bid, Bidder, Lot, S16Case, Sale
from impounding import services as impounding_services
from impounding.models import Animal, AnimalState, Sex
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Transaction
from tests.accounts.factories import staff
from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
from tests.impounding.factories import cow, goat, make_entry, pay

# --- Fixtures -----------------------------------------------------------------------------------


@pytest.fixture
def conds(district):
    return conditions(district)


@pytest.fixture
def noticed(pound, pound_keeper, police_officer, tariffs, conds):
    """An entry whose notice was posted nine days ago: it may be sold today."""
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9
    )
    return entry, report, notice


@pytest.fixture
def auction(noticed, pound, police_officer):
    entry = noticed[0]
    return services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.UNCLAIMED,
        by=police_officer,
        scheduled_for=timezone.now(),
        lots=[[entry.animals.get().pk]],
        officer=police_officer,
        reserve_prices={1: Decimal("1000.00")},
    )


def register(auction, by, name="Mohd. Salim", phone="9999911111", id_number="UP/12/345/678"):
    return services.register_bidder(
        auction=auction,
        by=by,
        name=name,
        address="Bakshi ka Talab",
        id_kind="voter",
        id_number=id_number,
        phone=phone,
        declaration_signed=True,
    )


@pytest.fixture
def bidder(auction, police_officer):
    return register(auction, police_officer)


@pytest.fixture
def blocked(auction, police_officer, pound_keeper):
    return register(
        auction,
        police_officer,
        name=pound_keeper.get_full_name(),
        phone="9000000001",
        id_number="UP/12/345/679",
    )


@pytest.fixture
def lot(auction):
    return auction.lots.get()


@pytest.fixture
def other_officer(other_pound):
    return staff(
        Role.POLICE_OFFICER, "other_officer", police_station=other_pound.nearest_police_station
    )


@pytest.fixture
def other_magistrate(other_district):
    return staff(Role.MAGISTRATE, "other_magistrate", district=other_district)


def snapshot():
    """Everything an auction screen could write."""
    return (
        AuctionConditions.objects.count(),
        Auction.objects.count(),
        Lot.objects.count(),
        list(Lot.objects.order_by("pk").values_list("status", flat=True)),
        Bidder.objects.count(),
        list(Bidder.objects.order_by("pk").values_list("override_by", flat=True)),
        Bid.objects.count(),
        Sale.objects.count(),
        S16Case.objects.count(),
        list(Animal.objects.order_by("pk").values_list("state", flat=True)),
        Transaction.objects.count(),
        Event.objects.count(),
    )


def errors(response, field, form="form"):
    return response.context[form].errors.get(field, [])


def local(dt):
    return timezone.localtime(dt).strftime("%Y-%m-%dT%H:%M")


# --- Who may open the pages --------------------------------------------------------------------

# (url name, which object's pk, roles refused with 403)
OFFICER_ONLY = ["pound_keeper", "dm_clerk", "magistrate", "auditor"]
PAGES = [
    ("auctions:conditions", None, ["administrator"]),
    ("auctions:conditions_new", None, ["pound_keeper", "police_officer", "auditor"]),
    ("auctions:auctions", None, ["administrator"]),
    ("auctions:auction_new", None, OFFICER_ONLY),
    ("auctions:auction", "auction", ["administrator"]),
    ("auctions:bidder_new", "auction", OFFICER_ONLY),
    ("auctions:auction_close", "auction", OFFICER_ONLY),
    ("auctions:lot_sell", "lot", OFFICER_ONLY),
    ("auctions:lot_unsold", "lot", OFFICER_ONLY),
    (
        "auctions:bidder_override",
        "bidder",
        ["pound_keeper", "police_officer", "dm_clerk", "auditor"],
    ),
]


def url(name, kind, objects):
    return reverse(name, kwargs={"pk": objects[kind].pk} if kind else None)


@pytest.fixture
def objects(auction, lot, blocked):
    return {"auction": auction, "lot": lot, "bidder": blocked}


@pytest.mark.parametrize(("name", "kind", "refused"), PAGES)
@pytest.mark.parametrize("method", ["get", "post"])
def test_auction_pages_send_anonymous_visitor_to_login(
    client, objects, name, kind, refused, method
):
    response = getattr(client, method)(url(name, kind, objects))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize(("name", "kind", "refused"), PAGES)
@pytest.mark.parametrize("method", ["get", "post"])
def test_auction_pages_refuse_roles_without_the_action(
    client, role_users, objects, name, kind, refused, method
):
    for role in refused:
        before = snapshot()
        client.force_login(role_users[role])
        response = getattr(client, method)(url(name, kind, objects), {"reason": "x", "note": "x"})
        assert response.status_code == 403, role
        assert snapshot() == before


@pytest.mark.parametrize(
    ("name", "kind", "who"),
    [
        ("auctions:auction", "auction", "outsider"),
        ("auctions:auction", "auction", "other_officer"),
        ("auctions:bidder_new", "auction", "other_officer"),
        ("auctions:auction_close", "auction", "other_officer"),
        ("auctions:lot_sell", "lot", "other_officer"),
        ("auctions:lot_unsold", "lot", "other_officer"),
        ("auctions:bidder_override", "bidder", "other_magistrate"),
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_another_districts_auction_is_not_found(
    client, objects, outsider, other_officer, other_magistrate, name, kind, who, method
):
    before = snapshot()
    client.force_login(
        {"outsider": outsider, "other_officer": other_officer}.get(who) or other_magistrate
    )
    response = getattr(client, method)(url(name, kind, objects), {"reason": "x"})
    assert response.status_code == 404
    assert snapshot() == before


def test_another_districts_report_or_case_cannot_be_scheduled(
    client, noticed, other_officer, pound, pound_keeper
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    case = services.open_s16_case(
        entry=entry,
        animal_ids=[entry.animals.get().pk],
        by=pound_keeper,
        owner_name="Shyam",
        owner_address="Samesi",
    )
    client.force_login(other_officer)
    base = reverse("auctions:auction_new")
    assert client.get(f"{base}?report={noticed[1].pk}").status_code == 404
    assert client.get(f"{base}?case={case.pk}").status_code == 404
    assert client.get(f"{base}?pound={pound.pk}").status_code == 404


# --- The District Magistrate's conditions -------------------------------------------------------


def conditions_data(district, **kw):
    return {
        "district": district.pk,
        "order_reference": "DM/Auction/7/2026",
        "order_date": timezone.localdate().isoformat(),
        "valid_from": timezone.localdate().isoformat(),
        "place": "Cattle market, Nigohan",
        "hours": "11:00 to 15:00",
        "reserve_policy": "Half the market value",
        "earnest_money": "1000",
        "buyer_declarations": "I am not an officer of police or a pound-keeper.",
        "chargeable_expenses": "Drum and announcement",
        "max_expenses_per_lot": "250",
        "s16_min_gap_days": "2",
        "idempotency_key": str(uuid.uuid4()),
    } | kw


def test_conditions_list_shows_current_first_and_history(client, district, dm_clerk, conds):
    newer = conditions(
        district,
        by=dm_clerk,
        order_reference="DM/Auction/2/2025",
        valid_from=conds.valid_from + timedelta(days=365),
    )
    client.force_login(dm_clerk)
    response = client.get(reverse("auctions:conditions"))
    assert response.status_code == 200
    assert response.context["current"] == [newer]
    assert response.context["history"] == [AuctionConditions.objects.get(pk=conds.pk)]
    body = response.content.decode()
    assert body.index("DM/Auction/2/2025") < body.index("DM/Auction/1/2024")
    assert "New standing order" in body


def test_conditions_list_query_count_flat(client, district, dm_clerk, conds):
    client.force_login(dm_clerk)
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("auctions:conditions"))
    for n in range(2, 7):
        conditions(
            district,
            by=dm_clerk,
            order_reference=f"DM/Auction/{n}",
            valid_from=conds.valid_from + timedelta(days=30 * n),
        )
    with CaptureQueriesContext(connection) as many:
        client.get(reverse("auctions:conditions"))
    assert len(many) == len(few)


def test_conditions_form_get_writes_nothing(client, dm_clerk, district):
    before = snapshot()
    client.force_login(dm_clerk)
    response = client.get(reverse("auctions:conditions_new"))
    assert response.status_code == 200
    assert 'name="buyer_declarations"' in response.content.decode()
    assert snapshot() == before


def test_conditions_recorded_and_supersede_the_last(client, dm_clerk, district, conds):
    client.force_login(dm_clerk)
    response = client.post(reverse("auctions:conditions_new"), conditions_data(district))
    assert response.status_code == 302
    assert response["Location"] == reverse("auctions:conditions")
    new = AuctionConditions.objects.get(order_reference="DM/Auction/7/2026")
    assert new.s16_min_gap_days == 2 and new.max_expenses_per_lot == Decimal("250.00")
    conds.refresh_from_db()
    assert conds.valid_to == timezone.localdate() - timedelta(days=1)
    assert Event.objects.filter(action="s14.conditions_set", section="s.14").count() == 2


def test_conditions_invalid_post_shows_errors_and_writes_nothing(client, dm_clerk, district):
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.post(
        reverse("auctions:conditions_new"), conditions_data(district, place="", earnest_money="-1")
    )
    assert response.status_code == 200
    assert errors(response, "place") and errors(response, "earnest_money")
    assert snapshot() == before


def test_conditions_overlap_refused_by_the_service_beside_the_date(
    client, dm_clerk, district, conds
):
    conditions(
        district,
        by=dm_clerk,
        order_reference="later",
        valid_from=timezone.localdate() + timedelta(days=10),
        valid_to=timezone.localdate() + timedelta(days=20),
    )
    client.force_login(dm_clerk)
    before = snapshot()
    response = client.post(
        reverse("auctions:conditions_new"),
        conditions_data(
            district, valid_from=(timezone.localdate() + timedelta(days=5)).isoformat()
        ),
    )
    assert "These dates overlap another standing order." in errors(response, "valid_from")
    assert snapshot() == before


def test_conditions_not_for_another_district(client, dm_clerk, other_district):
    client.force_login(dm_clerk)
    response = client.post(reverse("auctions:conditions_new"), conditions_data(other_district))
    assert errors(response, "district")
    assert not AuctionConditions.objects.filter(district=other_district).exists()


# --- The list of auctions -----------------------------------------------------------------------


def test_auctions_list_scheduled_first(client, police_officer, auction, bidder, lot):
    services.sell_lot(lot=lot, buyer=bidder, price=Decimal("5000.00"), by=police_officer)
    services.close_auction(auction=auction, by=police_officer)
    client.force_login(police_officer)
    response = client.get(reverse("auctions:auctions"))
    assert response.status_code == 200
    assert response.context["scheduled"] == []
    assert [a.pk for a in response.context["held"]] == [auction.pk]
    assert "1 of 1 lots sold" in response.content.decode()


def test_an_auction_whose_lots_are_all_decided_is_listed_as_held_before_it_is_closed(
    client, auction, lot, bidder, police_officer
):
    client.force_login(police_officer)
    response = client.get(reverse("auctions:auctions"))
    assert [a.pk for a in response.context["scheduled"]] == [auction.pk]
    services.sell_lot(lot=lot, buyer=bidder, price=Decimal("5000.00"), by=police_officer)
    response = client.get(reverse("auctions:auctions"))  # sold, not yet closed by the officer
    assert response.context["scheduled"] == []
    assert [a.pk for a in response.context["held"]] == [auction.pk]
    assert "Held: every lot decided, to be closed" in response.content.decode()


def test_auctions_list_query_count_flat(
    client, police_officer, pound, pound_keeper, auditor, conds, tariffs
):
    def add_auctions(n):
        for _ in range(n):
            entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
            report_and_notice(
                entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9
            )
            services.schedule_auction(
                pound=pound,
                kind=Auction.Kind.UNCLAIMED,
                by=police_officer,
                scheduled_for=timezone.now(),
                lots=[[entry.animals.get().pk]],
                officer=police_officer,
            )

    add_auctions(1)
    client.force_login(auditor)
    with CaptureQueriesContext(connection) as few:
        assert client.get(reverse("auctions:auctions")).status_code == 200
    add_auctions(5)
    with CaptureQueriesContext(connection) as many:
        client.get(reverse("auctions:auctions"))
    assert len(many) == len(few)


def _page_through(client, url, key, *, pages):
    """Follow a list's "Next page" links from its own first page: the rows of each page."""
    seen, after = [], None
    for _ in range(pages):
        params = {"list": key, **({"after": after} if after else {})}
        response = client.get(url, params)
        assert response.status_code == 200
        (page,) = response.context["lists"]
        seen.append([row.pk for row in page.rows])
        after = page.next_cursor
        if after is None:
            break
    return seen, after


def test_auctions_lists_page_by_keyset(
    client, police_officer, pound, pound_keeper, auditor, conds, tariffs, monkeypatch
):
    monkeypatch.setattr("auctions.selectors.LIST_SIZE", 2)
    now = timezone.now()
    made = []
    for days in (5, 3, 4, 1, 2):
        entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
        report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9)
        made.append(
            services.schedule_auction(
                pound=pound,
                kind=Auction.Kind.UNCLAIMED,
                by=police_officer,
                scheduled_for=now + timedelta(days=days),
                lots=[[entry.animals.get().pk]],
                officer=police_officer,
            )
        )
    soonest = [a.pk for a in sorted(made, key=lambda a: a.scheduled_for)]
    client.force_login(auditor)
    url = reverse("auctions:auctions")
    first = client.get(url)
    assert [a.pk for a in first.context["scheduled"]] == soonest[:2]
    assert "?list=scheduled&amp;after=" in first.content.decode()
    pages, last = _page_through(client, url, "scheduled", pages=5)
    assert pages == [soonest[:2], soonest[2:4], soonest[4:]] and last is None
    # Held: the latest first, and paged alike.
    Auction.objects.filter(pk__in=soonest).update(status=Auction.Status.CANCELLED)
    pages, last = _page_through(client, url, "held", pages=5)
    assert pages == [soonest[::-1][:2], soonest[::-1][2:4], soonest[::-1][4:]] and last is None
    # A cursor that does not parse gives the first page; another list's name, both lists.
    assert client.get(url, {"list": "held", "after": "x|y"}).context["held"][0].pk == soonest[-1]
    assert len(client.get(url, {"list": "nope"}).context["lists"]) == 2


def test_another_districts_auctions_are_not_listed(client, other_officer, auction):
    client.force_login(other_officer)
    response = client.get(reverse("auctions:auctions"))
    assert response.context["scheduled"] == [] and response.context["held"] == []


# --- Scheduling ---------------------------------------------------------------------------------


def schedule_data(heads, *, when, officer, include=None, **kw):
    """POST data: the auction form plus one lot row per head (animal id)."""
    data = {
        "scheduled_for": when,
        "place": "",
        "officer": officer.pk,
        "deputy": "",
        "deputation_order": "",
        "lots-TOTAL_FORMS": len(heads),
        "lots-INITIAL_FORMS": len(heads),
        "idempotency_key": str(uuid.uuid4()),
    }
    for i, head in enumerate(heads):
        data[f"lots-{i}-head"] = head
        data[f"lots-{i}-sequence"] = i + 1
        data[f"lots-{i}-reserve_price"] = ""
        if include is None or head in include:
            data[f"lots-{i}-include"] = "on"
    return data | kw


def test_schedule_form_from_a_report_preselects_its_animals(
    client, police_officer, noticed, pound, pound_keeper
):
    entry, report, notice = noticed
    other = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    report_and_notice(other, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=8)
    client.force_login(police_officer)
    before = snapshot()
    response = client.get(reverse("auctions:auction_new") + f"?report={report.pk}")
    assert response.status_code == 200
    forms = response.context["formset"].forms
    assert [f.initial["include"] for f in forms] == [True, False]
    assert response.context["form"]["officer"].value() == police_officer.pk
    assert response.context["form"]["place"].value() == "Cattle market, Mohanlalganj"
    body = response.content.decode()
    assert f"May be sold from {notice.earliest_sale:%d-%m-%Y}" in body
    assert snapshot() == before


def test_schedule_auction_of_unclaimed_cattle(client, police_officer, noticed):
    entry = noticed[0]
    animal = entry.animals.get()
    client.force_login(police_officer)
    when = timezone.now() + timedelta(hours=2)
    response = client.post(
        reverse("auctions:auction_new") + f"?report={noticed[1].pk}",
        schedule_data([animal.pk], when=local(when), officer=police_officer)
        | {"lots-0-reserve_price": "1500"},
    )
    auction = Auction.objects.get()
    assert response.status_code == 302
    assert response["Location"] == auction.get_absolute_url()
    assert auction.kind == Auction.Kind.UNCLAIMED
    assert auction.place == "Cattle market, Mohanlalganj"  # the conditions' place
    lot = auction.lots.get()
    assert list(lot.animals.all()) == [animal] and lot.reserve_price == Decimal("1500.00")
    assert Event.objects.filter(action="auction.scheduled", section="s.14").exists()


def test_schedule_refuses_an_early_date_beside_the_date_field(
    client, police_officer, pound, pound_keeper, conds, tariffs
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=3, posted_days_ago=3
    )
    client.force_login(police_officer)
    before = snapshot()
    response = client.post(
        reverse("auctions:auction_new") + f"?report={report.pk}",
        schedule_data(
            [entry.animals.get().pk],
            when=local(timezone.now() + timedelta(hours=1)),
            officer=police_officer,
        ),
    )
    assert response.status_code == 200
    lawful = notice.earliest_sale.strftime("%d-%m-%Y")
    (message,) = errors(response, "scheduled_for")
    assert "earliest lawful date" in message and lawful in message
    body = response.content.decode()
    # Beside the field: its error follows the date input and comes before the next field.
    field = body.index('id="id_scheduled_for"')
    assert field < body.index(lawful, field) < body.index('id="id_place"')
    assert snapshot() == before


def test_schedule_puts_a_calf_born_in_the_pound_in_its_dams_lot(
    client, police_officer, pound, pound_keeper, noticed
):
    dam = noticed[0].animals.get()
    calf = impounding_services.record_birth(
        dam=dam,
        by=pound_keeper,
        at=timezone.now() - timedelta(days=2),
        sex=Sex.FEMALE,
        colour="Brown",
    )
    client.force_login(police_officer)
    response = client.get(reverse("auctions:auction_new") + f"?report={noticed[1].pk}")
    (row,) = response.context["formset"].forms
    assert [a.pk for a in row.unit["animals"]] == [dam.pk, calf.pk]
    response = client.post(
        reverse("auctions:auction_new") + f"?report={noticed[1].pk}",
        schedule_data(
            [dam.pk], when=local(timezone.now() + timedelta(hours=1)), officer=police_officer
        ),
    )
    assert response.status_code == 302
    lot = Lot.objects.get()
    assert sorted(lot.animals.values_list("pk", flat=True)) == sorted([dam.pk, calf.pk])


def test_schedule_orders_the_lots_as_the_officer_numbers_them(
    client, police_officer, pound, pound_keeper, conds, tariffs
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20, animals=[cow(), goat()])
    report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9)
    first, second = entry.animals.order_by("number")
    client.force_login(police_officer)
    data = schedule_data(
        [first.pk, second.pk],
        when=local(timezone.now() + timedelta(hours=1)),
        officer=police_officer,
    ) | {"lots-0-sequence": "2", "lots-1-sequence": "1"}
    assert (
        client.post(reverse("auctions:auction_new") + f"?pound={pound.pk}", data).status_code == 302
    )
    lots = Auction.objects.get().lots.order_by("sequence")
    assert [list(lot.animals.values_list("pk", flat=True)) for lot in lots] == [
        [second.pk],
        [first.pk],
    ]


def test_schedule_invalid_post_writes_nothing(client, police_officer, noticed):
    animal = noticed[0].animals.get()
    client.force_login(police_officer)
    before = snapshot()
    response = client.post(
        reverse("auctions:auction_new") + f"?report={noticed[1].pk}",
        schedule_data(
            [animal.pk],
            when="",
            officer=police_officer,
            include=[],
            deputy=police_officer.pk,
        ),
    )
    assert response.status_code == 200
    assert errors(response, "scheduled_for")
    assert "Offer at least one lot." in response.context["formset"].non_form_errors()
    assert snapshot() == before


def test_schedule_deputy_needs_a_deputation_order(client, police_officer, noticed, police_station):
    deputy = staff(Role.POLICE_OFFICER, "si_deputy", police_station=police_station)
    animal = noticed[0].animals.get()
    client.force_login(police_officer)
    url_ = reverse("auctions:auction_new") + f"?report={noticed[1].pk}"
    data = schedule_data(
        [animal.pk], when=local(timezone.now() + timedelta(hours=1)), officer=police_officer
    ) | {"deputy": deputy.pk}
    response = client.post(url_, data)
    assert errors(response, "deputation_order")
    response = client.post(url_, data | {"deputation_order": "PS/Dep/4"})
    assert response.status_code == 302
    assert Auction.objects.get().deputy == deputy


def test_schedule_offers_only_officers_of_the_pound(client, police_officer, noticed, other_officer):
    client.force_login(police_officer)
    response = client.get(reverse("auctions:auction_new") + f"?report={noticed[1].pk}")
    officers = list(response.context["form"].fields["officer"].queryset)
    assert officers == [police_officer]


def test_schedule_s16_sale_from_the_case_and_its_gap(
    client, police_officer, pound, pound_keeper, conds, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])
    case = services.open_s16_case(
        entry=entry,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        by=pound_keeper,
        owner_name="Shyam",
        owner_address="Samesi",
    )
    heads = list(entry.animals.order_by("number").values_list("pk", flat=True))
    client.force_login(police_officer)
    url_ = reverse("auctions:auction_new") + f"?case={case.pk}"
    response = client.get(url_)
    assert [f.initial["include"] for f in response.context["formset"].forms] == [True, True]
    before = snapshot()
    today = schedule_data(
        heads, when=local(timezone.now() + timedelta(hours=1)), officer=police_officer
    )
    response = client.post(url_, today)
    gap = (timezone.localdate() + timedelta(days=1)).strftime("%d-%m-%Y")
    assert any(gap in e for e in errors(response, "scheduled_for"))
    assert snapshot() == before
    tomorrow = local(timezone.now() + timedelta(days=1))
    response = client.post(url_, today | {"scheduled_for": tomorrow})
    auction = Auction.objects.get()
    assert response.status_code == 302
    assert auction.kind == Auction.Kind.OWNER_REFUSED and auction.s16_case == case
    assert Event.objects.filter(action="auction.scheduled", section="s.16").exists()


# --- The auction page ---------------------------------------------------------------------------


def test_auction_page_shows_lots_and_bidders_with_the_s19_check(
    client, police_officer, magistrate, auction, bidder, blocked, pound_keeper
):
    client.force_login(police_officer)
    before = snapshot()
    response = client.get(auction.get_absolute_url())
    assert snapshot() == before
    assert response.status_code == 200
    body = response.content.decode()
    assert "Lot 1" in body and "₹1,000.00" in body  # the reserve
    assert "Blocked: may not bid or buy" in body
    assert f"May be {pound_keeper.get_full_name()}" in body
    assert "Only the District Magistrate can clear the block." in body
    override = reverse("auctions:bidder_override", kwargs={"pk": blocked.pk})
    assert override not in body
    assert reverse("auctions:lot_sell", kwargs={"pk": auction.lots.get().pk}) in body
    client.force_login(magistrate)
    body = client.get(auction.get_absolute_url()).content.decode()
    assert override in body
    assert reverse("auctions:bidder_new", kwargs={"pk": auction.pk}) not in body


def test_auction_page_links_each_sale_certificate(client, police_officer, auction, bidder, lot):
    sale = services.sell_lot(lot=lot, buyer=bidder, price=Decimal("5000.00"), by=police_officer)
    client.force_login(police_officer)
    body = client.get(auction.get_absolute_url()).content.decode()
    assert reverse("auctions:sale_certificate_pdf", kwargs={"pk": sale.pk}) in body
    assert sale.certificate.number in body


# --- Bidders ------------------------------------------------------------------------------------


def bidder_data(**kw):
    return {
        "idempotency_key": str(uuid.uuid4()),
        "name": "Ram Kishore",
        "address": "Village Samesi",
        "id_kind": "voter",
        "id_number": "UP/55/123",
        "phone": "9812345678",
        "declaration_signed": "on",
    } | kw


def test_bidder_form_shows_the_declaration_and_writes_nothing(client, police_officer, auction):
    client.force_login(police_officer)
    before = snapshot()
    response = client.get(reverse("auctions:bidder_new", kwargs={"pk": auction.pk}))
    assert response.status_code == 200
    assert "I am not an officer of police or a pound-keeper." in response.content.decode()
    assert snapshot() == before


def test_bidder_registered(client, police_officer, auction):
    client.force_login(police_officer)
    response = client.post(reverse("auctions:bidder_new", kwargs={"pk": auction.pk}), bidder_data())
    bidder = Bidder.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"{auction.get_absolute_url()}#bidder-{bidder.pk}"
    assert not bidder.blocked and bidder.may_buy
    assert Event.objects.filter(action="auction.bidder_registered", section="s.19").exists()


def test_bidder_without_the_declaration_is_refused(client, police_officer, auction):
    client.force_login(police_officer)
    before = snapshot()
    response = client.post(
        reverse("auctions:bidder_new", kwargs={"pk": auction.pk}),
        bidder_data(declaration_signed="", phone="12"),
    )
    assert response.status_code == 200
    assert errors(response, "declaration_signed") and errors(response, "phone")
    assert snapshot() == before


def test_staff_bidder_is_blocked_and_told_why(client, police_officer, auction, pound_keeper):
    client.force_login(police_officer)
    response = client.post(
        reverse("auctions:bidder_new", kwargs={"pk": auction.pk}),
        bidder_data(name=pound_keeper.get_full_name()),
        follow=True,
    )
    bidder = Bidder.objects.get()
    assert bidder.blocked and not bidder.may_buy
    body = response.content.decode()
    assert "s.19 bars them from buying" in body
    assert "Only the District Magistrate can clear him, with a reason." in body
    assert Event.objects.filter(action="auction.bidder_blocked", section="s.19").exists()


def test_magistrate_clears_a_blocked_bidder_with_a_reason(
    client, magistrate, auction, blocked, pound_keeper
):
    client.force_login(magistrate)
    url_ = reverse("auctions:bidder_override", kwargs={"pk": blocked.pk})
    before = snapshot()
    response = client.get(url_)
    assert pound_keeper.get_full_name() in response.content.decode()
    assert "similar name" in response.content.decode()
    response = client.post(url_, {"reason": ""})
    assert errors(response, "reason")
    assert snapshot() == before
    response = client.post(url_, {"reason": "A namesake: voter ID and village checked."})
    assert response.status_code == 302
    blocked.refresh_from_db()
    assert blocked.override_by == magistrate and blocked.may_buy
    assert Event.objects.filter(action="auction.block_overridden", section="s.19").exists()


# --- Bids and the hammer ------------------------------------------------------------------------


def sale_data(buyer, **kw):
    return {
        "sale-buyer": buyer.pk,
        "sale-price": "6000",
        "sale-payment_mode": "cash",
        "sale-payment_reference": "",
        "sale-expenses": "150",
    } | kw


def test_lot_page_get_offers_the_forms_and_the_claim_link(
    client, police_officer, auction, lot, bidder, blocked, noticed
):
    client.force_login(police_officer)
    before = snapshot()
    response = client.get(reverse("auctions:lot_sell", kwargs={"pk": lot.pk}))
    assert response.status_code == 200
    assert list(response.context["sale_form"].fields["buyer"].queryset) == [bidder]
    assert list(response.context["bid_form"].fields["bidder"].queryset) == [bidder]
    body = response.content.decode()
    assert noticed[0].register_number in body and "claims before the hammer" in body
    assert snapshot() == before


def test_keeper_at_the_sale_gets_the_release_link(client, pound_keeper, police_officer, lot):
    # The keeper cannot open the sale page; the officer's page names the entry to release from.
    client.force_login(police_officer)
    body = client.get(reverse("auctions:lot_sell", kwargs={"pk": lot.pk})).content.decode()
    entry = lot.animals.get().impoundment
    assert entry.get_absolute_url() in body
    assert reverse("impounding:release", kwargs={"pk": entry.pk}) not in body


def test_bid_recorded(client, police_officer, lot, bidder):
    client.force_login(police_officer)
    url_ = reverse("auctions:lot_sell", kwargs={"pk": lot.pk})
    response = client.post(url_, {"bid": "1", "bid-bidder": bidder.pk, "bid-amount": "2000"})
    assert response.status_code == 302 and response["Location"] == url_
    assert Bid.objects.get().amount == Decimal("2000.00")
    response = client.post(url_, {"bid": "1", "bid-bidder": bidder.pk, "bid-amount": "1500"})
    assert "A bid must beat the highest bid so far, ₹2,000.00." in errors(
        response, "amount", "bid_form"
    )
    assert Bid.objects.count() == 1
    # The hammer form starts from the highest bid.
    response = client.get(url_)
    assert response.context["sale_form"]["price"].value() == Decimal("2000.00")


def test_blocked_bidder_cannot_bid_or_buy_through_the_page(client, police_officer, lot, blocked):
    client.force_login(police_officer)
    url_ = reverse("auctions:lot_sell", kwargs={"pk": lot.pk})
    before = snapshot()
    response = client.post(url_, {"bid": "1", "bid-bidder": blocked.pk, "bid-amount": "2000"})
    assert errors(response, "bidder", "bid_form")
    response = client.post(url_, sale_data(blocked) | {"hammer": "1"})
    assert errors(response, "buyer", "sale_form")
    response = client.post(url_, sale_data(blocked) | {"confirm": "1"})
    assert errors(response, "buyer", "sale_form")
    assert snapshot() == before
    assert lot.animals.get().state == AnimalState.IMPOUNDED


def test_hammer_is_checked_then_recorded(client, police_officer, lot, bidder, auction):
    client.force_login(police_officer)
    url_ = reverse("auctions:lot_sell", kwargs={"pk": lot.pk})
    before = snapshot()
    response = client.post(url_, sale_data(bidder) | {"hammer": "1"})
    assert response.status_code == 200
    assert "auctions/auction/lot_sell_check.html" in [t.name for t in response.templates]
    assert "₹6,000.00" in response.content.decode()
    assert snapshot() == before
    response = client.post(url_, sale_data(bidder) | {"confirm": "1"})
    assert response.status_code == 302
    assert response["Location"] == f"{auction.get_absolute_url()}#lot-1"
    sale = Sale.objects.get()
    assert sale.buyer == bidder and sale.price == Decimal("6000.00")
    assert sale.expenses == Decimal("150.00")
    lot.refresh_from_db()
    assert lot.status == Lot.Status.SOLD
    assert lot.animals.get().state == AnimalState.SOLD
    assert Event.objects.filter(action="auction.sold", section="s.14").exists()
    assert run_checks() == []


def test_check_page_warns_of_the_shortfall_the_sale_then_records(
    client, police_officer, lot, bidder
):
    """Issue 27: the officer sees, before the hammer is recorded, the shortfall that the sale
    will record for the District Magistrate to write off, to the rupee."""
    from auctions.models import Shortfall
    from kernel.formatting import inr

    client.force_login(police_officer)
    url_ = reverse("auctions:lot_sell", kwargs={"pk": lot.pk})
    low = sale_data(bidder, **{"sale-price": "1000"})
    page = client.post(url_, low | {"hammer": "1"}).content.decode()
    assert 'id="shortfall-warning"' in page
    client.post(url_, low | {"confirm": "1"})
    recorded = Shortfall.objects.get(sale__lot=lot)
    assert recorded.total > 0
    assert f"This price leaves a shortfall of {inr(recorded.total)}." in page


def test_check_page_does_not_warn_when_the_price_covers_the_dues(
    client, police_officer, lot, bidder
):
    from auctions.models import Shortfall

    client.force_login(police_officer)
    url_ = reverse("auctions:lot_sell", kwargs={"pk": lot.pk})
    high = sale_data(bidder, **{"sale-price": "500000"})
    page = client.post(url_, high | {"hammer": "1"}).content.decode()
    assert "shortfall-warning" not in page
    client.post(url_, high | {"confirm": "1"})
    assert Sale.objects.filter(lot=lot).exists() and not Shortfall.objects.exists()


def test_an_auction_whose_lots_are_all_decided_no_longer_reads_scheduled(
    client, police_officer, lot, bidder, auction
):
    client.force_login(police_officer)
    assert auction.status_label() == "Scheduled"
    assert "<strong>Scheduled</strong>" in client.get(auction.get_absolute_url()).content.decode()
    client.post(
        reverse("auctions:lot_sell", kwargs={"pk": lot.pk}), sale_data(bidder) | {"confirm": "1"}
    )
    auction.refresh_from_db()
    assert auction.status == Auction.Status.SCHEDULED  # the officer still closes it
    page = client.get(auction.get_absolute_url()).content.decode()
    assert "Held: every lot decided, to be closed" in page
    assert "<strong>Scheduled</strong>" not in page


def test_hammer_sent_twice_leaves_one_sale_and_shows_why(client, police_officer, lot, bidder):
    client.force_login(police_officer)
    url_ = reverse("auctions:lot_sell", kwargs={"pk": lot.pk})
    client.post(url_, sale_data(bidder) | {"confirm": "1"})
    response = client.post(url_, sale_data(bidder) | {"confirm": "1"})
    assert response.status_code == 200
    assert "Lot 1 is not open: it is Sold." in response.context["sale_form"].non_field_errors()
    assert "Lot 1 is not open: it is Sold." in response.content.decode()
    assert Sale.objects.count() == 1
    assert run_checks() == []


def test_hammer_invalid_writes_nothing(client, police_officer, lot, bidder):
    client.force_login(police_officer)
    url_ = reverse("auctions:lot_sell", kwargs={"pk": lot.pk})
    before = snapshot()
    response = client.post(
        url_,
        sale_data(bidder, **{"sale-expenses": "500", "sale-payment_mode": "upi"}) | {"hammer": "1"},
    )
    assert "at most ₹200.00 a lot" in errors(response, "expenses", "sale_form")[0]
    assert errors(response, "payment_reference", "sale_form")
    response = client.post(url_, sale_data(bidder, **{"sale-price": "500"}) | {"confirm": "1"})
    assert "The price is below the reserve of ₹1,000.00." in errors(response, "price", "sale_form")
    assert snapshot() == before


def test_lot_claimed_before_the_hammer_is_withdrawn(
    client, police_officer, pound_keeper, lot, bidder
):
    entry = lot.animals.get().impoundment
    pay(entry, pound_keeper)
    lot.refresh_from_db()
    assert lot.status == Lot.Status.WITHDRAWN
    client.force_login(police_officer)
    response = client.post(
        reverse("auctions:lot_sell", kwargs={"pk": lot.pk}), sale_data(bidder) | {"confirm": "1"}
    )
    assert "is not open" in response.content.decode()
    assert not Sale.objects.exists()


# --- Lots not sold, and closing ------------------------------------------------------------------


def test_lot_marked_not_sold_can_be_offered_again_or_proposed_for_disposal(
    client, police_officer, dm_clerk, lot, auction, pound
):
    client.force_login(police_officer)
    url_ = reverse("auctions:lot_unsold", kwargs={"pk": lot.pk})
    before = snapshot()
    assert client.get(url_).status_code == 200
    assert snapshot() == before
    response = client.post(url_, {"note": "No bid reached the reserve"})
    assert response.status_code == 302
    lot.refresh_from_db()
    assert lot.status == Lot.Status.UNSOLD and lot.note == "No bid reached the reserve"
    assert Event.objects.filter(action="auction.unsold", section="s.14").exists()
    body = client.get(auction.get_absolute_url()).content.decode()
    assert f"{reverse('auctions:auction_new')}?pound={pound.pk}" in body
    # The animal is free to be offered at a new auction.
    response = client.get(reverse("auctions:auction_new") + f"?pound={pound.pk}")
    assert len(response.context["formset"].forms) == 1
    client.force_login(dm_clerk)
    body = client.get(auction.get_absolute_url()).content.decode()
    assert f"{reverse('auctions:disposal_new')}?lot={lot.pk}" in body


def test_lot_not_open_cannot_be_marked_not_sold(client, police_officer, lot, bidder):
    services.sell_lot(lot=lot, buyer=bidder, price=Decimal("5000.00"), by=police_officer)
    client.force_login(police_officer)
    before = snapshot()
    response = client.post(reverse("auctions:lot_unsold", kwargs={"pk": lot.pk}), {"note": ""})
    assert "This lot is not open." in response.context["form"].non_field_errors()
    assert snapshot() == before


def test_auction_closed_once_every_lot_is_done(client, police_officer, auction, lot, bidder):
    client.force_login(police_officer)
    url_ = reverse("auctions:auction_close", kwargs={"pk": auction.pk})
    before = snapshot()
    assert client.get(url_).status_code == 200
    response = client.post(url_)
    assert (
        "Every lot must be sold, withdrawn or marked not sold first." in response.content.decode()
    )
    assert snapshot() == before
    services.sell_lot(lot=lot, buyer=bidder, price=Decimal("5000.00"), by=police_officer)
    response = client.post(url_)
    assert response.status_code == 302
    auction.refresh_from_db()
    assert auction.status == Auction.Status.CLOSED and auction.officer_declaration_at
    assert Event.objects.filter(action="auction.closed", section="s.14").exists()
    assert run_checks() == []


# --- The s.16 running account on the auction page ------------------------------------------------


def test_s16_auction_page_shows_the_running_account_until_covered(
    client, police_officer, pound, pound_keeper, conds, tariffs
):
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow(), cow()],
        arrived_at=timezone.now() - timedelta(days=3),
    )
    case = services.open_s16_case(
        entry=entry,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        by=pound_keeper,
        owner_name="Shyam",
        owner_address="Samesi",
    )
    S16Case.objects.filter(pk=case.pk).update(recorded_at=timezone.now() - timedelta(days=2))
    first, second = entry.animals.order_by("number")
    auction = services.schedule_auction(
        pound=pound,
        kind=Auction.Kind.OWNER_REFUSED,
        by=police_officer,
        s16_case=S16Case.objects.get(pk=case.pk),
        scheduled_for=timezone.now(),
        lots=[[first.pk], [second.pk]],
        officer=police_officer,
    )
    buyer = register(auction, police_officer)
    client.force_login(police_officer)
    body = client.get(auction.get_absolute_url()).content.decode()
    position = services.s16_position(case)
    assert "Running account (s.16)" in body and "Still to cover" in body
    owed = position["owed"]
    lot1, lot2 = auction.lots.order_by("sequence")
    client.post(
        reverse("auctions:lot_sell", kwargs={"pk": lot1.pk}),
        sale_data(buyer, **{"sale-price": str(owed + 100), "sale-expenses": "0"})
        | {"confirm": "1"},
    )
    body = client.get(auction.get_absolute_url()).content.decode()
    assert "Dues covered: stop selling." in body
    lot2.refresh_from_db()
    assert lot2.status == Lot.Status.NOT_NEEDED
    response = client.post(
        reverse("auctions:lot_sell", kwargs={"pk": lot2.pk}), sale_data(buyer) | {"confirm": "1"}
    )
    assert "is not open" in response.content.decode()
    assert Sale.objects.count() == 1
    assert Event.objects.filter(action="auction.sold", section="s.16").exists()
    assert run_checks() == []


def test_animals_the_owner_refused_to_pay_for_are_not_offered_under_s14(
    client, police_officer, pound_keeper, pound, noticed
):
    entry = noticed[0]
    services.open_s16_case(
        entry=entry,
        animal_ids=[entry.animals.get().pk],
        by=pound_keeper,
        owner_name="Shyam",
        owner_address="Samesi",
    )
    client.force_login(police_officer)
    response = client.get(reverse("auctions:auction_new") + f"?pound={pound.pk}")
    assert response.context["formset"].forms == []


# --- Rules checked on the first page where they can be known ------------------------------


def test_before_the_announced_hour_the_lot_page_says_so_and_takes_no_bid(
    client, police_officer, lot, bidder, time_machine
):
    time_machine.move_to(lot.auction.scheduled_for - timedelta(hours=1))
    client.force_login(police_officer)
    url = reverse("auctions:lot_sell", args=[lot.pk])

    page = client.get(url).content.decode()
    bid = client.post(url, {"bid": "1", "bid-bidder": bidder.pk, "bid-amount": "5000"})
    hammer = client.post(url, sale_data(bidder) | {"hammer": "1"})

    assert 'id="not-yet"' in page and "no bid is taken" in page
    assert 'name="amount"' not in page and 'name="hammer"' not in page
    assert not Bid.objects.exists()
    assert bid.templates[0].name == hammer.templates[0].name == "auctions/auction/lot_sell.html"
    assert "eighth day" not in hammer.content.decode()
    assert not Sale.objects.exists()


def test_schedule_page_without_lots_has_no_schedule_button(client, police_officer, pound):
    client.force_login(police_officer)

    page = client.get(reverse("auctions:auction_new"), {"pound": pound.pk}).content.decode()

    assert "No animal of this pound has a notice posted" in page
    assert "Schedule the auction</button>" not in page


def test_after_both_drums_the_next_step_is_scheduling(
    client, police_officer, pound, pound_keeper, conds, tariffs
):
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9, drums=False
    )
    client.force_login(police_officer)
    url = reverse("auctions:report", args=[report.pk])
    before = client.get(url).content.decode()
    assert 'id="drums-done"' not in before
    # No way offered to a scheduling the service would refuse (s.14): the drums come first.
    assert 'id="drums-first"' in before
    assert f"?report={report.pk}" not in before
    for channel in ("drum_village", "drum_market"):
        services.record_proclamation(
            notice=notice,
            by=police_officer,
            channel=channel,
            made_on=notice.posted_on,
            made_by="Chowkidar Ram",
            place="Chaupal",
        )

    page = client.get(url).content.decode()

    assert 'id="drums-done"' in page
    assert f'href="{reverse("auctions:auction_new")}?report={report.pk}"' in page
    assert "Record a further proclamation" in page
