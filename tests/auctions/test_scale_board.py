"""The public notice board reads the notices of its page's animals in one query, whatever the
number of animals under notice or claimed before: the same queries at two sizes."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from auctions import selectors
from tests.auctions.test_board import under_notice
from tests.impounding.factories import cow, goat, pay


def queries_of_board():
    with CaptureQueriesContext(connection) as queries:
        page = selectors.board_page(size=3)
    return len(queries.captured_queries), page


def notices(pound, keeper, officer, n):
    """n entries under notice, one in three claimed since."""
    for i in range(n):
        entry, _notice = under_notice(pound, keeper, officer, animals=[cow(), goat()])
        if i % 3 == 0:
            pay(entry, keeper)


def test_board_page_makes_the_same_queries_at_two_sizes(
    pound, pound_keeper, police_officer, tariffs
):
    notices(pound, pound_keeper, police_officer, 5)
    small, page = queries_of_board()
    notices(pound, pound_keeper, police_officer, 20)
    large, bigger = queries_of_board()
    assert small == large
    assert len(page.rows) == len(bigger.rows) == 3
    for row in bigger.rows:
        notice = row["animal"].reports.get().notice
        assert (row["animal"].last_day_to_claim, row["animal"].earliest_sale) == (
            notice.last_day_to_claim,
            notice.earliest_sale,
        )


def test_officer_lists_leave_out_reports_with_nobody_left_in_the_pound(
    pound, pound_keeper, police_officer, tariffs
):
    notices(pound, pound_keeper, police_officer, 6)
    (section,) = selectors.officer_sections(police_officer, only=selectors.IN_PERIOD)
    assert section.count == 4
    assert all(r.in_pound == r.animal_count == 2 for r in section.rows)
