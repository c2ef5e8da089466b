"""s.19: no officer of police, pound-keeper or other officer under the Act may buy, directly or
indirectly. Every bidder is checked against the staff records, and a match blocks him unless
the Magistrate clears it with a reason."""

from datetime import date
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from accounts.models import StaffAssignment
from accounts.roles import Role
from auctions import services
from auctions.models import Bid, Bidder, Sale
from auctions.staffcheck import staff_matches
from impounding.models import AnimalState
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Transaction
from tests.accounts.factories import UserFactory, staff
from tests.auctions.factories import conditions, ready_for_sale, refused, register, schedule
from tests.impounding.factories import make_entry


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


def named(user, first, last, name_hi="", phone=None, id_number=""):
    user.first_name, user.last_name, user.name_hi = first, last, name_hi
    user.id_number = id_number
    if phone is not None:
        user.phone = phone
    user.save()
    return user


@pytest.fixture
def sunil(pound):
    """A second pound-keeper of the pound, with a Hindi name, a phone and a service ID."""
    user = staff(Role.POUND_KEEPER, "sunil", pound=pound)
    return named(
        user,
        "Sunil Kumar",
        "Verma",
        name_hi="सुनील कुमार वर्मा",
        phone="9876543210",
        id_number="UP-PK-4471",
    )


def matched(name="", phone="", id_number=""):
    return [m["user"] for m in staff_matches(name=name, phone=phone, id_number=id_number)]


# --- Matching --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "phone", ["9876543210", "+91 98765 43210", "098765-43210", "91-9876543210"]
)
def test_same_phone_matches(sunil, phone):
    (match,) = staff_matches(name="Gopal Das Agrawal", phone=phone)
    assert (match["user"], match["why"], match["score"]) == (sunil.pk, ["phone"], 100)


def test_short_or_different_phone_does_not_match(sunil):
    assert matched(name="Gopal Das Agrawal", phone="43210") == []
    assert matched(name="Gopal Das Agrawal", phone="9876543211") == []


@pytest.mark.parametrize("id_number", ["UP-PK-4471", "up pk 4471", "UPPK4471"])
def test_same_identity_number_matches(sunil, id_number):
    (match,) = staff_matches(name="Gopal Das Agrawal", id_number=id_number)
    assert (match["user"], match["why"]) == (sunil.pk, ["id"])


def test_very_short_identity_number_does_not_match(pound):
    named(staff(Role.POUND_KEEPER, "short-id", pound=pound), "Hari", "Om", id_number="12")
    assert matched(name="Gopal Das Agrawal", id_number="12") == []


@pytest.mark.parametrize(
    ("name", "matches"),
    [
        ("Sunil Kumar Verma", True),
        ("Sunil Verma", True),  # the middle name left out
        ("sunil  KUMAR verma", True),
        ("Verma Sunil Kumar", True),  # the order of the names
        ("Sunil Kumar Varma", True),  # a spelling
        ("Shri Sunil Kumar Verma", True),  # a title
        ("Sri Sunil Verma", True),
        ("Dr. Sunil K. Verma", True),
        ("सुनील कुमार वर्मा", True),  # the Hindi name
        ("सुनील वर्मा", True),
        ("श्री सुनील कुमार वर्मा", True),  # a Hindi title
        ("Sunil", False),  # one word does not match a longer name
        ("Verma", False),
        ("सुनील", False),
        ("वर्मा", False),
        ("राम", False),
        ("अनिल शर्मा", False),
        ("Anil Sharma", False),
        ("Mohd. Salim Qureshi", False),
    ],
)
def test_names_match_fuzzily_but_not_on_one_word(sunil, name, matches):
    assert matched(name=name) == ([sunil.pk] if matches else [])


def test_one_word_name_matches_the_same_one_word_name(pound):
    mononym = named(staff(Role.POUND_KEEPER, "mononym", pound=pound), "Bhola", "")
    assert matched(name="Shri Bhola") == [mononym.pk]


def test_former_staff_still_match(pound):
    former = named(UserFactory(username="former"), "Jagdish Prasad", "Tiwari")
    StaffAssignment.objects.create(
        user=former,
        role=Role.POUND_KEEPER,
        pound=pound,
        valid_from=date(2019, 1, 1),
        valid_to=date(2023, 3, 31),
    )
    assert matched(name="Jagdish Prasad Tiwari") == [former.pk]


def test_someone_who_never_held_an_appointment_does_not_match(pound):
    named(UserFactory(username="no-role"), "Kamlesh", "Pandey", phone="9811122233")
    assert matched(name="Kamlesh Pandey", phone="9811122233") == []


