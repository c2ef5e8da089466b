"""CSV exports of the register and of the ledger, for the user's jurisdiction.

An export may run to hundreds of thousands of rows, so it is never built in memory. Each cell is
written by the database: the labels in the user's language, the times in IST and the guard
against formulas are SQL expressions of the export's query (`register_queryset`,
`ledger_queryset`). On PostgreSQL the query runs inside `COPY ... TO STDOUT (FORMAT csv)`, so the
server writes the CSV and Python passes its lines on in blocks of about 64 kB; a csv writer in
Python, line by line, was half of an export's time (docs/capacity.md). On SQLite, the demo's, the
same query's rows go through Python's csv writer, which writes what COPY writes. Either way memory
stays flat whatever the size, and the first bytes leave at once.

The files open in Excel as they are: UTF-8 with a byte-order mark, one header row, lines ending
in a line feed, times in IST as YYYY-MM-DD HH:MM, amounts as plain decimals, an empty cell for no
value. Free text that Excel would take for a formula is kept as text (see
return_documents.csv_text).
"""

import csv
import io
import re
from contextlib import nullcontext
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connections, transaction
from django.db.models import (
    Case,
    CharField,
    F,
    Func,
    OuterRef,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import NullIf
from django.utils.translation import gettext as _

from accounts.models import District
from accounts.roles import Permission, Scope
from accounts.scoping import grants_for
from impounding.models import (
    AgeClass,
    Animal,
    AnimalState,
    Impoundment,
    SeizerCapacity,
    SeizureBasis,
    Sex,
    Species,
)
from ledger.models import AccountKind, Posting, TransactionKind

from .return_documents import BOM, FORMULA_STARTS, TEXT_MARK
from .returns import day_start

CHUNK_SIZE = 2000
BLOCK_BYTES = 64 * 1024


def stream_csv(header, queryset):
    """Bytes of a CSV file, in blocks: the BOM and the header first, then a line for each row
    of `queryset` (values of text cells, in the header's order)."""
    head = (BOM + _line(header)).encode("utf-8")
    connection = connections[queryset.db]
    if connection.vendor == "postgresql":
        return copied_blocks(head, queryset, connection)
    return written_blocks(head, queryset)


def _line(cells):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(cells)
    return buffer.getvalue()


def copied_blocks(head, queryset, connection):
    """The file as PostgreSQL's COPY writes it: one statement, read as it is sent.

    The statement lasts as long as the reader takes to download the file, and a request's
    statement timeout (DB_STATEMENT_TIMEOUT, 30 s) would cut a large file on a slow line: the
    COPY runs under a command's (DB_WORK_STATEMENT_TIMEOUT), and the connection's own is put
    back after it, however the response ends."""
    sql, params = queryset.query.get_compiler(connection=connection).as_sql()
    statement = f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)"
    block, size = [head], len(head)
    # Inside a transaction (a test's, a caller's), a COPY cut short by a reader that went away
    # fails its transaction: a savepoint keeps it usable, so that the timeout is put back.
    # A streamed response runs after the view's transaction, in autocommit, and needs none.
    kept = transaction.atomic(using=connection.alias) if connection.in_atomic_block else None
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        (before,) = cursor.fetchone()
        cursor.execute(SET_TIMEOUT, [f"{settings.DB_WORK_STATEMENT_TIMEOUT}s"])
        try:
            # Logged as a query is when the connection logs them (DEBUG, tests).
            logged = getattr(cursor, "debug_sql", None)
            with kept or nullcontext(), logged(statement, params) if logged else nullcontext():
                with cursor.cursor.copy(statement, params) as copy:
                    for line in copy:
                        block.append(line)
                        size += len(line)
                        if size >= BLOCK_BYTES:
                            yield b"".join(block)
                            block, size = [], 0
        finally:
            cursor.execute(SET_TIMEOUT, [before])
    yield b"".join(block)


SET_TIMEOUT = "SELECT set_config('statement_timeout', %s, false)"


