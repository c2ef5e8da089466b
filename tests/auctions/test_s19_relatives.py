"""s.19 "directly or indirectly" (ADR 0057): a bidder is checked against the relatives each
member of staff declared and against the pounds' own addresses, as against the staff; and one
person is registered once per auction, by the form, the service and the database."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from accounts import services as accounts
from accounts.roles import Role
from auctions import services
from auctions.models import Bid, Bidder
from auctions.staffcheck import staff_matches
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from tests.accounts.factories import staff
from tests.auctions.factories import conditions, ready_for_sale, register, schedule
from tests.auctions.test_views_auction import bidder_data


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


def declare(user, **kw):
    fields = dict(
        name="Ramesh Kumar Verma",
        name_hi="रमेश कुमार वर्मा",
        relation="sibling",
        phone="9811100011",
        id_number="UPV7778881",
    )
    return accounts.declare_relative(user=user, by=user, **(fields | kw))


@pytest.fixture
def brother(pound_keeper):
    """The pound-keeper's brother, declared by her."""
    return declare(pound_keeper)


@pytest.fixture
def auction(pound, district, pound_keeper, police_officer, tariffs):
    conditions(district)
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    return schedule(pound, police_officer, [entry.animals.all()])


# --- A declared relative ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"name": "Ramesh Verma"}, ["name"]),  # the middle name left out
        ({"name": "Shri Ramesh K. Verma"}, ["name"]),  # a title, an initial
        ({"name": "रमेश वर्मा"}, ["name"]),  # the Hindi name
        ({"name": "Gopal Das", "phone": "+91 98111 00011"}, ["phone"]),
        ({"name": "Gopal Das", "id_number": "upv-777-8881"}, ["id"]),
    ],
)
def test_a_declared_relative_is_blocked(
    auction, police_officer, pound_keeper, brother, fields, why
):
    bidder = register(auction, police_officer, **fields)

    assert bidder.blocked and not bidder.may_buy
    (match,) = bidder.matches
    assert (match["user"], match["relative"], match["relation"]) == (
        pound_keeper.pk,
        brother.pk,
        "sibling",
    )
    assert match["why"] == why
    assert "Ramesh" not in str(bidder.matches)  # the relative's name stays in his declaration
    event = Event.objects.get(action="auction.bidder_blocked")
    assert (event.section, event.data["matches"]) == ("s.19", bidder.matches)


def test_a_stranger_is_not_matched_to_a_relative(auction, police_officer, brother):
    assert not register(auction, police_officer, name="Ramesh").blocked  # one word: no match
    assert not register(auction, police_officer, name="Suresh Chandra Mishra").blocked


def test_a_relative_of_a_former_officer_is_still_blocked(auction, police_officer, pound):
    former = staff(Role.POUND_KEEPER, "former", pound=pound)
    former.assignments.update(valid_from="2019-01-01", valid_to="2023-03-31")
    declare(former, name="Kishan Lal Yadav", phone="", id_number="")

    assert register(auction, police_officer, name="Kishan Lal Yadav").blocked


def test_the_block_page_says_whose_relative(client, auction, police_officer, brother):
    bidder = register(auction, police_officer, name="Ramesh Verma")
    client.force_login(police_officer)

    page = client.get(auction.get_absolute_url()).content.decode()

    assert "a relative of" in page and "Brother or sister" in page
    assert bidder.blocked


def test_relative_declared_after_registration_is_refused_at_the_hammer(
    auction, police_officer, pound_keeper
):
    bidder = register(auction, police_officer, name="Ramesh Verma")
    assert not bidder.blocked
    declare(pound_keeper)

    with pytest.raises(ValidationError, match="now matches"):
        services.record_bid(
            lot=auction.lots.get(), bidder=bidder, amount=Decimal("1000"), by=police_officer
        )
    assert not Bid.objects.exists()


def test_override_of_a_relatives_block_is_logged(auction, police_officer, magistrate, brother):
    bidder = register(auction, police_officer, name="Ramesh Verma")
    reason = "Another Ramesh Verma, of Samesi: voter ID seen, not the keeper's brother."

    cleared = services.override_block(bidder=bidder, by=magistrate, reason=reason)

    assert cleared.may_buy
    event = Event.objects.get(action="auction.block_overridden")
    assert (event.section, event.by, event.data["reason"]) == ("s.19", magistrate, reason)
    assert event.data["matches"] == bidder.matches


