"""What the register's page draws, worked out once a page rather than by template tags a row or
by the form's templates on every request (ADR 0067: the register at 150 requests a second).

- `register_rows`: the table's rows, drawn here (each value escaped) rather than by a template
  loop of some ten lookups a row. The entries' addresses differ only in their id, so
  the page reverses one.
- `search_fields`: the search form's four fields as crispy-forms draws them. Drawn empty (no
  search typed: the register's first page and the pages after it) they depend only on the
  language and the pounds offered, so they are kept in the process, keyed by exactly those: the
  language, which fields were sent (blank), and every pound's id and name as offered. Another
  user's pounds, a renamed pound or another language is another key, so a kept drawing can
  never be stale nor shown to someone it was not drawn for, on one app server or several. A
  search typed, or a form with errors, is drawn afresh.
"""

import threading
from collections import OrderedDict
from functools import partial

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from kernel.formatting import indatetime

from ..selectors import animal_counts

# A row of the register's table: the entry's number (a link to it) and pound, its arrival, owner,
# animals and those still in the pound, each cell labelled for the narrow screen (table-stack).
ROW = (
    '<tr><th scope="row"><a class="text-nowrap" href="{url}">{number}</a>'
    '<div class="small fw-normal">{pound}</div></th>'
    '<td data-label="{arrived_label}">{arrived}</td>'
    '<td data-label="{owner_label}">{owner}</td>'
    '<td class="text-end" data-label="{animals_label}">{animals}</td>'
    '<td class="text-end" data-label="{in_pound_label}">{in_pound}</td></tr>'
)
# Any id: the entry's address is reversed once with it, and each row's id put in its place.
_ANY_PK = 987654321
# Drawn search fields kept, the least recently used dropped first: a key is a language and a
# set of pounds, so a few hundred cover every district's users.
SEARCH_FIELDS_KEPT = 512
_drawn = OrderedDict()
_drawn_lock = threading.Lock()


def register_rows(page):
    """The rows of a register page drawn, with each entry's animals and those still in the pound
    counted (kept on the entries too, as `animal_count` and `in_pound`). One query, for the
    page's rows only (animal_counts)."""
    counts = animal_counts([e.pk for e in page])
    head, _pk, tail = reverse("impounding:entry", kwargs={"pk": _ANY_PK}).rpartition(str(_ANY_PK))
    # The labels escaped once for the page, each row's values as they are put in (an entry's
    # id and counts are numbers).
    draw = partial(
        ROW.format,
        arrived_label=escape(_("Arrived")),
        owner_label=escape(_("Owner")),
        animals_label=escape(_("Animals")),
        in_pound_label=escape(_("In the pound")),
    )
    rows = []
    for e in page:
        e.animal_count, e.in_pound = counts.get(e.pk, (0, 0))
        rows.append(
            draw(
                url=escape(f"{head}{e.pk}{tail}"),
                number=escape(e.register_number),
                pound=escape(e.pound.label),
                arrived=escape(indatetime(e.arrived_at)),
                owner=escape(e.owner_name or "—"),
                animals=int(e.animal_count),
                in_pound=int(e.in_pound),
            )
        )
    return mark_safe("\n".join(rows))  # noqa: S308 - every value escaped above


def search_fields(form):
    """The search form's fields drawn (impounding/includes/register_search_fields.html): kept
    when nothing was searched, by the language and the pounds offered; else drawn now."""
    if form.is_bound and (form.errors or any(form.data.get(name) for name in form.fields)):
        return _draw(form)
    pound = form.fields["pound"]
    offered = tuple((str(value), str(label)) for value, label in pound.choices)
    # Sent empty (a later page), a field sent blank draws value="", one not sent none.
    sent = tuple(name in form.data for name in form.fields) if form.is_bound else None
    key = (get_language(), sent, offered)
    with _drawn_lock:
        drawn = _drawn.get(key)
        if drawn is not None:
            _drawn.move_to_end(key)
            return drawn
    drawn = _draw(form)
    with _drawn_lock:
        _drawn[key] = drawn
        while len(_drawn) > SEARCH_FIELDS_KEPT:
            _drawn.popitem(last=False)
    return drawn


def _draw(form):
    return render_to_string("impounding/includes/register_search_fields.html", {"form": form})
