"""The rules that live on the auction models, asked alike by the services and the pages: another
person decides a disposal order than the one who prepared it, a s.16 sale waits the gap the
Magistrate's conditions set after the refusal, and only a bidder s.19 lets buy is a buyer."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone, translation

from auctions import services
from auctions.forms.auction import buyers
from auctions.models import AuctionConditions, Bidder, DisposalOrder, S16Case
from tests.auctions.factories import conditions, ready_for_sale, refused, schedule
from tests.impounding.factories import cow, make_entry

ORDER_REFUSAL = "You prepared this order: another person decides it."


# --- A disposal order: whoever prepared it does not decide it -----------------------------------


def test_a_disposal_order_may_be_decided_by_anyone_but_its_preparer(dm_clerk, magistrate):
    order = DisposalOrder(prepared_by=magistrate)

    assert not order.may_be_decided_by(magistrate)
    assert order.may_be_decided_by(dm_clerk)
    order.check_decider(dm_clerk)
    with pytest.raises(PermissionDenied) as refusal:
        order.check_decider(magistrate)
    assert str(refusal.value) == ORDER_REFUSAL


def test_the_preparer_is_refused_in_the_readers_language(magistrate):
    order = DisposalOrder(prepared_by=magistrate)

    with translation.override("hi"):
        hindi = translation.gettext(ORDER_REFUSAL)
        with pytest.raises(PermissionDenied) as refusal:
            order.check_decider(magistrate)

    assert str(refusal.value) == hindi != ORDER_REFUSAL


@pytest.fixture
def proposed_by_the_magistrate(pound, district, pound_keeper, police_officer, magistrate, tariffs):
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow()]
    )
    return services.propose_disposal(
        pound=pound,
        animal_ids=[a.pk for a in entry.animals.all()],
        by=magistrate,
        reason="Old and lame: no bid at two auctions",
        mode=DisposalOrder.Mode.GAUSHALA,
        recipient="Gaushala",
    )


def test_the_decision_page_refuses_the_magistrate_who_prepared_the_order(
    client, proposed_by_the_magistrate, magistrate
):
    order = proposed_by_the_magistrate
    client.force_login(magistrate)
    url = reverse("auctions:disposal_decide", kwargs={"pk": order.pk})

    assert client.get(url).status_code == 403
    assert client.post(url, {"approve": "1"}).status_code == 403
    order.refresh_from_db()
    assert (order.status, order.decided_by) == (DisposalOrder.Status.PROPOSED, None)


# --- A s.16 sale: from the gap after the refusal ------------------------------------------------


@pytest.mark.parametrize(
    ("recorded", "gap", "first"),
    [
        # Stored in UTC, as the database gives it back; the day of the refusal is the IST one.
        (datetime(2026, 3, 10, 18, 0, tzinfo=UTC), 0, date(2026, 3, 10)),  # 23:30 IST
        (datetime(2026, 3, 10, 19, 0, tzinfo=UTC), 0, date(2026, 3, 11)),  # 00:30 IST
        (datetime(2026, 3, 10, 3, 30, tzinfo=UTC), 3, date(2026, 3, 13)),  # 09:00 IST
    ],
)
def test_a_s16_sale_may_be_held_from_the_gap_after_the_refusal(recorded, gap, first):
    case = S16Case(recorded_at=recorded)

    assert case.first_sale_day(AuctionConditions(s16_min_gap_days=gap)) == first


def test_the_scheduling_page_shows_the_first_day_the_service_allows(
    client, pound, district, dm_clerk, pound_keeper, police_officer, tariffs
):
    in_force = conditions(district, by=dm_clerk, s16_min_gap_days=3)
    entry = make_entry(pound=pound, by=pound_keeper)
    case = refused(entry, pound_keeper, days_ago=1)
    client.force_login(police_officer)

    response = client.get(reverse("auctions:auction_new") + f"?case={case.pk}")

    assert response.context["gap_from"] == case.first_sale_day(in_force)
    assert response.context["gap_from"] == timezone.localdate() + timedelta(days=2)


# --- s.19: who may buy --------------------------------------------------------------------------


@pytest.fixture
def auction(pound, district, pound_keeper, police_officer, tariffs):
    conditions(district)
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    return schedule(pound, police_officer, [entry.animals.all()])


@pytest.mark.parametrize(
    ("signed", "blocked", "cleared", "refusal"),
    [
        (True, False, False, None),
        (False, False, False, "has not signed the declaration"),
        (True, True, False, "is blocked"),
        (True, True, True, None),
        (False, True, True, "has not signed the declaration"),
    ],
)
def test_only_a_bidder_s19_lets_buy_is_a_buyer(
    auction, police_officer, magistrate, signed, blocked, cleared, refusal
):
    bidder = Bidder.objects.create(
        auction=auction,
        number=1,
        name="Ram Prasad",
        address="Samesi",
        id_kind=Bidder.IdKind.VOTER,
        id_number="UP/12/345",
        phone="9000000001",
        declaration_signed=signed,
        blocked=blocked,
        override_by=magistrate if cleared else None,
        override_reason="A namesake: his voter card was checked" if cleared else "",
        registered_by=police_officer,
    )
    expected = [] if refusal else [bidder]

    assert bidder.may_buy is (refusal is None)
    assert list(Bidder.objects.may_buy()) == expected
    assert list(buyers(auction)) == expected  # the choice the bid and sale forms offer
    if refusal:
        with pytest.raises(ValidationError, match=refusal):
            bidder.check_may_buy()
    else:
        bidder.check_may_buy()
