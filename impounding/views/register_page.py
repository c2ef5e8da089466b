"""What the register's page draws, worked out once a page rather than by template tags a row or
by the form's templates on every request (ADR 0067: the register at 150 requests a second).

- `register_rows`: the table's rows, drawn here (format_html escapes each value) rather than by
  a template loop of some ten lookups a row. The entries' addresses differ only in their id, so
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

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from kernel.formatting import indatetime

from ..selectors import animal_counts

# A row of the register's table: the entry's number (a link to it) and pound, its arrival, owner,
# animals and those still in the pound, each cell labelled for the narrow screen (table-stack).
ROW = (
    '<tr><th scope="row"><a class="text-nowrap" href="{}">{}</a>'
    '<div class="small fw-normal">{}</div></th>'
    '<td data-label="{}">{}</td>'
    '<td data-label="{}">{}</td>'
    '<td class="text-end" data-label="{}">{}</td>'
    '<td class="text-end" data-label="{}">{}</td></tr>'
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
    labels = [_("Arrived"), _("Owner"), _("Animals"), _("In the pound")]
    rows = []
    for e in page:
        e.animal_count, e.in_pound = counts.get(e.pk, (0, 0))
        rows.append(
            format_html(
                ROW,
                f"{head}{e.pk}{tail}",
                e.register_number,
                e.pound.label,
                labels[0],
                indatetime(e.arrived_at),
                labels[1],
                e.owner_name or "—",
                labels[2],
                e.animal_count,
                labels[3],
                e.in_pound,
            )
        )
    return mark_safe("\n".join(rows))  # noqa: S308 - each row escaped by format_html


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
