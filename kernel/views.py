"""View helpers every app uses."""

from datetime import date, datetime

from django.core.exceptions import ValidationError
from django.db.models import Q


def add_service_errors(form, error: ValidationError):
    """Put a service's ValidationError beside the fields it names (or at the top of the form)."""
    if hasattr(error, "error_dict"):
        for field, messages in error.message_dict.items():
            target = field if field in form.fields else None
            for message in messages:
                form.add_error(target, message)
    else:
        for message in error.messages:
            form.add_error(None, message)


# --- Keyset pages, for any list ordered by its own fields ---------------------------------


def _cursor_value(field_name, raw):
    if field_name == "pk" or raw.isdigit():  # an id, or a number such as a register serial
        return int(raw)
    return date.fromisoformat(raw) if len(raw) == 10 else datetime.fromisoformat(raw)


def _after(qs, order, after):
    parts = (after or "").split("|")
    if len(parts) != len(order):
        return qs
    names = [f.lstrip("-") for f in order]
    try:
        values = [_cursor_value(n, raw) for n, raw in zip(names, parts, strict=True)]
    except ValueError:
        return qs
    later = Q()
    for i, field_name in enumerate(order):
        step = "lt" if field_name.startswith("-") else "gt"
        equal = dict(zip(names[:i], values[:i], strict=True))
        later |= Q(**{f"{names[i]}__{step}": values[i]}, **equal)
    return qs.filter(later)


def keyset_page(qs, order, *, after=None, size, keys_first=False):
    """One page of `qs` in `order` (its own fields, "-" for descending, ending with "pk") from
    the cursor `after`, as the pound register pages: the cursor is the last row's sort key,
    "<value>|...|<id>", and one that does not parse gives the first page. Returns the rows and
    the next page's cursor (None on the last page). One query, however deep the page.

    `keys_first`: the page's keys are chosen first, in a subquery that reads `qs`'s own table
    (and what its conditions join), and the rows with what `qs` selects with them (its
    `select_related`) are those keys' alone. For a list whose rows are picked by conditions no
    index orders (an open queue), where the planner would otherwise join every candidate and
    sort them all to keep a page (ADR 0093). Still one query. Measure before using it: with
    outer joins (a nullable relation selected) the planner may join every row of the table and
    only then keep the keys'."""
    page = _after(qs.order_by(*order), order, after)
    if keys_first:
        page = qs.filter(pk__in=page.values("pk")[: size + 1]).order_by(*order)
    rows = list(page[: size + 1])
    if len(rows) <= size:
        return rows, None
    rows = rows[:size]
    return rows, "|".join(str(getattr(rows[-1], f.lstrip("-"))) for f in order)
