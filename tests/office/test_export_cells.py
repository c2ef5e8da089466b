"""The export's cells are written by the database (office/exports.py): the same text on
PostgreSQL, which writes the files of production, and on SQLite, which writes the demo's."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import CharField, DateTimeField, DecimalField, Value
from django.db.models.sql import Query
from django.db.utils import ConnectionHandler

from office.exports import IstMinute, PlainAmount, SpreadsheetText
from office.return_documents import csv_text, plain


@pytest.fixture(params=["postgresql", "sqlite"])
def database(request):
    if request.param == "postgresql":
        request.getfixturevalue("db")
        yield connection
        return
    # A handler of its own, whose only database is an SQLite file (Django never closes one
    # in memory).
    name = request.getfixturevalue("tmp_path") / "demo.sqlite3"
    handler = ConnectionHandler({"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": name}})
    demo = handler["default"]
    demo.force_debug_cursor = True  # its queries logged, as under `make run` (DEBUG)
    yield demo
    handler.close_all()


def cell(database, expression):
    """What the database writes for `expression`, with the driver's own placeholders."""
    query = Query(None)
    compiler = query.get_compiler(connection=database)
    sql, params = compiler.compile(expression.resolve_expression(query))
    with database.cursor() as cursor:
        cursor.execute(f"SELECT {sql}", params)
        return cursor.fetchone()[0]


@pytest.mark.parametrize(
    "text", ["=SUM(A1)", "+91 98765", "-5", "@cmd", "\tx", "\rx", "Shyam Lal", "'x", "", None]
)
def test_the_formula_guard_is_csv_text(database, text):
    guarded = cell(database, SpreadsheetText(Value(text, CharField())))
    assert guarded == (csv_text(text) or None)  # no text is an empty cell


@pytest.mark.parametrize("amount", ["1234.5", "0.05", "-20000", "12345678.90"])
def test_an_amount_is_written_as_plain_writes_it(database, amount):
    money = Value(Decimal(amount), DecimalField(max_digits=14, decimal_places=2))
    assert cell(database, PlainAmount(money)) == plain(Decimal(amount))


def test_a_moment_is_written_in_ist_to_the_minute(database):
    moment = Value(datetime(2025, 3, 13, 2, 30, 59, tzinfo=UTC), DateTimeField())
    assert cell(database, IstMinute(moment)) == "2025-03-13 08:00"
