"""The API's sales and notices are read in their list's order from an index and stopped at the
page's LIMIT (auctions/migrations/0022): at 1M entries the auditor's sales list joined every sale
of the State to its certificate and sorted them all before taking a page. The lists' queries are
explained with sequential scans and sorts priced out, as on a State's tables: a list without an
index in its order still needs a Sort, and fails here."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import bearer
from tests.plans import explain, nodes

pytestmark = pytest.mark.postgres

LISTS = [("sales", "auctions_sale"), ("notices", "auctions_notice")]


@pytest.mark.parametrize(("path", "table"), LISTS)
@pytest.mark.parametrize("who", ["pound_keeper", "auditor"])
def test_a_list_is_read_in_its_order_from_an_index(client, request, pound, who, path, table):
    headers = bearer(request.getfixturevalue(who))
    with CaptureQueriesContext(connection) as captured:
        response = client.get(f"/api/v1/{path}/", **headers)
    assert response.status_code == 200
    page = [
        q["sql"]
        for q in captured.captured_queries
        if f'FROM "{table}"' in q["sql"] and "LIMIT" in q["sql"]
    ]
    assert len(page) == 1, page
    plan = explain(page[0], off=("seqscan", "sort"))
    assert plan["Node Type"] == "Limit"
    sorts = [n for n in nodes(plan) if n["Node Type"] in ("Sort", "Incremental Sort")]
    assert not sorts, json.dumps(plan, indent=1)
    scans = [n for n in nodes(plan) if n.get("Relation Name") == table]
    assert [n["Node Type"] for n in scans] == ["Index Scan"], json.dumps(plan, indent=1)
