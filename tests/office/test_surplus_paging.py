"""The surplus deposit register at volume (docs/capacity.md): each list one page long, paged by
keyset, with its count and total from SQL, and the same number of queries at any size."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from office import services as office
from office.models import SurplusDeposit
from office.selectors import SURPLUS_PAGE
from tests.accounts.factories import PoundFactory
from tests.auctions.factories import conditions
from tests.office.test_views_money import sell

pytestmark = pytest.mark.django_db


@pytest.fixture
def selling(pound, pound_keeper, police_officer, district, dm_clerk, tariffs):
    """Sell `heads` cows, each in its own lot; the first `received` surpluses are received."""
    conditions(district)

    def add(heads, received=0):
        entry = sell(pound, pound_keeper, police_officer, heads=heads)
        deposits = SurplusDeposit.objects.filter(sale__lot__animals__impoundment=entry)
        for d in deposits.order_by("pk")[:received]:
            office.receive_surplus(deposit=d, by=dm_clerk, received_on=timezone.localdate())

    return add


def _get(client, **params):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("office:surplus"), params)
    assert response.status_code == 200
    return response, len(queries)


def test_surplus_register_same_queries_and_bounded_rows_at_two_sizes(client, dm_clerk, selling):
    selling(3, received=1)
    client.force_login(dm_clerk)
    few, few_queries = _get(client)
    assert len(few.context["awaiting"]) == 2 and len(few.context["held"]) == 1

    selling(SURPLUS_PAGE + 5, received=SURPLUS_PAGE + 2)
    many, many_queries = _get(client)

    assert many_queries == few_queries
    assert len(many.context["held"]) == SURPLUS_PAGE  # 26 held: one page of them
    assert len(many.context["awaiting"]) == 5
    html = many.content.decode()
    assert html.count('<tr id="surplus-') == SURPLUS_PAGE + 5
    lists = many.context["lists"]
    held = SurplusDeposit.objects.filter(status=SurplusDeposit.Status.HELD)
    assert lists["held"].count == held.count() == SURPLUS_PAGE + 3
    assert lists["held"].total == sum(d.amount for d in held)
    assert "?list=held" in html and f"({SURPLUS_PAGE + 3})" in html


def test_surplus_list_pages_by_keyset_each_deposit_once(client, dm_clerk, selling):
    selling(SURPLUS_PAGE * 2 + 3, received=SURPLUS_PAGE * 2 + 3)
    client.force_login(dm_clerk)
    seen, params, pages = [], {"list": "held"}, []
    while True:
        response, queries = _get(client, **params)
        pages.append(queries)
        assert response.context["awaiting"] == [] and response.context["closed"] == []
        seen += [d.pk for d in response.context["held"]]
        cursor = response.context["lists"]["held"].next_cursor
        if not cursor:
            break
        assert "Next page" in response.content.decode()
        params["after"] = cursor
    expected = SurplusDeposit.objects.order_by("expires_on", "sale_date", "pk")
    assert seen == list(expected.values_list("pk", flat=True))
    assert len(pages) == 3 and len(set(pages)) == 1
    assert "First page" in response.content.decode()


def test_a_cursor_that_does_not_parse_gives_the_first_page(client, dm_clerk, selling):
    selling(2, received=2)
    client.force_login(dm_clerk)
    for after in ("nonsense", "2026-13-01|1|x", "1|2"):
        response, _queries = _get(client, list="held", after=after)
        assert len(response.context["held"]) == 2


def test_surplus_register_filters_by_pound_and_expiry(
    client, dm_clerk, selling, district, pound, pound_keeper, police_officer
):
    selling(2, received=1)
    client.force_login(dm_clerk)
    other = PoundFactory(district=district)
    response, _queries = _get(client, pound=other.pk)
    assert response.context["held"] == [] and response.context["awaiting"] == []
    response, _queries = _get(client, pound=pound.pk)
    assert len(response.context["held"]) == 1 and len(response.context["awaiting"]) == 1
    [held] = response.context["held"]
    response, _queries = _get(client, expires_by=held.expires_on.isoformat())
    assert response.context["held"] == [held] and response.context["awaiting"] == []
    assert response.context["lists"]["held"].total == held.amount
    response, _queries = _get(client, expires_by=timezone.localdate().isoformat())
    assert response.context["held"] == []
    assert response.context["lists"]["held"].total == Decimal("0.00")
