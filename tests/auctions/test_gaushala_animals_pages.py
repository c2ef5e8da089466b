"""The gaushala animals page's lists page by keyset (ADR 0070 addendum, "The animals page's
lists"): the escapes not yet settled and the over-payments still to recover, each from its own
cursor, visit every row once, and a page costs the same queries however many rows there are."""

# ruff: noqa: F811  (the fixtures are imported from the handover tests)

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from auctions.models import Gaushala, Handover, HoldingEnd, UpkeepOverpayment
from auctions.services import gaushala_holding as holding
from tests.auctions.factories import ready_for_sale
from tests.auctions.test_gaushala import body, cow_entry, hand_over  # noqa: F401
from tests.auctions.test_gaushala_holding import held  # noqa: F401
from tests.auctions.test_gaushala_recovery import claim_for


@pytest.fixture
def escapes(held, pound, body, dm_clerk, magistrate, pound_keeper, police_officer):
    """Every animal the body holds escaped after last month was claimed: one escape and one
    over-payment each."""
    _handover, _animals, first = held
    Gaushala.objects.filter(pk=body.pk).update(capacity=50)
    for _ in range(3):
        entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
        order = hand_over(pound, entry, body, dm_clerk, magistrate)
        type(order.handover).objects.filter(pk=order.handover.pk).update(
            received_on=first - timedelta(days=3)
        )
    claim_for(body, first, dm_clerk, magistrate, pay=False)
    animals, _cursor = holding.animals_held(Gaushala.objects.all(), size=100)
    for i, (animal, _name, _since) in enumerate(animals):
        handover = Handover.objects.filter(order__animals=animal).select_related("order").get()
        holding.record_end(
            handover=handover,
            animal_id=animal.pk,
            kind="escaped",
            on=first + timedelta(days=5 + i % 2),  # two on one day: the id breaks the tie
            reference=f"GS/{i}/2027",
            by=dm_clerk,
            idempotency_key=uuid.uuid4(),
        )
    return len(animals)


def _walk(client, url, key, cursor_name, rows_of):
    seen, after, counts = [], "", set()
    for _ in range(30):
        with CaptureQueriesContext(connection) as queries:
            page = client.get(url, {key: after} if after else {})
        counts.add(len(queries))
        rows = page.context[rows_of]
        assert len(rows) == 1
        seen += [row.pk for row in rows]
        after = page.context[cursor_name]
        if after is None:
            return seen, counts
        assert f"{key}=" in page.content.decode()  # the page links the next one
    raise AssertionError("the pages never ended")


def test_the_escaped_and_the_over_paid_lists_page_by_keyset(
    client, escapes, body, dm_clerk, monkeypatch
):
    assert escapes >= 4
    monkeypatch.setattr("auctions.views.gaushala.LIST_SIZE", 1)
    client.force_login(dm_clerk)
    url = reverse("auctions:gaushala_animals")
    client.get(url)  # the session and the permissions, once

    seen, counts = _walk(client, url, "escaped_after", "escaped_next", "escaped")
    escaped = HoldingEnd.objects.filter(kind="escaped")
    assert seen == list(escaped.order_by("on", "pk").values_list("pk", flat=True))
    assert len(seen) == len(set(seen)) == escapes
    assert len(counts) == 1  # the same queries on every page, however many rows

    seen, counts = _walk(client, url, "overpaid_after", "overpaid_next", "overpayments")
    overpaid = UpkeepOverpayment.objects.order_by("recorded_at", "pk")
    assert seen == list(overpaid.values_list("pk", flat=True))
    assert len(seen) == len(set(seen)) == escapes
    assert len(counts) == 1


def test_the_query_count_does_not_grow_with_the_rows(client, escapes, dm_clerk, monkeypatch):
    """A page of one row of each list, and a page of every row: the same number of queries."""
    client.force_login(dm_clerk)
    url = reverse("auctions:gaushala_animals")
    client.get(url)
    with CaptureQueriesContext(connection) as every_row:
        page = client.get(url)
    assert len(page.context["escaped"]) == len(page.context["overpayments"]) == escapes
    monkeypatch.setattr("auctions.views.gaushala.LIST_SIZE", 1)
    with CaptureQueriesContext(connection) as one_row:
        page = client.get(url)
    assert len(page.context["escaped"]) == len(page.context["overpayments"]) == 1
    assert len(every_row) == len(one_row)


def test_a_first_page_link_comes_back_to_the_start(client, escapes, dm_clerk, monkeypatch):
    monkeypatch.setattr("auctions.views.gaushala.LIST_SIZE", 1)
    client.force_login(dm_clerk)
    url = reverse("auctions:gaushala_animals")
    first = client.get(url)
    second = client.get(url, {"escaped_after": first.context["escaped_next"]})
    assert second.context["escaped_paged"] and not first.context["escaped_paged"]
    assert second.context["escaped"][0].pk != first.context["escaped"][0].pk
    assert 'href="?#escaped"' in second.content.decode()
    assert client.get(url, {"escaped_after": "nonsense"}).context["escaped"] == list(
        first.context["escaped"]
    )