def test_magistrate_cannot_clear_a_match_against_his_own_relative(
    auction, police_officer, magistrate
):
    declare(magistrate, name="Sudha Srivastava", relation="spouse")
    bidder = register(auction, police_officer, name="Sudha Srivastava")

    with pytest.raises(ValidationError, match="against yourself"):
        services.override_block(bidder=bidder, by=magistrate, reason="Not my wife")
    assert not Event.objects.filter(action="auction.block_overridden").exists()


# --- The pound's address ---------------------------------------------------------------------


@pytest.fixture
def pound_with_address(pound):
    pound.address = "Kanji House, Hardoi Road, Malihabad, Lucknow 226102"
    pound.address_hi = "कांजी हाउस, हरदोई रोड, मलिहाबाद, लखनऊ 226102"
    pound.save()
    return pound


@pytest.mark.parametrize(
    "address",
    [
        "Kanji House, Hardoi Road, Malihabad, Lucknow 226102",
        "Quarter 2, Kanji House, Hardoi Road, Malihabad, Lucknow - 226102",
        "kanji house hardoi rd malihabad lucknow 226102",
        "कांजी हाउस, हरदोई रोड, मलिहाबाद, लखनऊ 226102",
    ],
)
def test_a_bidder_living_at_the_pound_is_blocked(
    auction, police_officer, pound_with_address, address
):
    bidder = register(auction, police_officer, address=address)

    assert bidder.blocked
    (match,) = bidder.matches
    assert (match["user"], match["pound"], match["why"]) == (
        None,
        pound_with_address.pk,
        ["address"],
    )
    assert Event.objects.get(action="auction.bidder_blocked").section == "s.19"


@pytest.mark.parametrize("address", ["Malihabad", "Hardoi Road, Malihabad", "Bakshi ka Talab"])
def test_a_neighbour_of_the_pound_is_not_blocked(
    auction, police_officer, pound_with_address, address
):
    assert not register(auction, police_officer, address=address).blocked


def test_a_pound_whose_address_is_a_place_name_blocks_nobody(auction, police_officer, pound):
    pound.address = "Malihabad"
    pound.save()
    assert not register(auction, police_officer, address="Malihabad").blocked


# --- Queries ---------------------------------------------------------------------------------


def test_the_check_takes_two_queries_however_many_staff_and_relatives(
    pound, pound_with_address, django_assert_num_queries
):
    def check():
        return staff_matches(
            name="Ramesh Verma", phone="9811100011", id_number="X1234", address="Kanji House"
        )

    keeper = staff(Role.POUND_KEEPER, "k0", pound=pound)
    declare(keeper)
    with django_assert_num_queries(2):
        few = check()
    for n in range(1, 8):
        keeper = staff(Role.POUND_KEEPER, f"k{n}", pound=pound)
        declare(keeper, name=f"Relative {n} Kumar", phone=f"98111000{n:02d}", id_number="")
        declare(keeper, name=f"Wife {n} Devi", relation="spouse", phone="", id_number="")
    with django_assert_num_queries(2):
        many = check()
    assert len(few) == 1 and len(many) == 1  # the brother, by name and phone


# --- One person, one registration ------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"phone": "+91 91234 56780"}, "phone"),  # bidder 1's phone, written otherwise
        ({"id_number": "upv 1234567"}, "id_number"),  # bidder 1's voter ID
    ],
)
def test_a_second_registration_of_the_same_person_is_refused(
    auction, police_officer, fields, field
):
    first = register(auction, police_officer)
    events = Event.objects.count()
    other = {"phone": "9000011111", "id_number": "UPV9999999"}

    with pytest.raises(ValidationError) as refusal:
        register(auction, police_officer, name="M. S. Qureshi", **(other | fields))

    assert list(refusal.value.message_dict) == [field]
    assert f"Bidder {first.number}" in refusal.value.message_dict[field][0]
    assert (Bidder.objects.count(), Event.objects.count()) == (1, events)


