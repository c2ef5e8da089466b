"""kernel.views.keyset_page: a page from its cursor, and the same pages when the keys are chosen
first (`keys_first`, ADR 0093)."""

from datetime import date

from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Pound
from kernel.views import keyset_page
from tests.accounts.factories import PoundFactory

ORDER = ("active_from", "pk")  # a cursor holds dates, times and numbers


def all_pages(qs, size, **kw):
    pages, after = [], None
    for _ in range(10):  # a cursor that did not move would page for ever
        rows, after = keyset_page(qs, ORDER, after=after, size=size, **kw)
        pages.append([p.pk for p in rows])
        if after is None:
            return pages
    raise AssertionError(f"no last page: {pages}")


def test_keys_first_gives_the_same_pages_through_the_cursor(district, other_district):
    for i, day in enumerate([3, 1, 2, 1, 5, 4, 2]):  # some days twice: the id breaks the tie
        PoundFactory(district=district, code=f"p{i}", active_from=date(2020, 1, day))
    PoundFactory(district=other_district, code="x1", active_from=date(2020, 1, 1))
    mine = Pound.objects.filter(district=district).select_related("district")
    plain = all_pages(mine, 3)
    assert len(plain) == 3 and sum(map(len, plain)) == mine.count()
    assert all_pages(mine, 3, keys_first=True) == plain
    # A page's rows come with what the queryset selects with them, in one query.
    with CaptureQueriesContext(connection) as queries:
        rows, _after = keyset_page(mine, ORDER, size=3, keys_first=True)
        assert {p.district.code for p in rows} == {"home"}
    (sql,) = [q["sql"] for q in queries.captured_queries]
    # The page's keys are limited inside the subquery (and the page outside), before any row
    # is joined.
    inner = sql[sql.index("IN (SELECT") :]
    assert sql.count("LIMIT 4") == 2 and '"accounts_district"' not in inner
