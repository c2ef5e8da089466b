"""The office's home page and approvals at volume (docs/capacity.md): each list bounded to its most
urgent rows, with counts and totals from SQL, the same number of queries at any size, and the
approval queues paged by keyset."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from impounding import services as impounding
from impounding.models import Complaint, Deposit
from impounding.services import deposit_awaiting_application
from office import dashboard as selectors
from office import services as office
from office.dashboard import LIST_ROWS, QUEUE_PAGE
from office.models import SurplusDeposit
from tests.auctions.factories import conditions
from tests.impounding.factories import deposit, make_entry
from tests.office.test_views_money import sell

pytestmark = pytest.mark.django_db


@pytest.fixture
def adding(pound, pound_keeper, police_officer, district, dm_clerk, magistrate, tariffs):
    """`n` deposits past their time to complain, `n` surpluses held, each with a claim pending."""
    conditions(district)

    def add(n):
        old = timezone.now() - timedelta(days=12)
        for _ in range(n):
            deposit(make_entry(pound=pound, by=pound_keeper, arrived_at=old), pound_keeper)
        entry = sell(pound, pound_keeper, police_officer, heads=n)
        for d in SurplusDeposit.objects.filter(sale__lot__animals__impoundment=entry):
            office.receive_surplus(deposit=d, by=dm_clerk, received_on=timezone.localdate())
            office.file_surplus_claim(
                deposit=d,
                by=dm_clerk,
                claimant_name="A",
                claimant_address="B",
                capacity="heir",
                proof="C",
                filed_on=timezone.localdate(),
            )

    return add


def _get(client, name, **params):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse(f"office:{name}"), params)
    assert response.status_code == 200
    return response, len(queries)


def test_dashboard_same_queries_and_bounded_lists_at_two_sizes(client, magistrate, adding):
    adding(3)
    client.force_login(magistrate)
    _get(client, "office")  # the charts keep each closed month the first time (ChartMonth)
    few, few_queries = _get(client, "office")
    assert len(few.context["board"].deposits) == 3 and len(few.context["board"].surplus) == 3

    adding(LIST_ROWS + 2)
    many, many_queries = _get(client, "office")

    assert many_queries == few_queries
    board = many.context["board"]
    held = Deposit.objects.filter(status=Deposit.Status.HELD)
    assert len(board.deposits) == LIST_ROWS and board.deposits_count == held.count()
    assert board.deposits_total == sum(d.amount for d in held)
    assert len(board.surplus) == LIST_ROWS and board.surplus_count == LIST_ROWS + 5
    assert board.surplus_total == sum(d.amount for d in SurplusDeposit.objects.all())
    assert board.approvals.counts["deposits_to_apply"] == LIST_ROWS + 5
    assert board.approvals.counts["claims"] == LIST_ROWS + 5
    html = many.content.decode()
    assert html.count('<th scope="row" class="ref">') == 2 * LIST_ROWS  # deposits and surplus
    assert f"({LIST_ROWS + 5})" in html


def test_approvals_same_queries_and_bounded_queues_at_two_sizes(client, magistrate, adding):
    adding(3)
    client.force_login(magistrate)
    _few, few_queries = _get(client, "approvals")

    adding(LIST_ROWS + 2)
    many, many_queries = _get(client, "approvals")

    assert many_queries == few_queries
    waiting = many.context["waiting"]
    assert len(waiting.deposits_to_apply) == LIST_ROWS and len(waiting.claims) == LIST_ROWS
    assert waiting.total == 2 * (LIST_ROWS + 5)
    html = many.content.decode()
    assert html.count('<th scope="row"') == 2 * LIST_ROWS
    assert "?queue=deposits_to_apply" in html and "?queue=claims" in html


def test_one_approval_queue_pages_by_keyset_each_row_once(client, magistrate, adding):
    adding(QUEUE_PAGE + 3)
    client.force_login(magistrate)
    seen, params, counts = [], {"queue": "claims"}, []
    while True:
        response, queries = _get(client, "approvals", **params)
        counts.append(queries)
        waiting = response.context["waiting"]
        assert waiting.deposits_to_apply == [] and waiting.shortfalls == []
        assert waiting.total == 2 * (QUEUE_PAGE + 3)
        seen += [c.pk for c in waiting.claims]
        if not waiting.cursors["claims"]:
            break
        params["after"] = waiting.cursors["claims"]
    assert len(seen) == len(set(seen)) == QUEUE_PAGE + 3
    assert len(counts) == 2 and counts[0] == counts[1]


def test_the_deposit_queues_in_sql_follow_deposit_awaiting_application(
    pound, pound_keeper, magistrate, tariffs
):
    """Each case of the rule (s.20): no complaint inside or past the window, a complaint naming
    the deposit pending or dismissed, one on the entry naming no deposit, confirmed in advance."""
    today = timezone.localdate()
    old = timezone.now() - timedelta(days=12)

    def held(arrived_at=None):
        entry = make_entry(pound=pound, by=pound_keeper, arrived_at=arrived_at)
        return entry, deposit(entry, pound_keeper).deposit

    def complain(entry, dep=None, outcome=None):
        complaint = impounding.record_complaint(
            entry=entry,
            by=pound_keeper,
            deposit=dep,
            complainant_name="Shyam Lal",
            mode=Complaint.Mode.WRITTEN,
            court="Court of the SDM",
            filed_on=today,
        )
        if outcome:
            impounding.decide_complaint(
                complaint=complaint, by=magistrate, outcome=outcome, decided_on=today
            )

    held()
    held(old)
    entry, dep = held()
    complain(entry, dep)
    entry, dep = held(old)
    complain(entry, dep, Complaint.Outcome.DISMISSED)
    entry, _dep = held(old)
    complain(entry)
    entry, _dep = held()
    complain(entry, outcome=Complaint.Outcome.DISMISSED)
    _entry, dep = held()
    office.confirm_deposit_application(deposit=dep, by=magistrate)

    rows = selectors.decorate_deposits(list(Deposit.objects.filter(status="held")), today)
    held_qs, queues = selectors.deposit_queues([pound.pk], today)
    to_apply = set(held_qs.filter(queues["deposits_to_apply"]).values_list("pk", flat=True))
    in_window = set(held_qs.filter(queues["deposits_in_window"]).values_list("pk", flat=True))
    assert to_apply == {d.pk for d in rows if deposit_awaiting_application(d, today)}
    assert in_window == {
        d.pk
        for d in rows
        if not d.awaiting and d.complaint_status != "upheld" and not d.application_confirmed_by_id
    }
    assert len(to_apply) == 3 and len(in_window) == 3
