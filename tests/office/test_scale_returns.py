"""The returns at two sizes: the monthly return and the district's consolidation ask the same
queries whatever the history behind them, as figures, as CSV and as PDF."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import District, IssuedDocument, Pound, User
from office import return_documents, returns

pytestmark = pytest.mark.postgres


def seed(entries, *, append=False):
    call_command(
        "seed_scale",
        entries=entries,
        pounds=3,
        districts=2,
        seed=13,
        years=3,
        append=append,
        stdout=io.StringIO(),
    )


def _last_month():
    first = timezone.localdate().replace(day=1) - timedelta(days=1)
    return first.year, first.month


def _queries(make):
    with CaptureQueriesContext(connection) as queries:
        make()
    return len(queries.captured_queries)


def _counts():
    """The queries of each return. A kept PDF whose figures changed since is drawn afresh on every
    request; whether the seeded entries change last month's depends on today's date, so each PDF
    is measured as drawn afresh, its kept file's fingerprint made stale first."""
    IssuedDocument.objects.filter(kind=IssuedDocument.Kind.RETURN).update(drawn_from="stale")
    year, month = _last_month()
    pound = Pound.objects.order_by("pk").first()
    district = District.objects.get(pk=pound.district_id)
    pounds = Pound.objects.filter(district=district).order_by("name")
    by = User.objects.order_by("pk").first()
    return {
        "pound_return": _queries(lambda: returns.pound_return(pound, year, month)),
        "district_return": _queries(lambda: returns.district_return(district, year, month, pounds)),
        "monthly_csv": _queries(lambda: return_documents.monthly_return_csv(pound, year, month)),
        "district_csv": _queries(
            lambda: return_documents.district_return_csv(district, year, month)
        ),
        "monthly_pdf": _queries(
            lambda: return_documents.monthly_return_pdf(pound, year, month, by=by)
        ),
        "district_pdf": _queries(
            lambda: return_documents.district_return_pdf(district, year, month, by=by)
        ),
    }


def test_the_returns_ask_the_same_queries_at_two_sizes():
    seed(20)
    # Print once first: a month that is over is registered the first time, in queries of its own.
    _counts()
    small = _counts()
    seed(120, append=True)
    large = _counts()
    assert large == small
    # The pound's animals in one query, its money in two, the month's remittances in two.
    assert small["pound_return"] <= 5, small
    assert small["district_return"] <= 6, small


def test_cash_figures_from_the_month_totals_agree_with_the_postings():
    """The return's and the cash book's openings are read from the month totals, not summed
    over the pound's history: they must still say what the postings add up to."""
    from decimal import Decimal

    from django.db.models import Sum

    from ledger.models import Posting
    from office.returns import CASH_KINDS, day_start

    seed(150)
    year, month = _last_month()
    first, last = returns.month_range(year, month)
    for pound in Pound.objects.order_by("pk"):
        till = Posting.objects.filter(account__pound=pound, account__kind__in=CASH_KINDS)

        def total(till=till, **when):
            return till.filter(**when).aggregate(t=Sum("amount"))["t"] or Decimal("0.00")

        start, end = day_start(first), day_start(last + timedelta(days=1))
        money = returns.pound_return(pound, year, month)["money"]
        assert money["cash_opening"] == total(transaction__at__lt=start)
        assert money["cash_closing"] == total(transaction__at__lt=end)
        assert money["cash_in"] == total(
            transaction__at__gte=start, transaction__at__lt=end, amount__gt=0
        )
        middle = first + timedelta(days=14)
        book = returns.cash_book(pound, middle)
        assert book["opening"]["total"] == total(transaction__at__lt=day_start(middle))