# --- Registration ------------------------------------------------------------------------------


@pytest.fixture
def sale_ready(pound, district, pound_keeper, police_officer, tariffs):
    conditions(district)
    entry, _ = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    return entry


@pytest.fixture
def auction(sale_ready, pound, police_officer):
    return schedule(pound, police_officer, [sale_ready.animals.all()])


def test_stranger_is_registered_and_not_blocked(auction, police_officer):
    bidder = register(auction, police_officer)

    assert (bidder.number, bidder.blocked, bidder.matches, bidder.may_buy) == (1, False, [], True)
    event = Event.objects.get(action="auction.bidder_registered")
    assert (event.section, event.data["bidder"], event.data["matches"]) == ("s.19", 1, [])


def test_staff_member_is_blocked_at_registration(auction, police_officer, sunil):
    bidder = register(auction, police_officer, name="Sunil Verma", phone="9123456700")

    assert bidder.blocked and not bidder.may_buy
    assert [m["user"] for m in bidder.matches] == [sunil.pk]
    event = Event.objects.get(action="auction.bidder_blocked")
    assert event.section == "s.19"
    assert "Sunil Kumar Verma" in event.summary
    assert event.data["matches"][0]["why"] == ["name"]


def test_declaration_is_required(auction, police_officer):
    events = Event.objects.count()

    with pytest.raises(ValidationError) as refusal:
        register(auction, police_officer, declaration_signed=False)

    assert "declaration_signed" in refusal.value.message_dict
    assert (Bidder.objects.count(), Event.objects.count()) == (0, events)


def test_bidders_registered_only_by_the_officer(auction, pound_keeper, dm_clerk):
    for user in (pound_keeper, dm_clerk):
        with pytest.raises(PermissionDenied):
            register(auction, user)

    assert not Bidder.objects.exists()


# --- A blocked bidder can neither bid nor buy ----------------------------------------------------


@pytest.fixture
def blocked(auction, police_officer, sunil):
    return register(auction, police_officer, name="Sunil Verma", phone="9123456700")


def nothing_sold(auction, before):
    assert (Sale.objects.count(), Bid.objects.count(), Transaction.objects.count()) == before
    assert auction.lots.get().animals.get().state == AnimalState.IMPOUNDED


def test_blocked_bidder_cannot_bid(auction, blocked, police_officer):
    before = (Sale.objects.count(), Bid.objects.count(), Transaction.objects.count())

    with pytest.raises(ValidationError, match="blocked"):
        services.record_bid(
            lot=auction.lots.get(), bidder=blocked, amount=Decimal("1000"), by=police_officer
        )

    nothing_sold(auction, before)


def test_blocked_bidder_cannot_buy(auction, blocked, police_officer):
    before = (Sale.objects.count(), Bid.objects.count(), Transaction.objects.count())

    with pytest.raises(ValidationError, match="blocked"):
        services.sell_lot(
            lot=auction.lots.get(), buyer=blocked, price=Decimal("35000"), by=police_officer
        )

    nothing_sold(auction, before)


def test_blocked_bidder_cannot_buy_through_an_altered_copy_of_his_record(
    auction, blocked, police_officer
):
    before = (Sale.objects.count(), Bid.objects.count(), Transaction.objects.count())
    blocked.blocked, blocked.matches = False, []

    with pytest.raises(ValidationError, match="blocked"):
        services.record_bid(
            lot=auction.lots.get(), bidder=blocked, amount=Decimal("1000"), by=police_officer
        )
    with pytest.raises(ValidationError, match="blocked"):
        services.sell_lot(
            lot=auction.lots.get(), buyer=blocked, price=Decimal("35000"), by=police_officer
        )

    nothing_sold(auction, before)


def test_blocked_bidder_cannot_buy_at_a_s16_sale(
    pound, pound_keeper, police_officer, district, tariffs, sunil
):
    conditions(district)
    entry = make_entry(pound=pound, by=pound_keeper)
    case = refused(entry, pound_keeper)
    auction = schedule(pound, police_officer, [entry.animals.all()], kind="s16", s16_case=case)
    staff_bidder = register(auction, police_officer, name="सुनील वर्मा", phone="9123456700")
    before = (Sale.objects.count(), Bid.objects.count(), Transaction.objects.count())

    with pytest.raises(ValidationError, match="blocked"):
        services.sell_lot(
            lot=auction.lots.get(), buyer=staff_bidder, price=Decimal("35000"), by=police_officer
        )

    nothing_sold(auction, before)


