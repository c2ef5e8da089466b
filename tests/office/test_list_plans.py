"""The office's lists of what grows with the years come off an index in their order and stop at
the page: not every row the pounds ever wrote, sorted (docs/capacity.md, fifteenth round)."""

import pytest
from django.urls import reverse

from tests.api.conftest import bearer
from tests.plans import assert_walks, plan_of_request

pytestmark = pytest.mark.postgres


def test_the_latest_confirmed_remittances_walk_their_index(client, dm_clerk, pound):
    client.force_login(dm_clerk)
    plan = plan_of_request(
        client, reverse("office:remittances"), "office_remittance", "'confirmed'"
    )
    assert_walks(plan, "office_remittance", "remittance_confirmed_latest")


@pytest.mark.parametrize(
    "name, table, index",
    [
        ("remittances", "office_remittance", "remittance_newest"),
        ("claims", "office_surplusclaim", "surplus_claim_newest"),
    ],
)
def test_the_apis_lists_walk_their_index_newest_first(client, dm_clerk, pound, name, table, index):
    plan = plan_of_request(client, f"/api/v1/{name}/", table, "LIMIT", **bearer(dm_clerk))
    assert_walks(plan, table, index)