def test_the_same_aadhaar_last_four_digits_are_two_people(auction, police_officer):
    register(auction, police_officer, id_kind="aadhaar", id_number="4321")
    second = register(auction, police_officer, id_kind="aadhaar", id_number="4321")
    assert second.number == 2


def test_the_same_person_may_register_at_another_auction(
    auction, police_officer, pound, pound_keeper
):
    register(auction, police_officer)
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    another = schedule(pound, police_officer, [entry.animals.all()])
    assert register(another, police_officer).number == 1


def test_the_form_refuses_a_second_registration_beside_the_field(client, auction, police_officer):
    client.force_login(police_officer)
    url = reverse("auctions:bidder_new", kwargs={"pk": auction.pk})
    assert client.post(url, bidder_data()).status_code == 302

    response = client.post(url, bidder_data(name="Ram K.", id_number="UP/55/999"))

    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == ["phone"]
    assert "already registered at this auction" in errors["phone"][0]
    assert Bidder.objects.count() == 1


def _raw(auction, by, number, **kw):
    fields = dict(
        name="Mohd. Salim Qureshi",
        address="Bakshi ka Talab",
        id_kind="voter",
        id_number=f"UPV{number}",
        phone=f"900000000{number}",
        declaration_signed=True,
        registered_by=by,
    )
    return Bidder.objects.create(auction=auction, number=number, **(fields | kw))


@pytest.mark.parametrize(
    "same",
    [{"phone": "9000000001"}, {"id_number": "UPV1"}],
)
def test_the_database_holds_one_registration_per_phone_and_document(auction, police_officer, same):
    _raw(auction, police_officer, 1)
    with pytest.raises(IntegrityError), transaction.atomic():
        _raw(auction, police_officer, 2, **same)
    # A registration made before the rule, marked by the migration, stays.
    _raw(auction, police_officer, 3, same_as=1, **same)
    assert Bidder.objects.count() == 2


# --- Checked again ------------------------------------------------------------------------------


def test_a_bidder_who_now_matches_is_blocked_by_a_second_check(
    client, auction, police_officer, pound_keeper, magistrate
):
    bidder = register(auction, police_officer, name="Ramesh Verma")
    declare(pound_keeper)
    client.force_login(police_officer)
    url = reverse("auctions:bidder_recheck", args=[bidder.pk])

    assert client.post(url).status_code == 302

    bidder.refresh_from_db()
    assert bidder.blocked and not bidder.may_buy
    assert [m["relative"] for m in bidder.matches] == [pound_keeper.relatives.get().pk]
    events = Event.objects.filter(action="auction.bidder_blocked")
    assert [(e.section, e.data["bidder"]) for e in events] == [("s.19", bidder.number)]
    client.post(url)  # again: nothing new, nothing logged
    assert Event.objects.filter(action="auction.bidder_blocked").count() == 1

    services.override_block(bidder=bidder, by=magistrate, reason="Another Ramesh Verma")
    lot = auction.lots.get()
    services.record_bid(lot=lot, bidder=bidder, amount=Decimal("1000"), by=police_officer)


def test_a_new_match_voids_an_earlier_clearance(auction, police_officer, magistrate, pound):
    bidder = register(auction, police_officer, name="Ramesh Verma", phone="9811100011")
    assert not bidder.blocked
    keeper = staff(Role.POUND_KEEPER, "new-keeper", pound=pound)
    declare(keeper, phone="")
    services.recheck_bidder(bidder=bidder, by=police_officer)
    services.override_block(bidder=bidder, by=magistrate, reason="Another Ramesh Verma")
    declare(staff(Role.POUND_KEEPER, "second-keeper", pound=pound), name="Gopal", id_number="")

    bidder = services.recheck_bidder(bidder=bidder, by=police_officer)

    assert bidder.blocked and bidder.override_by is None and not bidder.may_buy


def test_only_the_officer_at_the_auction_checks_again(auction, police_officer, outsider, client):
    bidder = register(auction, police_officer)
    client.force_login(outsider)
    assert client.post(reverse("auctions:bidder_recheck", args=[bidder.pk])).status_code in (
        403,
        404,
    )
