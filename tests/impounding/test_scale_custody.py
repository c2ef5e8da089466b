"""The keeper's today board and the custody counts behind it read the animals in custody, not
every animal the pound ever had: the same queries at two sizes of history."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from impounding.selectors import custody_counts
from tests.impounding.factories import cow, goat, make_entry, pay
from tests.plans import explain, nodes


def history(pound, keeper, n):
    """n entries: most claimed and gone, a few still in the pound."""
    for i in range(n):
        if i % 5 == 0:
            make_entry(pound=pound, by=keeper, animals=[cow(), goat()])
            continue
        arrived = timezone.now() - timedelta(days=20 + i, hours=3)
        entry = make_entry(pound=pound, by=keeper, animals=[cow(), goat()], arrived_at=arrived)
        pay(entry, keeper, at=arrived + timedelta(days=1))


def queries_of_today(client):
    client.get(reverse("impounding:today"))  # warm: the session's first save after sign-in
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("impounding:today"))
    assert response.status_code == 200
    return len(queries.captured_queries)


def test_today_board_makes_the_same_queries_at_two_sizes(client, pound_keeper, pound, tariffs):
    client.force_login(pound_keeper)
    history(pound, pound_keeper, 5)
    small = queries_of_today(client)
    history(pound, pound_keeper, 20)
    assert queries_of_today(client) == small


def test_custody_counts_makes_the_same_queries_at_two_sizes(pound_keeper, pound, tariffs):
    today = timezone.localdate()
    week = (today - timedelta(days=7), today)
    history(pound, pound_keeper, 5)
    with CaptureQueriesContext(connection) as small:
        before = custody_counts(pound, *week)
    history(pound, pound_keeper, 20)
    with CaptureQueriesContext(connection) as large:
        after = custody_counts(pound, *week)
    assert len(large.captured_queries) == len(small.captured_queries)
    # Five entries of two animals each are in the pound today; the claimed ones left long ago.
    assert before[today] == 2 and after[today] == 10


def test_today_board_lists_a_bounded_page_with_the_full_count(client, pound_keeper, pound, tariffs):
    """A pound holding more than a board's rows shows the longest-held first, says how many it
    holds in all, and links to the register for the rest."""
    from impounding.views import register as views

    client.force_login(pound_keeper)
    for i in range(4):
        make_entry(
            pound=pound,
            by=pound_keeper,
            animals=[cow(), goat()],
            arrived_at=timezone.now() - timedelta(days=10 - i),
        )
    board = views.pound_day_board([pound], per_pound=3)
    (item,) = board
    assert item["in_custody"] == 8 and not item["shown_all"]
    assert len(item["rows"]) == 3
    days = [row["days"] for row in item["rows"]]
    assert days == sorted(days, reverse=True) and days[0] == 11  # the longest held first
    assert views.pound_day_board([pound], per_pound=8)[0]["shown_all"]

    old = views.BOARD_ROWS
    views.BOARD_ROWS = 3
    try:
        response = client.get(reverse("impounding:today"))
    finally:
        views.BOARD_ROWS = old
    html = response.content.decode()
    assert "8 animals in custody" in html
    assert "the 3 longest in the pound are shown" in html
    assert f"{reverse('impounding:register')}?pound={pound.pk}" in html


def test_today_board_of_many_pounds_makes_the_same_queries_and_pages_them(
    client, auditor, district, pound, pound_keeper, tariffs
):
    """A district's or an auditor's board: the tariffs and the feeding gaps of all the pounds
    shown are read together, so the queries do not grow with the pounds in scope, and the
    pounds are shown a page at a time."""
    from accounts.roles import Role
    from impounding.views import register as views
    from tests.accounts.factories import PoundFactory, staff

    client.force_login(auditor)
    make_entry(pound=pound, by=pound_keeper, animals=[cow()])

    def more_pounds(n, start):
        for i in range(start, start + n):
            other = PoundFactory(district=district, name=f"Pound {i:02d}")
            keeper = staff(Role.POUND_KEEPER, pound=other)
            make_entry(pound=other, by=keeper, animals=[cow(), goat()])

    more_pounds(2, 0)
    three = queries_of_today(client)
    more_pounds(views.BOARD_POUNDS, 2)

    assert queries_of_today(client) == three
    first = client.get(reverse("impounding:today")).content.decode()
    assert first.count('<section class="mb-4"') == views.BOARD_POUNDS
    assert f"of {views.BOARD_POUNDS + 3}, by name." in first
    after = first.split('href="?after=')[1].split('"')[0]
    rest = client.get(reverse("impounding:today") + f"?after={after}").content.decode()
    assert rest.count('<section class="mb-4"') == 3
    assert "Next pounds" in first and "Next pounds" not in rest and "First page" in rest


def test_today_board_over_several_pounds_shows_fewer_rows_of_each(
    client, auditor, district, pound, pound_keeper, tariffs, monkeypatch
):
    """An office's overview of many pounds shows each pound's longest-held few, with its count
    and a link to its register; a keeper's one pound shows the long list."""
    from accounts.roles import Role
    from impounding.views import register as views
    from tests.accounts.factories import PoundFactory, staff

    monkeypatch.setattr(views, "OVERVIEW_ROWS", 2)
    monkeypatch.setattr(views, "BOARD_ROWS", 5)
    make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow(), goat(), goat()])
    other = PoundFactory(district=district, name="Another pound")
    make_entry(pound=other, by=staff(Role.POUND_KEEPER, pound=other), animals=[cow()])

    client.force_login(auditor)
    many = client.get(reverse("impounding:today")).context["board"]
    client.force_login(pound_keeper)
    (own,) = client.get(reverse("impounding:today")).context["board"]

    rows = {item["pound"].pk: item for item in many}
    assert len(rows[pound.pk]["rows"]) == 2 and rows[pound.pk]["in_custody"] == 4
    assert not rows[pound.pk]["shown_all"] and rows[other.pk]["shown_all"]
    assert len(own["rows"]) == 4 and own["shown_all"]


