"""A draft pack says so on every screen that applies it (issue 23): the auction, disposal,
release, s.14 report, gaushala and surplus screens, and the keeper's and office's boards. Under
the central Act, which is verified, none of them does."""

import pytest
from django.urls import reverse

from impounding.models import Impoundment
from rulepacks.models import RulePack
from tests.auctions.factories import conditions, ready_for_sale, schedule
from tests.impounding.factories import make_entry
from tests.office.factories import claim, received_surplus
from tests.rulepacks.factories import take

WARNING = "Unverified: needs the State's notification."

# (who looks, the page's route, which record of the world it shows)
SCREENS = [
    ("police_officer", "auctions:auctions", None),
    ("police_officer", "auctions:auction", "auction"),
    ("police_officer", "auctions:lot_sell", "lot"),
    ("police_officer", "auctions:lot_unsold", "lot"),
    ("police_officer", "auctions:auction_close", "auction"),
    ("police_officer", "auctions:auction_new", None),
    ("police_officer", "auctions:notice_post", "report"),
    ("pound_keeper", "auctions:s16_new", "entry"),
    ("dm_clerk", "auctions:disposals", None),
    ("dm_clerk", "auctions:disposal_new", None),
    ("pound_keeper", "impounding:release", "entry"),
    ("pound_keeper", "impounding:deposit", "entry"),
    ("pound_keeper", "impounding:court_order", "entry"),
    ("pound_keeper", "impounding:today", None),
    ("pound_keeper", "home", None),
    ("magistrate", "office:office", None),
    ("magistrate", "office:todos", None),
    ("pound_keeper", "auctions:reports_due", None),
    ("police_officer", "auctions:reports", None),
    ("police_officer", "auctions:report", "report"),
    ("dm_clerk", "auctions:handover_new", None),
    ("dm_clerk", "auctions:upkeep_claims", None),
    ("dm_clerk", "auctions:upkeep_claim_new", None),
    ("dm_clerk", "office:surplus", None),
    ("dm_clerk", "office:claim_new", "deposit"),
    ("magistrate", "office:claim_decide", "claim"),
]


@pytest.fixture
def world(pound, pound_keeper, police_officer, dm_clerk, district, tariffs):
    conditions(district)
    deposit = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    entry, notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    auction = schedule(pound, police_officer, [[entry.animals.get()]])
    return {
        "auction": auction,
        "lot": auction.lots.get(),
        "entry": make_entry(pound=pound, by=pound_keeper),
        "report": notice.report,
        "deposit": deposit,
        "claim": claim(deposit, dm_clerk),
    }


@pytest.mark.parametrize(("who", "route", "record"), SCREENS)
@pytest.mark.parametrize("code", ["central", "mh"])
def test_a_draft_pack_warns_on_every_screen_that_applies_it(
    client, role_users, world, district, who, route, record, code
):
    pack = take(district, code)
    Impoundment.objects.update(rule_pack=pack)  # every entry runs under the pack
    client.force_login(role_users[who])

    response = client.get(reverse(route, args=[world[record].pk] if record else []))

    assert response.status_code == 200
    html = response.content.decode()
    assert (WARNING in html) is (not RulePack.objects.get(pk=pack.pk).verified)
    if code == "mh":
        assert "mh 0.1" in html
