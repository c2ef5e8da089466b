"""Writing a scale data set fast: ids taken from each table's sequence ahead of the rows, rows
streamed with PostgreSQL's COPY, and the counters and chain heads the services would leave."""

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, models
from psycopg.copy import QueuedLibpqWriter

from accounts.models import Counter
from kernel.models import ChainHead


def take_ids(model, n):
    """`n` fresh primary keys of `model`'s table, as the rows' own inserts would have drawn."""
    if n == 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [model._meta.db_table, n],
        )
        return [row[0] for row in cursor.fetchall()]


def _writers(fields):
    """Per column: a function of a row giving the value to COPY. A field left out of the row
    takes its default, worked out once per table (no row leaves out a field whose default
    varies, such as a timestamp or a token)."""
    writers = []
    for f in fields:
        default = f.get_default()
        if isinstance(f, models.JSONField):
            encoder = f.encoder or DjangoJSONEncoder
            writers.append(
                lambda row, a=f.attname, d=default, e=encoder: json.dumps(row.get(a, d), cls=e)
            )
        else:
            writers.append(lambda row, a=f.attname, d=default: row.get(a, d))
    return writers


def _copy(cursor, sql):
    # A writer thread sends each block while the next rows are formatted: the server's work
    # (indexes, the ledger's balance trigger) overlaps with ours on a second core.
    raw = cursor.cursor
    return raw.copy(sql, writer=QueuedLibpqWriter(raw))


def copy_rows(model, rows):
    """COPY `rows` (dicts by attname, each with its id) into `model`'s table. Fields left out
    take their model default, so a row reads back as the ORM would have written it."""
    if not rows:
        return 0
    fields = model._meta.concrete_fields
    names = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    sql = f"COPY {connection.ops.quote_name(model._meta.db_table)} ({names}) FROM STDIN"
    with connection.cursor() as cursor, _copy(cursor, sql) as copy:
        writers = _writers(fields)
        for row in rows:
            copy.write_row([w(row) for w in writers])
    return len(rows)


def copy_links(through, left, right, pairs):
    """COPY the rows of a many-to-many table: (left id, right id) pairs."""
    if not pairs:
        return 0
    table = connection.ops.quote_name(through._meta.db_table)
    sql = f"COPY {table} ({left}, {right}) FROM STDIN"
    with connection.cursor() as cursor, _copy(cursor, sql) as copy:
        for pair in pairs:
            copy.write_row(pair)
    return len(pairs)


def counter_values(prefix):
    """{key: value} of the counters whose key starts with `prefix`."""
    return dict(Counter.objects.filter(key__startswith=prefix).values_list("key", "value"))


def save_counters(values):
    """Leave each counter at the last serial used, so the next real document continues it."""
    Counter.objects.bulk_create(
        [Counter(key=key, value=value) for key, value in values.items()],
        update_conflicts=True,
        unique_fields=["key"],
        update_fields=["value"],
    )


def chain_heads():
    return {h.chain: (h.seq, h.hash) for h in ChainHead.objects.all()}


def save_heads(heads):
    ChainHead.objects.bulk_create(
        [ChainHead(chain=chain, seq=seq, hash=hash_) for chain, (seq, hash_) in heads.items()],
        update_conflicts=True,
        unique_fields=["chain"],
        update_fields=["seq", "hash"],
    )