# --- The Magistrate's override --------------------------------------------------------------------


@pytest.mark.parametrize("who", ["dm_clerk", "police_officer", "pound_keeper", "auditor"])
def test_only_the_magistrate_may_override(request, blocked, who):
    user = request.getfixturevalue(who)
    events = Event.objects.count()

    with pytest.raises(PermissionDenied):
        services.override_block(bidder=blocked, by=user, reason="A namesake")

    blocked.refresh_from_db()
    assert blocked.override_by is None
    assert Event.objects.count() == events


def test_override_needs_a_reason(blocked, magistrate):
    events = Event.objects.count()

    with pytest.raises(ValidationError) as refusal:
        services.override_block(bidder=blocked, by=magistrate, reason="   ")

    assert "reason" in refusal.value.message_dict
    blocked.refresh_from_db()
    assert blocked.override_by is None
    assert Event.objects.count() == events


def test_magistrate_override_is_logged_and_lets_the_bidder_buy(
    auction, blocked, magistrate, police_officer
):
    reason = "A namesake: a farmer of Samesi, known to the tehsildar; ID seen."

    cleared = services.override_block(bidder=blocked, by=magistrate, reason=reason)

    assert (cleared.override_by, cleared.override_reason) == (magistrate, reason)
    assert cleared.override_at and cleared.blocked and cleared.may_buy
    event = Event.objects.get(action="auction.block_overridden")
    assert (event.section, event.by, event.data["reason"]) == ("s.19", magistrate, reason)
    assert event.data["matches"] == blocked.matches
    lot = auction.lots.get()
    services.record_bid(lot=lot, bidder=cleared, amount=Decimal("30000"), by=police_officer)
    sale = services.sell_lot(lot=lot, buyer=cleared, price=Decimal("31000"), by=police_officer)
    assert sale.buyer == cleared


def test_override_of_a_bidder_not_blocked_refused(auction, police_officer, magistrate):
    bidder = register(auction, police_officer)

    with pytest.raises(ValidationError, match="not blocked"):
        services.override_block(bidder=bidder, by=magistrate, reason="Why not")


def test_magistrate_cannot_clear_a_match_against_himself(auction, police_officer, magistrate):
    named(magistrate, "Alok Ranjan", "Srivastava")
    himself = register(auction, police_officer, name="Alok Ranjan Srivastava")
    assert [m["user"] for m in himself.matches] == [magistrate.pk]

    with pytest.raises(ValidationError, match="against yourself"):
        services.override_block(bidder=himself, by=magistrate, reason="It is not me")

    himself.refresh_from_db()
    assert himself.override_by is None
    assert not Event.objects.filter(action="auction.block_overridden").exists()


# --- A bidder who becomes a match after registration ---------------------------------------------


def test_bidder_who_becomes_staff_after_registration_is_refused_at_the_hammer(
    auction, police_officer, pound
):
    bidder = register(auction, police_officer, name="Ravi Shankar Mishra", phone="9123456701")
    assert not bidder.blocked
    newcomer = named(UserFactory(username="newcomer"), "Ravi Shankar", "Mishra")
    StaffAssignment.objects.create(
        user=newcomer, role=Role.POUND_KEEPER, pound=pound, valid_from=date(2024, 4, 1)
    )
    before = (Sale.objects.count(), Bid.objects.count(), Transaction.objects.count())

    with pytest.raises(ValidationError, match="now matches a member of staff"):
        services.record_bid(
            lot=auction.lots.get(), bidder=bidder, amount=Decimal("1000"), by=police_officer
        )
    with pytest.raises(ValidationError, match="now matches a member of staff"):
        services.sell_lot(
            lot=auction.lots.get(), buyer=bidder, price=Decimal("35000"), by=police_officer
        )

    nothing_sold(auction, before)


def test_override_does_not_cover_a_new_match(auction, blocked, magistrate, police_officer, pound):
    services.override_block(bidder=blocked, by=magistrate, reason="A namesake")
    # A new pound-keeper is appointed whose phone is the bidder's.
    named(
        staff(Role.POUND_KEEPER, "new-keeper", pound=pound), "Lal", "Bahadur", phone=blocked.phone
    )
    before = (Sale.objects.count(), Bid.objects.count(), Transaction.objects.count())

    with pytest.raises(ValidationError, match="now matches a member of staff"):
        services.sell_lot(
            lot=auction.lots.get(), buyer=blocked, price=Decimal("35000"), by=police_officer
        )

    nothing_sold(auction, before)