def written_blocks(head, queryset):
    """The same file written by Python's csv writer, from the rows read in chunks."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    yield head
    rows = queryset.iterator(chunk_size=CHUNK_SIZE)
    while True:
        for _count, row in zip(range(CHUNK_SIZE), rows, strict=False):
            writer.writerow(row)
        text = buffer.getvalue()
        if not text:
            return
        yield text.encode("utf-8")
        buffer.seek(0)
        buffer.truncate()


class IstMinute(Func):
    """A moment as YYYY-MM-DD HH:MM in the settings' zone (IST), written by the database: an
    export has four a row, and making datetimes in Python only to print them was a third of
    its time. India keeps no summer time, so SQLite (the demo's) adds the zone's fixed offset."""

    output_field = CharField()
    arity = 1

    def as_postgresql(self, compiler, connection, **extra):
        zone = settings.TIME_ZONE
        if not ZONE_NAME.fullmatch(zone):
            raise ValueError(f"unexpected TIME_ZONE {zone!r}")
        template = f"to_char(%(expressions)s AT TIME ZONE '{zone}', 'YYYY-MM-DD HH24:MI')"
        return self.as_sql(compiler, connection, template=template, **extra)

    def as_sqlite(self, compiler, connection, **extra):
        offset = datetime.now(ZoneInfo(settings.TIME_ZONE)).utcoffset()
        minutes = int(offset.total_seconds() // 60)
        # Func.as_sql formats the template once and the driver's placeholders once more.
        template = (
            f"strftime('%%%%Y-%%%%m-%%%%d %%%%H:%%%%M', %(expressions)s, '{minutes:+d} minutes')"
        )
        return self.as_sql(compiler, connection, template=template, **extra)


class PlainAmount(Func):
    """An amount of money as text with its two decimals, written by the database: 1234.50, as
    return_documents.plain writes it. SQLite (the demo's) keeps it as a float."""

    output_field = CharField()
    arity = 1

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(
            compiler, connection, template="round((%(expressions)s)::numeric, 2)::text", **extra
        )

    def as_sqlite(self, compiler, connection, **extra):
        template = "printf('%%%%.2f', %(expressions)s)"
        return self.as_sql(compiler, connection, template=template, **extra)


ZONE_NAME = re.compile(r"[A-Za-z_]+(/[A-Za-z_+-]+)*")


def _label(field, choices, *, short=True):
    """The label of `field`'s value in the language of the export: the labels are looked up
    once per file and the database picks one a row; no value, or one without a label, is an
    empty cell."""
    whens = [
        When(**{field: value}, then=Value(str(label).split(" (")[0] if short else str(label)))
        for value, label in choices.choices
    ]
    return Case(*whens, default=None, output_field=CharField())


class SpreadsheetText(Func):
    """Free text for a spreadsheet cell, written by the database: return_documents.csv_text for
    a whole column. An empty text is no value, so that COPY writes an empty cell for it."""

    output_field = CharField()
    arity = 1

    def as_sql(self, compiler, connection, **extra):
        text, params = compiler.compile(self.source_expressions[0])
        starts = ", ".join(["%s"] * len(FORMULA_STARTS))
        sql = (
            f"NULLIF(CASE WHEN substr({text}, 1, 1) IN ({starts}) THEN %s || {text}"
            f" ELSE {text} END, '')"
        )
        return sql, (*params, *FORMULA_STARTS, TEXT_MARK, *params, *params)


def _no_empty(field):
    return NullIf(field, Value(""))


def _range(queryset, field, date_from, date_to):
    """Rows whose `field` (a moment) falls on an IST day from date_from to date_to."""
    if date_from:
        queryset = queryset.filter(**{f"{field}__gte": day_start(date_from)})
    if date_to:
        queryset = queryset.filter(**{f"{field}__lt": day_start(date_to + timedelta(days=1))})
    return queryset


# --- The register -------------------------------------------------------------------------------


def register_header():
    return [
        _("Pound code"),
        _("Pound"),
        _("Register number"),
        _("Animal no."),
        _("Arrived at (IST)"),
        _("Seized at (IST)"),
        _("Place of seizure"),
        _("Village of seizure"),
        _("Basis of seizure"),
        _("Seizer"),
        _("Seizer's residence"),
        _("Seizer's capacity"),
        _("Owner"),
        _("Owner's residence"),
        _("Species"),
        _("Sex"),
        _("Age"),
        _("Colour"),
        _("Marks or brands"),
        _("Ear tag"),
        _("Born in the pound at (IST)"),
        _("Calf of animal no."),
        _("State of the animal"),
        _("Custody ended at (IST)"),
    ]


def register_cells():
    """The register export's cells, in the order of its header."""
    return {
        "c_pound_code": F("impoundment__pound__code"),
        "c_pound": SpreadsheetText("impoundment__pound__name"),
        "c_register_number": F("impoundment__register_number"),
        "c_number": F("number"),
        "c_arrived": IstMinute("impoundment__arrived_at"),
        "c_seized": IstMinute("impoundment__seized_at"),
        "c_place": SpreadsheetText("impoundment__seizure_place"),
        "c_village": SpreadsheetText("impoundment__seizure_village__name"),
        "c_basis": _label("impoundment__basis", SeizureBasis),
        "c_seizer": SpreadsheetText("impoundment__seizer_name"),
        "c_seizer_residence": SpreadsheetText("impoundment__seizer_residence"),
        "c_capacity": _label("impoundment__seizer_capacity", SeizerCapacity),
        "c_owner": SpreadsheetText("impoundment__owner_name"),
        "c_owner_residence": SpreadsheetText("impoundment__owner_residence"),
        "c_species": _label("species", Species),
        "c_sex": _label("sex", Sex),
        "c_age": _label("age_class", AgeClass),
        "c_colour": SpreadsheetText("colour"),
        "c_marks": SpreadsheetText("marks"),
        "c_ear_tag": SpreadsheetText("ear_tag"),
        "c_born": IstMinute("born_at"),
        "c_dam": F("dam__number"),
        "c_state": _label("state", AnimalState, short=False),
        "c_ended": IstMinute("custody_ended_at"),
    }


def register_queryset(pound_ids, date_from=None, date_to=None):
    """The animals of the pounds' register entries that arrived in the period, by primary key:
    a row of text cells each, no model instances, no photos."""
    queryset = Animal.objects.filter(pound_id__in=pound_ids)
    queryset = _range(queryset, "impoundment__arrived_at", date_from, date_to)
    cells = register_cells()
    return queryset.annotate(**cells).order_by("pk").values_list(*cells)


# --- The ledger ---------------------------------------------------------------------------------


def ledger_header():
    return [
        _("Transaction"),
        _("Date and time (IST)"),
        _("District code"),
        _("Pound code"),
        _("Kind of transaction"),
        _("Section"),
        _("Particulars"),
        _("Source record"),
        _("Register number"),
        _("Reverses transaction"),
        _("Recorded by"),
        _("Account"),
        _("Debit"),
        _("Credit"),
        _("Amount (debit +, credit −)"),
    ]


def district_wide_ids(user, perm):
    """The districts over which the user holds `perm` as a whole (a district-, State- or
    system-wide grant), not merely through one of their pounds."""
    wide = [
        g
        for g in grants_for(user)
        if g.allows(perm) and g.scope in (Scope.NONE, Scope.STATE, Scope.DISTRICT)
    ]
    if not wide:
        return []
    q = Q(pk__in=[])
    for g in wide:
        if g.scope == Scope.NONE:
            q = Q()
            break
        q |= Q(pk=g.scope_id) if g.scope == Scope.DISTRICT else Q(state_id=g.scope_id)
    return list(District.objects.filter(q).values_list("pk", flat=True))


def ledger_cells():
    """The ledger export's cells, in the order of its header: a debit is a positive amount, a
    credit a negative one, written without its sign in its own column."""
    # order_by(): the register's own ordering would sort the one row it finds, once a posting.
    register = (
        Impoundment.objects.filter(pk=OuterRef("transaction__impoundment_id"))
        .order_by()
        .values("register_number")[:1]
    )
    return {
        "c_transaction": F("transaction_id"),
        "c_at": IstMinute("transaction__at"),
        "c_district_code": F("transaction__district__code"),
        "c_pound_code": F("transaction__pound__code"),
        "c_kind": _label("transaction__kind", TransactionKind, short=False),
        "c_section": _no_empty("transaction__section"),
        "c_memo": SpreadsheetText("transaction__memo"),
        "c_source": _no_empty("transaction__source"),
        "c_register_number": Subquery(register),
        "c_reverses": F("transaction__reverses_id"),
        "c_by": F("transaction__by__username"),
        "c_account": _label("account__kind", AccountKind, short=False),
        "c_debit": Case(When(amount__gt=0, then=PlainAmount("amount"))),
        "c_credit": Case(When(amount__lt=0, then=PlainAmount(-F("amount")))),
        "c_amount": PlainAmount("amount"),
    }


def ledger_queryset(pound_ids, district_ids=(), date_from=None, date_to=None):
    """The postings of the pounds' transactions, and of the districts' transactions that belong
    to no pound, in the period, by primary key (postings are never updated: the order is that
    of posting)."""
    scope = Q(transaction__pound_id__in=pound_ids)
    if district_ids:
        scope |= Q(transaction__pound__isnull=True, transaction__district_id__in=district_ids)
    queryset = _range(Posting.objects.filter(scope), "transaction__at", date_from, date_to)
    cells = ledger_cells()
    return queryset.annotate(**cells).order_by("pk").values_list(*cells)


def consolidating_district_ids(user):
    """Districts whose consolidated return the user may see: the office's and the auditors',
    over the whole district (a pound-keeper sees only his pounds)."""
    return sorted(
        set(district_wide_ids(user, Permission.VIEW_REPORTS))
        & set(district_wide_ids(user, Permission.VIEW_LEDGER))
    )
