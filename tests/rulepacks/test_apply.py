"""The same seizure under each shipped pack: its clocks, dues and disposal; the cow auction the
Uttar Pradesh and Maharashtra packs forbid; and a pack changed mid-stay changing nothing already
running (docs/decisions/0068)."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.models import State
from auctions import services as auctions
from auctions.clocks import report_due
from auctions.models import Auction
from impounding.dues import dues
from impounding.models import Species
from kernel.events import Event
from rulepacks import services
from rulepacks.schema import PackInvalid, Route
from tests.auctions.factories import conditions, ready_for_sale, schedule, unclaimed_entry
from tests.impounding.factories import cow, make_entry
from tests.rulepacks.factories import take

BUFFALO = {"species": Species.BUFFALO}
EXPECTED = {
    # code: (days to the report, routes for a cow, routes for a buffalo)
    "central": (8, {Route.AUCTION, Route.OTHER_LAWFUL}, {Route.AUCTION, Route.OTHER_LAWFUL}),
    "up": (8, {Route.GAUSHALA, Route.OTHER_LAWFUL}, {Route.AUCTION, Route.OTHER_LAWFUL}),
    "mh": (
        8,
        {Route.DECLARED_SALE, Route.GAUSHALA, Route.OTHER_LAWFUL},
        {Route.AUCTION, Route.OTHER_LAWFUL},
    ),
    "kl": (None, {Route.AUCTION, Route.OTHER_LAWFUL}, {Route.AUCTION, Route.OTHER_LAWFUL}),
    "tn": (8, {Route.AUCTION, Route.OTHER_LAWFUL}, {Route.AUCTION, Route.OTHER_LAWFUL}),
}


def test_every_shipped_pack_is_run_through_the_same_seizure():
    """A pack added to the repository is added to the table above, or this fails."""
    assert {path.parent.name for path in services.shipped_files()} == set(EXPECTED)


@pytest.mark.parametrize("code", EXPECTED)
def test_the_same_seizure_gives_each_packs_dues_clocks_and_disposal(
    code, district, pound, pound_keeper, tariffs
):
    pack = take(district, code)
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, animals=[cow(), cow(**BUFFALO)])
    days, cow_routes, buffalo_routes = EXPECTED[code]

    rules = services.pack_of(entry.rule_pack_id).rules
    due = report_due(entry)
    statement = dues(entry.animals.select_related("impoundment__pound__district"))

    assert entry.rule_pack_id == pack.pk
    assert due == (entry.arrival_date() + timedelta(days=days) if days else None)
    assert set(rules.routes_for("cattle").routes) == cow_routes
    assert set(rules.routes_for("buffalo").routes) == buffalo_routes
    # Every shipped pack leaves the fines and feeding to the district's notified tariffs, so
    # the dues are those of the district's orders under each.
    assert rules.fines.source == rules.feeding.source == "district"
    assert statement.total > 0


def test_under_a_pack_that_leaves_the_claim_period_the_report_is_refused(
    district, pound, pound_keeper, tariffs
):
    take(district, "kl")
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper)

    with pytest.raises(ValidationError, match="left|leaves this period for the State"):
        auctions.send_report(entry=entry, by=pound_keeper)
    assert not entry.reports.exists()


@pytest.mark.parametrize(
    ("code", "law"),
    [
        ("up", "Uttar Pradesh Prevention of Cow Slaughter Act, 1955"),
        ("mh", "Maharashtra Animal Preservation Act, 1976"),
    ],
)
def test_an_auction_of_a_cow_is_refused_citing_the_state_law(
    code, law, district, pound, pound_keeper, police_officer, tariffs
):
    take(district, code)
    conditions(district)
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)

    with pytest.raises(ValidationError) as refused:
        schedule(pound, police_officer, [entry.animals.all()])

    message = refused.value.message_dict["lots"][0]
    assert law in message and "may not be sold at auction" in message
    assert f"{code} 0.1" in message
    assert not Auction.objects.filter(pound=pound).exists()


def test_a_buffalo_may_be_auctioned_under_the_uttar_pradesh_pack(
    district, pound, pound_keeper, police_officer, tariffs
):
    take(district, "up")
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(**BUFFALO)]
    )

    auction = schedule(pound, police_officer, [entry.animals.all()])

    assert auction.lots.count() == 1


def test_a_cow_may_be_auctioned_under_the_central_act(
    district, pound, pound_keeper, police_officer, tariffs
):
    conditions(district)
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)

    assert schedule(pound, police_officer, [entry.animals.all()]).lots.count() == 1


def test_changing_the_districts_pack_mid_stay_changes_nothing_already_running(
    district, pound, pound_keeper, police_officer, tariffs
):
    """The cows came in under the central Act: the district then takes the Uttar Pradesh pack,
    and later Kerala's. Their clocks keep running, and their auction is still lawful; a new
    entry takes the new pack."""
    conditions(district)
    entry, notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    later = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=10)
    due_before = report_due(later)

    take(district, "up")
    auction = schedule(pound, police_officer, [entry.animals.all()])
    take(district, "kl")
    report = auctions.send_report(entry=later, by=pound_keeper)
    newcomer = make_entry(pound=pound, by=pound_keeper)

    assert auction.lots.count() == 1
    assert report_due(later) == due_before and report.impoundment == later
    assert entry.rule_pack.code == later.rule_pack.code == "central"
    assert newcomer.rule_pack.code == "kl" and report_due(newcomer) is None


def test_every_event_records_the_pack_its_version_and_the_states_section(
    district, pound, pound_keeper, tariffs
):
    take(district, "kl")
    entry = make_entry(pound=pound, by=pound_keeper)
    take(district, "up")
    conditions(district)  # a district-wide change, under the pack the district takes now

    entered = Event.objects.get(action="register.entered", impoundment_id=entry.pk)
    set_conditions = Event.objects.filter(district_id=district.pk, impoundment_id=None).latest("at")
    # Kerala's Act numbers its sections otherwise; the draft leaves s.8's number to the State.
    assert entered.data["_pack"] == {"pack": "kl", "version": "0.1", "section": None}
    assert set_conditions.data["_pack"]["pack"] == "up"


def test_a_pack_for_another_state_is_refused(district, administrator):
    other = take(district, "central")
    services.load_shipped("mh")
    mh = type(other).objects.get(code="mh")

    with pytest.raises(PackInvalid):
        services.choose_pack(district=district, pack=mh, by=administrator)


def test_the_administrator_chooses_the_states_pack_and_it_is_recorded(district, administrator):
    services.load_shipped("up")
    up = type(take(district, "central")).objects.get(code="up")
    assert district.state.code == State.objects.get(pk=district.state_id).code == "up"

    services.choose_pack(district=district, pack=up, by=administrator)

    assert services.pack_for(district).code == "up"
    chosen = Event.objects.get(action="rulepack.chosen")
    assert chosen.data["version"] == "0.1" and chosen.data["before"] == "central 2026.1"
    assert timezone.now() - chosen.at < timedelta(minutes=1)
