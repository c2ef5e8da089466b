"""The register page at volume (docs/capacity.md): its queries stay the same in number and in shape
as the register grows. The page reads its entries through the keyset's index and stops at the LIMIT;
the animals are counted for the page's rows only, never grouped over every entry in scope."""

import json
import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from impounding.models import Animal, AnimalState, Impoundment
from impounding.selectors import REGISTER_PAGE as PAGE_SIZE
from tests.accounts.factories import PoundFactory
from tests.plans import explain
from tests.plans import nodes as _nodes

pytestmark = pytest.mark.postgres

ANIMALS_PER_ENTRY = 2
# (pound, year DESC, serial DESC, id DESC) and (year DESC, serial DESC, id DESC): the keyset's
# order, the register's numbers.
# The unique (pound, year, serial), read backwards, gives the same order within one pound.
ORDERED_INDEXES = {"imp_pound_number", "imp_register_number", "imp_register_serial"}
# Searched between dates, the register is in the order of arrival (ADR 0065): (pound, arrived
# DESC, id DESC) and (arrived DESC, id DESC).
ARRIVAL_INDEXES = {"imp_pound_arrived", "imp_arrived"}


def _bulk_register(pounds, by, count, seed=9):
    """`count` entries spread over `pounds` and three years, two animals each, written in bulk:
    the page reads the register, so the services' events and ledger are not needed here."""
    rng = random.Random(seed)
    now = timezone.now()
    start = Impoundment.objects.count()
    entries = []
    for i in range(count):
        pound = pounds[i % len(pounds)]
        arrived = now - timedelta(minutes=rng.randint(60, 3 * 365 * 24 * 60))
        serial = start + i + 1
        entries.append(
            Impoundment(
                pound=pound,
                register_year=arrived.year,
                register_serial=serial,
                register_number=f"{pound.code.upper()}/{arrived.year}/{serial:05d}",
                arrived_at=arrived,
                seized_at=arrived - timedelta(hours=2),
                seizure_place="Field near the canal",
                basis="s10",
                seizer_name="Ram Prasad",
                seizer_residence="Nigohan",
                seizer_capacity="cultivator",
                owner_name=["Gita Devi", "Shyam Lal", ""][i // len(pounds) % 3],
                recorded_by=by,
            )
        )
    Impoundment.objects.bulk_create(entries)
    states = [AnimalState.IMPOUNDED, AnimalState.DIED]
    Animal.objects.bulk_create(
        Animal(
            impoundment=entry,
            number=n,
            species="cattle",
            sex="female",
            age_class="adult",
            colour="White",
            state=rng.choice(states),
        )
        for entry in entries
        for n in range(1, ANIMALS_PER_ENTRY + 1)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE impounding_impoundment; ANALYZE impounding_animal")


@pytest.fixture
def pounds(pound, district, other_pound):
    """Three pounds of the home district, and one of another district that nobody here sees."""
    return [pound, PoundFactory(district=district), PoundFactory(district=district), other_pound]


def _page_queries(client, user, params=None):
    client.force_login(user)
    client.get(reverse("impounding:register"))  # warm the per-user caches
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(reverse("impounding:register"), params or {})
    assert response.status_code == 200
    return response, [q["sql"] for q in ctx.captured_queries]


def _plan(sql):
    """EXPLAIN ANALYZE of one captured query, with sequential scans and sorts priced out: the
    plan then shows the index that gives the page's order, as the planner picks it on a large
    table, and not a plan that is cheaper only on the few hundred rows of a test (a sort of
    them all). A query that cannot do without a sort or an aggregate still shows one."""
    return explain(sql, off=("seqscan", "sort"), analyze=True)


def _main_and_count_queries(queries):
    main = [q for q in queries if 'FROM "impounding_impoundment"' in q and "LIMIT" in q]
    counts = [q for q in queries if 'FROM "impounding_animal"' in q]
    assert len(main) == 1, main
    assert len(counts) == 1, counts
    return main[0], counts[0]


@pytest.mark.parametrize("who", ["pound_keeper", "auditor"])
def test_register_query_count_same_at_two_sizes(client, request, pounds, who):
    user = request.getfixturevalue(who)
    _bulk_register(pounds, user, 30)
    _, small = _page_queries(client, user)
    _bulk_register(pounds, user, 270, seed=10)
    response, large = _page_queries(client, user)
    assert len(large) == len(small)
    assert len(response.context["entries"]) == PAGE_SIZE
    # An older page costs the same as the first.
    _, older = _page_queries(client, user, {"after": response.context["next_cursor"]})
    assert len(older) == len(small)


@pytest.mark.parametrize(
    ("who", "search"),
    [
        ("pound_keeper", {}),
        ("auditor", {}),
        ("auditor", {"date_from": "2020-01-01"}),
        ("auditor", {"pound": "home"}),
    ],
)
def test_register_reads_the_page_through_the_index_and_counts_its_rows_only(
    client, request, pounds, who, search
):
    user = request.getfixturevalue(who)
    _bulk_register(pounds, user, 300)
    if "pound" in search:
        search = {"pound": pounds[0].pk}
    response, queries = _page_queries(client, user, search)
    assert len(response.context["entries"]) == PAGE_SIZE

    main = [q for q in queries if 'FROM "impounding_impoundment"' in q and "LIMIT" in q]
    assert len(main) == 1, main
    plan = _plan(main[0])
    nodes = list(_nodes(plan))
    assert plan["Node Type"] == "Limit"
    # No GROUP BY, DISTINCT or sort over the entries in scope before the LIMIT.
    assert not [n for n in nodes if n["Node Type"] in ("Aggregate", "Sort", "Unique")], nodes
    # Either index gives the keyset's order (the planner picks by the table's size and bloat,
    # which vary between runs): without one of them a Sort would appear above.
    scans = [n for n in nodes if n.get("Relation Name") == "impounding_impoundment"]
    assert [n["Node Type"] for n in scans] == ["Index Scan"]
    by_arrival = "date_from" in search
    assert scans[0]["Index Name"] in (ARRIVAL_INDEXES if by_arrival else ORDERED_INDEXES)
    # The scan stops at the LIMIT: it returns the page and one row more, to know that there is
    # an older page; not the register. Read through the unique (pound, year, serial) backwards,
    # the planner does not know that the id follows the serial: it adds an Incremental Sort of
    # the id within each (year, serial), which reads one row past the last group to close it.
    lookahead = 1 if any(n["Node Type"] == "Incremental Sort" for n in nodes) else 0
    assert scans[0]["Actual Rows"] <= PAGE_SIZE + 1 + lookahead, json.dumps(plan, indent=1)

    # The animals are counted for the page's entries only.
    counts = [q for q in queries if 'FROM "impounding_animal"' in q]
    assert len(counts) == 1, counts
    plan = _plan(counts[0])
    animal_rows = sum(
        n["Actual Rows"] * n["Actual Loops"]
        for n in _nodes(plan)
        if n.get("Relation Name") == "impounding_animal"
    )
    assert animal_rows == PAGE_SIZE * ANIMALS_PER_ENTRY
    assert plan["Actual Rows"] == PAGE_SIZE


def test_register_counts_each_rows_animals(client, pound_keeper, pounds):
    _bulk_register(pounds, pound_keeper, 40)
    response, _ = _page_queries(client, pound_keeper)
    for entry in response.context["entries"]:
        animals = Animal.objects.filter(impoundment=entry)
        assert entry.animal_count == animals.count()
        assert entry.in_pound == animals.filter(state=AnimalState.IMPOUNDED).count()


@pytest.mark.parametrize("q", ["gita", "123456789010", "7"])
def test_register_search_has_no_distinct_or_group_by(client, pound_keeper, pounds, q):
    """The ear tag is matched by the ids of its entries: a join to the animals would need a
    DISTINCT over every matching entry before the LIMIT."""
    _bulk_register(pounds, pound_keeper, 300)
    _, queries = _page_queries(client, pound_keeper, {"q": q})
    main = [q for q in queries if 'FROM "impounding_impoundment"' in q and "LIMIT" in q]
    assert len(main) == 1, main
    assert "DISTINCT" not in main[0]
    nodes = list(_nodes(_plan(main[0])))
    assert not [n for n in nodes if n["Node Type"] in ("Aggregate", "Unique")], nodes


@pytest.mark.parametrize("q", ["Nobody Of That Name", "KH/2026/99999", "99999"])
def test_a_search_can_be_answered_from_the_trigram_indexes(client, auditor, pounds, q):
    """The owner's name (icontains) and the register number (iexact, iendswith) are looked up in
    trigram indexes (impounding 0003), and the ear tag's entries come as a list of ids. A
    subquery inside the OR kept the planner from combining the indexes: at 100k entries a term
    that matched nothing walked all of them (417 ms; 0.15 ms now). On 300 rows the planner
    rightly prefers the scope's index, so the plan is read for its shape: no subplan, and every
    text condition in a form that the trigram indexes serve."""
    _bulk_register(pounds, auditor, 300)
    response, queries = _page_queries(client, auditor, {"q": q})
    assert list(response.context["entries"]) == []
    main = [q for q in queries if 'FROM "impounding_impoundment"' in q and "LIMIT" in q]
    assert len(main) == 1, main
    nodes = list(_nodes(_plan(main[0])))
    assert not [n for n in nodes if n.get("Parent Relationship") == "SubPlan"], nodes
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'impounding_impoundment'"
            " AND indexdef LIKE '%gin_trgm_ops%'"
        )
        indexed = " ".join(row[0] for row in cursor.fetchall())
    for column in ("owner_name", "register_number"):
        assert f"upper(({column})::text) gin_trgm_ops" in indexed, indexed
        assert f'UPPER("impounding_impoundment"."{column}"::text)' in main[0]
