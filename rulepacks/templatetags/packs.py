"""The draft pack's warning on the screens and documents that apply it (docs/decisions/0068):
a pack still awaiting the State's notification says so wherever its rules are used."""

from django import template
from django.template.loader import render_to_string

from ..services import pack_for, pack_of

register = template.Library()

# Where a page's or document's context names the register entry whose pinned pack it applies.
ENTRY_KEYS = ("entry", "impoundment", "receipt", "case", "statement", "lot", "order", "release")
PLACE_KEYS = ("pound", "district", "order", "report", "notice", "auction", "body")


def _pinned_id(obj):
    """The pack pinned by `obj`, an entry or a record of one; (False, None) when it names none."""
    for candidate in (obj, getattr(obj, "impoundment", None)):
        if candidate is not None and hasattr(candidate, "rule_pack_id"):
            return True, candidate.rule_pack_id
    return False, None


def pack_in_context(context):
    """The pack the page or document applies: its entry's own, else its district's now."""
    for key in ENTRY_KEYS:
        found, pack_id = _pinned_id(context.get(key))
        if found:
            return pack_of(pack_id)
    for key in PLACE_KEYS:
        place = context.get(key)
        place = getattr(place, "pound", place)  # an order, report, notice or auction: its pound's
        district = getattr(place, "district", place) if place is not None else None
        if district is not None and hasattr(district, "state_id"):
            return pack_for(district)
    return None


@register.simple_tag(takes_context=True)
def unverified_pack(context, document=False):
    """The warning, when the pack applied is a draft; nothing otherwise."""
    pack = pack_in_context(context)
    if pack is None or pack.verified:
        return ""
    return render_to_string(
        "rulepacks/_unverified_line.html",
        {"pack": pack, "document": document, "second": context.get("second")},
    )