def test_today_board_puts_an_entry_made_late_in_its_order_of_arrival(pound_keeper, pound, tariffs):
    """The board numbers a pound's animals by their entry's arrival, not by when the entry was
    made: an entry written up late (a higher key) whose cattle came first is shown first."""
    from impounding.views import register as views

    now = timezone.now()
    first_made = make_entry(pound=pound, by=pound_keeper, arrived_at=now - timedelta(days=2))
    made_late = make_entry(pound=pound, by=pound_keeper, arrived_at=now - timedelta(days=6))
    (item,) = views.pound_day_board([pound], per_pound=1)
    assert [row["animal"].impoundment_id for row in item["rows"]] == [made_late.pk]
    (item,) = views.pound_day_board([pound], per_pound=2)
    assert [row["animal"].impoundment_id for row in item["rows"]] == [made_late.pk, first_made.pk]


@pytest.mark.postgres
def test_today_board_numbers_a_pounds_cattle_from_their_index_alone(pound_keeper, pound, tariffs):
    """The window that numbers and counts each pound's cattle in custody reads them from the
    partial index by pound and arrival, in its order: no entry joined, nothing sorted, however
    many animals the pounds hold (docs/capacity.md: 7,684 for ten pounds at 1M entries)."""
    from impounding.views import register as views

    for days in (5, 3, 1):
        make_entry(
            pound=pound,
            by=pound_keeper,
            animals=[cow(), goat()],
            arrived_at=timezone.now() - timedelta(days=days),
        )
    with CaptureQueriesContext(connection) as captured:
        views.pound_day_board([pound], per_pound=2)
    (window,) = [
        q["sql"]
        for q in captured.captured_queries
        if "ROW_NUMBER()" in q["sql"] and 'FROM "impounding_animal"' in q["sql"]
    ]
    assert "impounding_impoundment" not in window
    plan = explain(window, off=("seqscan", "bitmapscan", "sort", "incremental_sort"))
    scans = [n for n in nodes(plan) if n.get("Relation Name") == "impounding_animal"]
    assert [n.get("Index Name") for n in scans] == ["animal_custody_arrival"], scans
    sorts = [n for n in nodes(plan) if n["Node Type"] in ("Sort", "Incremental Sort")]
    assert not sorts, sorts
