"""The CSV exports at two sizes: the same queries whatever the number of rows (one read of the
rows, one COPY, nothing per row), and the same file as the rows say."""

import csv
import io
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models.expressions import RawSQL
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from django.utils.translation import gettext

from accounts.models import District, Pound
from impounding.models import Animal, Impoundment, Species
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
        years=3,
        append=append,
        stdout=io.StringIO(),
    )


def _export(header, queryset):
    """The export's bytes and the queries that made them, with chunks small enough that the
    larger size takes several round trips."""
    with CaptureQueriesContext(connection) as queries:
        content = b"".join(exports.stream_csv(header(), queryset))
    return content, len(queries.captured_queries)


def _register():
    pound_ids = list(Pound.objects.values_list("pk", flat=True))
    return _export(exports.register_header, exports.register_queryset(pound_ids))


def _ledger():
    pound_ids = list(Pound.objects.values_list("pk", flat=True))
    district_ids = list(District.objects.values_list("pk", flat=True))
    queryset = exports.ledger_queryset(pound_ids, district_ids)
    return _export(exports.ledger_header, queryset)


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
    # The connection's statement timeout read and raised, the COPY, the timeout put back; here,
    # inside the test's transaction, the COPY inside a savepoint too (exports.copied_blocks).
    assert large_queries == small_queries == 6


TRICKY = {
    "owner_name": '=HYPERLINK("http://example.invalid")',
    "seizure_place": 'Near the well, "old" road\nSultanpur',
    "seizer_residence": "",
}


@pytest.mark.parametrize("export", ["register", "ledger"])
def test_postgresql_writes_the_file_that_python_writes(export):
    """COPY (PostgreSQL) and the csv writer (SQLite, the demo's) give the same bytes: quotes,
    commas and line breaks in the text, a formula kept as text, empty cells for no value, the
    labels in the user's language."""
    seed(20)
    entry = Impoundment.objects.order_by("pk").first()
    Impoundment.objects.filter(pk=entry.pk).update(**TRICKY)
    Animal.objects.filter(impoundment=entry).update(marks="-left ear cut", colour="")
    pound_ids = list(Pound.objects.values_list("pk", flat=True))
    with translation.override("hi"):
        if export == "register":
            header, queryset = exports.register_header(), exports.register_queryset(pound_ids)
        else:
            district_ids = list(District.objects.values_list("pk", flat=True))
            header = exports.ledger_header()
            queryset = exports.ledger_queryset(pound_ids, district_ids)
        head = "\ufeff".encode() + ",".join(header).encode() + b"\n"
        copied = b"".join(exports.copied_blocks(head, queryset, connection))
        written = b"".join(exports.written_blocks(head, queryset))

    assert copied == written
    names, *rows = _rows(copied)
    assert len(rows) == queryset.count() > 20
    with translation.override("hi"):
        column = {name: names.index(gettext(name)) for name in COLUMNS[export]}
        cattle = str(Species.CATTLE.label).split(" (")[0]
    assert cattle != "Cattle"
    if export == "register":
        row = next(r for r in rows if r[column["Owner"]].startswith("'="))
        assert row[column["Owner"]] == "'" + TRICKY["owner_name"]
        assert row[column["Place of seizure"]] == TRICKY["seizure_place"]
        assert row[column["Marks or brands"]] == "'-left ear cut"
        assert row[column["Colour"]] == row[column["Seizer's residence"]] == ""
        assert any(r[column["Species"]] == cattle for r in rows)
    else:
        debit, credit = column["Debit"], column["Credit"]
        assert sum(Decimal(r[debit] or 0) for r in rows) == sum(
            Decimal(r[credit] or 0) for r in rows
        )
        assert all(bool(r[debit]) != bool(r[credit]) for r in rows)


COLUMNS = {
    "register": [
        "Owner",
        "Place of seizure",
        "Marks or brands",
        "Colour",
        "Seizer's residence",
        "Species",
    ],
    "ledger": ["Debit", "Credit"],
}


def test_a_copy_outlasts_a_requests_statement_timeout_and_puts_it_back(settings, monkeypatch):
    """A large file on a slow line takes longer to download than a request's statement may
    run: the COPY runs under the commands' limit, and the connection's own is put back after
    it, also when the reader goes away half-way."""
    seed(20)
    settings.DB_WORK_STATEMENT_TIMEOUT = 1234
    monkeypatch.setattr(exports, "BLOCK_BYTES", 1024)
    queryset = exports.register_queryset(list(Pound.objects.values_list("pk", flat=True)))
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = '7s'")

    def timeout():
        with connection.cursor() as cursor:
            cursor.execute("SHOW statement_timeout")
            return cursor.fetchone()[0]

    with CaptureQueriesContext(connection) as queries:
        content = b"".join(exports.copied_blocks(b"", queryset, connection))
    sent = [q["sql"] for q in queries.captured_queries]
    copy = next(i for i, sql in enumerate(sent) if sql.startswith("COPY"))
    raised = sent[copy - 2]  # then the savepoint, the test being inside a transaction
    assert "'1234s'" in raised and "statement_timeout" in raised and "SAVEPOINT" in sent[copy - 1]
    assert content.count(b"\n") == Animal.objects.count()
    assert timeout() == "7s"

    blocks = exports.copied_blocks(b"", queryset, connection)
    next(blocks)
    blocks.close()  # the reader went away: the COPY is cancelled
    assert timeout() == "7s"


def test_a_copy_cut_short_inside_a_transaction_leaves_it_usable(settings, monkeypatch):
    """The reader goes away while PostgreSQL is still sending the file (its first row fills
    the server's buffer, each next one waits a tenth of a second): the COPY is cancelled inside
    the test's transaction, which stays usable, with the timeout put back."""
    seed(5)
    monkeypatch.setattr(exports, "BLOCK_BYTES", 1024)
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = '7s'")
    queryset = exports.register_queryset(list(Pound.objects.values_list("pk", flat=True)))
    slow = queryset.annotate(
        pad=RawSQL("repeat('x', 20000)", []), pause=RawSQL("pg_sleep(0.1)::text", [])
    )
    blocks = exports.copied_blocks(b"", slow, connection)
    next(blocks)
    blocks.close()  # the reader went away mid-COPY: cancelled, the transaction still usable
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "7s"
    assert Animal.objects.exists()
