"""The CSV exports at two sizes: the same queries whatever the number of rows (one read of the
rows through a server-side cursor, nothing per row), and the same file as the rows say."""

import csv
import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import District, Pound
from impounding.models import Animal
from ledger.models import Posting
from office import exports

pytestmark = pytest.mark.postgres


def seed(entries, *, append=False):
    call_command(
        "seed_scale",
        entries=entries,
        pounds=3,
        districts=2,
        seed=11,
        append=append,
        stdout=io.StringIO(),
    )


def _export(header, rows, queryset):
    """The export's bytes and the queries that made them, with chunks small enough that the
    larger size takes several round trips."""
    with CaptureQueriesContext(connection) as queries:
        content = b"".join(exports.stream_csv(header(), rows(queryset)))
    return content, len(queries.captured_queries)


def _register():
    pound_ids = list(Pound.objects.values_list("pk", flat=True))
    return _export(
        exports.register_header, exports.register_rows, exports.register_queryset(pound_ids)
    )


def _ledger():
    pound_ids = list(Pound.objects.values_list("pk", flat=True))
    district_ids = list(District.objects.values_list("pk", flat=True))
    queryset = exports.ledger_queryset(pound_ids, district_ids)
    return _export(exports.ledger_header, exports.ledger_rows, queryset)


def _rows(content):
    return list(csv.reader(io.StringIO(content.decode("utf-8").removeprefix("\ufeff"))))


@pytest.mark.parametrize(
    ("export", "model"), [(_register, Animal), (_ledger, Posting)], ids=["register", "ledger"]
)
def test_an_exports_queries_do_not_grow_with_its_rows(export, model, monkeypatch):
    monkeypatch.setattr(exports, "CHUNK_SIZE", 50)
    seed(20)
    small, small_queries = export()
    small_rows = model.objects.count()
    # More than at first: a gaushala's monthly upkeep claims, three years of them from its first
    # handover, are a large share of a small set's postings.
    seed(240, append=True)
    large, large_queries = export()
    large_rows = model.objects.count()

    assert large_rows > 4 * small_rows > 0
    assert len(_rows(small)) == 1 + small_rows
    assert len(_rows(large)) == 1 + large_rows
    assert large_queries == small_queries <= 2
