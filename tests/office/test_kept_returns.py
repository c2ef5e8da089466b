"""A return for a month that is over is drawn once and kept: a later download serves the stored
file while the figures are the same, and is drawn afresh when they have changed since. Its
queries do not grow with the rows behind it."""

import hashlib
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import IssuedDocument
from office import return_documents
from tests import readpdf
from tests.impounding.factories import goat, make_entry, pay


def _must_not_draw(*args, **kwargs):
    raise AssertionError("a kept return was drawn again")


def _last_month():
    last = timezone.localdate().replace(day=1) - timedelta(days=1)
    return last, datetime(last.year, last.month, 10, 11, tzinfo=ZoneInfo("Asia/Kolkata"))


@pytest.fixture
def urls(pound, district):
    last, _day = _last_month()
    return {
        "monthly": reverse("office:monthly_return", args=[pound.pk, last.year, last.month, "pdf"]),
        "district": reverse(
            "office:district_return", args=[district.pk, last.year, last.month, "pdf"]
        ),
    }


def _lines(pdf):
    return [line.strip() for line in readpdf.text(pdf, layout=True).splitlines()]


def _entries(pound, keeper, count):
    _last, day = _last_month()
    for _ in range(count):
        pay(make_entry(pound=pound, by=keeper, arrived_at=day, animals=[goat()]), keeper)


def test_a_closed_months_return_is_kept_and_not_drawn_again(
    client, pound, pound_keeper, auditor, tariffs, urls, monkeypatch
):
    _entries(pound, pound_keeper, 1)
    client.force_login(auditor)
    first = {name: client.get(url).content for name, url in urls.items()}

    monkeypatch.setattr(return_documents, "render_pdf", _must_not_draw)

    for name, url in urls.items():
        assert client.get(url).content == first[name]
    for document in IssuedDocument.objects.filter(kind=IssuedDocument.Kind.RETURN):
        assert document.file and document.drawn_from
    monthly = IssuedDocument.objects.get(kind=IssuedDocument.Kind.RETURN, pound=pound)
    assert monthly.sha256 == hashlib.sha256(first["monthly"]).hexdigest()


def test_a_kept_return_whose_figures_change_is_drawn_afresh(
    client, pound, pound_keeper, auditor, tariffs, urls
):
    _entries(pound, pound_keeper, 1)
    client.force_login(auditor)
    kept = client.get(urls["monthly"]).content
    document = IssuedDocument.objects.get(kind=IssuedDocument.Kind.RETURN, pound=pound)

    # An entry for the month written late: the figures are no longer those of the kept file.
    _entries(pound, pound_keeper, 1)
    again = client.get(urls["monthly"]).content

    assert again != kept
    goats = [line.split() for line in _lines(again) if line.startswith("Goat")]
    assert goats and goats[0][1:3] == ["0", "2"], goats  # none at the start, two impounded
    document.refresh_from_db()
    with document.file.open("rb") as handle:
        assert handle.read() == kept  # the return as first issued stays the kept one


def test_a_month_in_progress_is_never_kept(client, pound, pound_keeper, tariffs):
    today = timezone.localdate()
    client.force_login(pound_keeper)
    url = reverse("office:monthly_return", args=[pound.pk, today.year, today.month, "pdf"])
    client.get(url)
    assert not IssuedDocument.objects.filter(kind=IssuedDocument.Kind.RETURN).exists()


@pytest.mark.parametrize("name", ["monthly", "district"])
def test_a_returns_queries_do_not_grow_with_its_rows(
    client, pound, pound_keeper, auditor, tariffs, urls, name, django_assert_max_num_queries
):
    """Drawn, then served from the kept file, at 1 and at 7 entries: the same queries."""
    client.force_login(auditor)
    client.get(urls[name])  # the first print registers it, in queries of its own

    def counted():
        IssuedDocument.objects.filter(kind=IssuedDocument.Kind.RETURN).update(file="")
        counts = []
        for _drawn_then_kept in range(2):
            with django_assert_max_num_queries(30) as captured:
                assert client.get(urls[name]).status_code == 200
            counts.append(len(captured.captured_queries))
        return counts

    _entries(pound, pound_keeper, 1)
    small = counted()
    _entries(pound, pound_keeper, 6)
    assert counted() == small
    assert small[1] < small[0]  # the kept file: no checkpoint or storage writes
