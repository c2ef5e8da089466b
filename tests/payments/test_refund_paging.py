"""The refunds page lists by keyset (docs/decisions/0083): each list pages from its own cursor,
newest first, visiting every row once, and a page costs the same queries however many rows
there are."""

import re
import uuid
from decimal import Decimal
from html import unescape
from urllib.parse import unquote

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from payments import views
from payments.models import Payment, PaymentState, Refund, RefundState
from tests.impounding.factories import cow, make_entry


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(pound=pound, by=pound_keeper, animals=[cow()])


def paid(entry, by, n, state=PaymentState.SUCCEEDED):
    return Payment.objects.create(
        impoundment=entry,
        animal_ids=[],
        amount=Decimal("100.00"),
        gateway="sbiepay",
        reference=f"PAGING{n:06d}",
        created_by=by,
        state=state,
    )


def rows(entry, keeper, clerk, magistrate, start, count):
    """`count` of each: a payment to refund (one open payment an entry), an open refund, a
    decided one (their payments stand refunded: the list reads the refunds)."""
    for n in range(start, start + count):
        paid(make_entry(pound=entry.pound, by=keeper, animals=[cow()]), keeper, 3 * n)
        Refund.objects.create(
            payment=paid(entry, keeper, 3 * n + 1, PaymentState.REFUNDED),
            amount=Decimal("100.00"),
            reason="animals_left",
            idempotency_key=uuid.uuid4(),
            prepared_by=clerk,
        )
        Refund.objects.create(
            payment=paid(entry, keeper, 3 * n + 2, PaymentState.REFUNDED),
            amount=Decimal("100.00"),
            reason="animals_left",
            state=RefundState.DECLINED,
            idempotency_key=uuid.uuid4(),
            prepared_by=clerk,
            decided_by=magistrate,
        )


def queries(client):
    with CaptureQueriesContext(connection) as done:
        assert client.get(reverse("payments:refunds")).status_code == 200
    return len(done)


def test_a_page_costs_the_same_queries_however_many_rows(
    client, monkeypatch, entry, pound_keeper, dm_clerk, magistrate
):
    monkeypatch.setattr(views, "REFUNDS_PAGE", 5)
    client.force_login(dm_clerk)
    rows(entry, pound_keeper, dm_clerk, magistrate, 0, 2)
    queries(client)  # the session and the caches warm
    few = queries(client)
    rows(entry, pound_keeper, dm_clerk, magistrate, 2, 10)
    assert queries(client) == few


NEXT = {key: re.compile(rf'href="\?{key}_after=([^"]+)"') for key in ("open", "refundable", "done")}


def test_each_list_pages_through_every_row_once(
    client, monkeypatch, entry, pound_keeper, dm_clerk, magistrate
):
    monkeypatch.setattr(views, "REFUNDS_PAGE", 4)
    rows(entry, pound_keeper, dm_clerk, magistrate, 0, 11)
    client.force_login(dm_clerk)
    for key, expected in (
        ("open", Refund.objects.filter(state=RefundState.PREPARED)),
        ("done", Refund.objects.filter(state=RefundState.DECLINED)),
        ("refundable", Payment.objects.filter(state=PaymentState.SUCCEEDED)),
    ):
        seen, params, pages = [], {}, 0
        while True:
            response = client.get(reverse("payments:refunds"), params)
            seen += [row.pk for row in response.context[key]]
            pages += 1
            found = NEXT[key].search(response.content.decode())
            if not found:
                break
            params = {f"{key}_after": _unquote(found.group(1))}
        assert sorted(seen) == sorted(expected.values_list("pk", flat=True)), key
        assert len(seen) == len(set(seen))
        assert seen == sorted(seen, reverse=True)  # newest first
        assert pages == -(-len(seen) // 4)


def _unquote(text):
    return unquote(unescape(text))
