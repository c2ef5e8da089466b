"""Conditions on an open set that look a history up by key (docs/decisions/0088)."""

from django.db.models import Subquery


def without(qs, name, related):
    """`qs` without the rows for which `related`, a queryset correlated with `qs` by OuterRef,
    has any row; `name` is the condition's alias, one per call on a queryset.

    Written as NOT EXISTS, PostgreSQL turns the test into an anti-join, and may run it by hashing
    every row of `related`'s table: a history of hundreds of thousands of rows (every report
    link, every custody event) read to keep a few thousand rows of an open set (the cattle in the
    pounds). A scalar subquery cannot be turned into a join: it is run for each row of `qs`, one
    probe of an index on the correlated key each, so the cost follows the open set and not the
    history behind it."""
    return qs.alias(**{name: first_key(related)}).filter(**{f"{name}__isnull": True})


def first_key(related):
    """The key of one row of `related`, a queryset correlated by OuterRef, or None: a scalar
    subquery probed by index for each outer row. `Exists` in a query's columns may instead be run
    as a hashed subplan, reading every row of `related`'s table once (see `without`)."""
    return Subquery(related.order_by().values("pk")[:1])
