"""CSV exports of the register and of the ledger, for the user's jurisdiction.

An export may run to hundreds of thousands of rows, so it is never built in memory: the rows
are read with `iterator(chunk_size=...)` (a server-side cursor on PostgreSQL) in primary-key
order, written through a csv writer, and sent in blocks of about 64 kB as a streaming response.
Memory stays flat whatever the size, and the first bytes leave at once.

The files open in Excel as they are: UTF-8 with a byte-order mark, one header row, times in IST
as YYYY-MM-DD HH:MM, amounts as plain decimals. Free text that Excel would take for a formula
is kept as text (see return_documents.csv_text).
"""

import csv
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import CharField, Func, OuterRef, Q, Subquery
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

from .return_documents import BOM, csv_text, plain
from .returns import day_start

CHUNK_SIZE = 2000
BLOCK_BYTES = 64 * 1024


class _Echo:
    """A file-like object whose write() hands back what it is given, for csv.writer."""

    def write(self, value):
        return value


def stream_csv(header, rows):
    """Bytes of a CSV file, in blocks: the BOM and the header first, then the rows."""
    writer = csv.writer(_Echo())
    block = [BOM, writer.writerow(header)]
    size = 0
    for row in rows:
        line = writer.writerow(row)
        block.append(line)
        size += len(line)
        if size >= BLOCK_BYTES:
            yield "".join(block).encode("utf-8")
            block, size = [], 0
    yield "".join(block).encode("utf-8")


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
        template = f"strftime('%%Y-%%m-%%d %%H:%%M', %(expressions)s, '{minutes:+d} minutes')"
        return self.as_sql(compiler, connection, template=template, **extra)


ZONE_NAME = re.compile(r"[A-Za-z_]+(/[A-Za-z_+-]+)*")


def _labels(choices, *, short=True):
    """{value: label} of a choices class in the language of the export, looked up once per
    file rather than translated once per row; "" for no value."""
    labels = {
        value: str(label).split(" (")[0] if short else str(label)
        for value, label in choices.choices
    }
    return labels | {None: "", "": ""}


def _range(queryset, field, date_from, date_to):
    """Rows whose `field` (a moment) falls on an IST day from date_from to date_to."""
    if date_from:
        queryset = queryset.filter(**{f"{field}__gte": day_start(date_from)})
    if date_to:
        queryset = queryset.filter(**{f"{field}__lt": day_start(date_to + timedelta(days=1))})
    return queryset


# --- The register -------------------------------------------------------------------------------

REGISTER_FIELDS = [
    "pk",
    "impoundment__pound__code",
    "impoundment__pound__name",
    "impoundment__register_number",
    "arrived_ist",
    "seized_ist",
    "impoundment__seizure_place",
    "impoundment__seizure_village__name",
    "impoundment__basis",
    "impoundment__seizer_name",
    "impoundment__seizer_residence",
    "impoundment__seizer_capacity",
    "impoundment__owner_name",
    "impoundment__owner_residence",
    "number",
    "species",
    "sex",
    "age_class",
    "colour",
    "marks",
    "ear_tag",
    "born_ist",
    "dam__number",
    "state",
    "ended_ist",
]


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


def register_queryset(pound_ids, date_from=None, date_to=None):
    """The animals of the pounds' register entries that arrived in the period, by primary key:
    plain tuples, no model instances, no photos."""
    queryset = Animal.objects.filter(pound_id__in=pound_ids)
    queryset = _range(queryset, "impoundment__arrived_at", date_from, date_to)
    return (
        queryset.annotate(
            arrived_ist=IstMinute("impoundment__arrived_at"),
            seized_ist=IstMinute("impoundment__seized_at"),
            born_ist=IstMinute("born_at"),
            ended_ist=IstMinute("custody_ended_at"),
        )
        .order_by("pk")
        .values_list(*REGISTER_FIELDS)
    )


def register_rows(queryset):
    bases, capacities = _labels(SeizureBasis), _labels(SeizerCapacity)
    species_labels, sexes, ages = _labels(Species), _labels(Sex), _labels(AgeClass)
    states = _labels(AnimalState, short=False)
    for (
        _pk,
        pound_code,
        pound_name,
        register_number,
        arrived_at,
        seized_at,
        place,
        village,
        basis,
        seizer,
        seizer_residence,
        capacity,
        owner,
        owner_residence,
        number,
        species,
        sex,
        age_class,
        colour,
        marks,
        ear_tag,
        born_at,
        dam_number,
        state,
        ended_at,
    ) in queryset.iterator(chunk_size=CHUNK_SIZE):
        yield [
            pound_code,
            csv_text(pound_name),
            register_number,
            number,
            arrived_at or "",
            seized_at or "",
            csv_text(place),
            csv_text(village or ""),
            bases[basis],
            csv_text(seizer),
            csv_text(seizer_residence),
            capacities[capacity],
            csv_text(owner),
            csv_text(owner_residence),
            species_labels[species],
            sexes[sex],
            ages[age_class],
            csv_text(colour),
            csv_text(marks),
            csv_text(ear_tag),
            born_at or "",
            dam_number or "",
            states[state],
            ended_at or "",
        ]


# --- The ledger ---------------------------------------------------------------------------------

LEDGER_FIELDS = [
    "pk",
    "transaction_id",
    "at_ist",
    "transaction__district__code",
    "transaction__pound__code",
    "transaction__kind",
    "transaction__section",
    "transaction__memo",
    "transaction__source",
    "register_number",
    "transaction__reverses_id",
    "transaction__by__username",
    "account__kind",
    "amount",
]


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


def ledger_queryset(pound_ids, district_ids=(), date_from=None, date_to=None):
    """The postings of the pounds' transactions, and of the districts' transactions that belong
    to no pound, in the period, by primary key (postings are never updated: the order is that
    of posting)."""
    scope = Q(transaction__pound_id__in=pound_ids)
    if district_ids:
        scope |= Q(transaction__pound__isnull=True, transaction__district_id__in=district_ids)
    queryset = _range(Posting.objects.filter(scope), "transaction__at", date_from, date_to)
    # order_by(): the register's own ordering would sort the one row it finds, once a posting.
    register = (
        Impoundment.objects.filter(pk=OuterRef("transaction__impoundment_id"))
        .order_by()
        .values("register_number")[:1]
    )
    return (
        queryset.annotate(register_number=Subquery(register), at_ist=IstMinute("transaction__at"))
        .order_by("pk")
        .values_list(*LEDGER_FIELDS)
    )


def ledger_rows(queryset):
    kinds, accounts = _labels(TransactionKind, short=False), _labels(AccountKind, short=False)
    for (
        _pk,
        txn,
        at,
        district_code,
        pound_code,
        kind,
        section,
        memo,
        source,
        register_number,
        reverses,
        username,
        account_kind,
        amount,
    ) in queryset.iterator(chunk_size=CHUNK_SIZE):
        yield [
            txn,
            at,
            district_code,
            pound_code or "",
            kinds[kind],
            section,
            csv_text(memo),
            source,
            register_number or "",
            reverses or "",
            username or "",
            accounts[account_kind],
            plain(amount) if amount > 0 else "",
            plain(-amount) if amount < 0 else "",
            plain(amount),
        ]


def consolidating_district_ids(user):
    """Districts whose consolidated return the user may see: the office's and the auditors',
    over the whole district (a pound-keeper sees only his pounds)."""
    return sorted(
        set(district_wide_ids(user, Permission.VIEW_REPORTS))
        & set(district_wide_ids(user, Permission.VIEW_LEDGER))
    )
