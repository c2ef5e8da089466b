"""Query plans for the tests that check how a page reads its tables (docs/capacity.md)."""

import json

from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext


def explain(sql, *, off=(), analyze=False):
    """The plan of `sql` as PostgreSQL's JSON tree, with the plan methods in `off` priced out
    (enable_seqscan, enable_sort, ...) for this query alone; executed with `analyze`."""
    with transaction.atomic(), connection.cursor() as cursor:
        for method in off:
            cursor.execute(f"SET LOCAL enable_{method} = off")
        cursor.execute(f"EXPLAIN ({'ANALYZE, ' if analyze else ''}FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0]
    return (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]


def nodes(node):
    """Every node of a plan, the root first."""
    yield node
    for child in node.get("Plans", []):
        yield from nodes(child)


def assert_walks(plan, table, index):
    """`plan` (its nodes, as a list) reads `table` by `index` alone and sorts nothing: a list
    that comes off the index in its order and stops at the page (docs/capacity.md)."""
    assert not [n for n in plan if n["Node Type"] in ("Sort", "Incremental Sort")], plan
    assert {n.get("Index Name") for n in plan if n.get("Relation Name") == table} == {index}, plan


def plan_of_request(client, url, table, marker="", **headers):
    """The plan's nodes of the one query of a GET of `url` that reads `table` (and holds
    `marker`), with sorting priced out: a plan that still sorts has no index in the list's order
    to walk (`assert_walks`)."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, **headers).status_code == 200
    (sql,) = [q["sql"] for q in queries if f'FROM "{table}"' in q["sql"] and marker in q["sql"]]
    return list(nodes(explain(sql, off=("seqscan", "sort", "bitmapscan"))))
