"""The today board loads the tariff books from its first animal's arrival on: the orders that
ended before it are not read (a State's years of past orders), and every order in force on a
day of an animal's custody still is, so the dues are the Act's (s.12 on arrival, s.5 a day)."""

from datetime import date, timedelta
from decimal import Decimal

from django.urls import reverse
from django.utils import timezone, translation

from impounding.models import Animal, AnimalState
from impounding.selectors import pound_day_board
from impounding.tariffs import TariffBook
from tests.accounts.factories import PoundFactory
from tests.impounding.factories import cow, make_entry, set_tariffs


def three_orders(district):
    """An order of years ago, one that ended four days ago, and the one in force since: their
    scales' and orders' ids, oldest first."""
    today = timezone.localdate()
    ancient = set_tariffs(district, valid_from=date(2020, 1, 1), valid_to=date(2020, 12, 31))
    ended = set_tariffs(
        district, valid_from=date(2021, 1, 1), valid_to=today - timedelta(days=4), large="500.00"
    )
    current = set_tariffs(district, valid_from=today - timedelta(days=3), large="700.00")
    return [(scale.pk, order.pk) for scale, order in (ancient, ended, current)]


def loaded(book):
    return sorted(s.pk for s in book.scales), sorted(o.pk for o in book.feeding_orders)


def test_today_board_prices_a_custody_across_two_orders(pound, pound_keeper):
    three_orders(pound.district)
    arrived = timezone.now() - timedelta(days=8)
    make_entry(pound=pound, by=pound_keeper, animals=[cow()], arrived_at=arrived)
    (item,) = pound_day_board([pound])
    assert item["tariff_problem"] is None
    (row,) = item["rows"]
    # The fine of the scale in force on arrival; feeding at each day's rate, both orders.
    assert {p.rate for p in row["dues"].periods} == {Decimal("500.00"), Decimal("700.00")}


def test_the_books_leave_out_the_orders_that_ended_before_the_first_day(pound, district):
    ancient, ended, current = three_orders(district)
    second = PoundFactory(district=district)
    since = timezone.localdate() - timedelta(days=8)
    for pounds in ([pound], [pound, second]):  # a keeper's pound, and an office's several
        books = TariffBook.for_pounds(pounds, since=since)
        for p in pounds:
            assert loaded(books[p.pk]) == ([ended[0], current[0]], [ended[1], current[1]])
        everything = TariffBook.for_pounds(pounds)[pound.pk]
        assert loaded(everything) == tuple(
            sorted(ids) for ids in zip(ancient, ended, current, strict=True)
        )


def test_today_board_names_an_animal_out_of_the_pound_in_the_users_language(
    client, pound_keeper, pound, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    Animal.objects.filter(impoundment=entry).update(state=AnimalState.ESCAPED)
    client.force_login(pound_keeper)
    for language in ("en", "hi"):
        with translation.override(language):
            label = str(AnimalState.ESCAPED.label)
            page = client.get(reverse("impounding:today"), HTTP_ACCEPT_LANGUAGE=language)
        assert f'<span class="badge text-bg-warning">{label}</span>' in page.content.decode()
    assert label != "Escaped"  # the Hindi catalogue names it
