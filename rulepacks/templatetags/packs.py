"""The draft pack's warning on the screens and documents that apply it (docs/decisions/0068):
a pack still awaiting the State's notification says so wherever its rules are used."""

from django import template
from django.template.loader import render_to_string

from accounts.scoping import visible_district_ids

from ..models import DistrictRulePack
from ..services import pack_of

register = template.Library()

# Where a page's or document's context names the register entry whose pinned pack it applies.
ENTRY_KEYS = ("entry", "impoundment", "receipt", "case", "statement", "lot", "order", "release")
PLACE_KEYS = ("pound", "district", "order", "report", "notice", "auction", "body", "claim")


def _pinned_id(obj):
    """The pack pinned by `obj`, an entry or a record of one; (False, None) when it names none."""
    for candidate in (obj, getattr(obj, "impoundment", None)):
        if candidate is not None and hasattr(candidate, "rule_pack_id"):
            return True, candidate.rule_pack_id
    return False, None


def _district_in(context):
    """The district of the first place the context names: a pound, a district, or a record
    made at a pound or in a district (an order, report, notice, auction, claim: its pound's)."""
    for key in PLACE_KEYS:
        place = context.get(key)
        for hop in ("pound", "gaushala"):  # an upkeep claim's body is in its district
            place = getattr(place, hop, place)
        district = getattr(place, "district", place) if place is not None else None
        if district is not None and hasattr(district, "state_id"):
            return district
    return None


def entry_pack_in_context(context):
    """The pack pinned by the register entry the page or document is about; None without one."""
    for key in ENTRY_KEYS:
        found, pack_id = _pinned_id(context.get(key))
        if found:
            return pack_of(pack_id)
    return None


def draft_packs(district_ids):
    """(code, version) of the draft packs the districts take now, in one query whatever their
    number: a district without a choice takes the central Act, which is verified."""
    chosen = DistrictRulePack.objects.filter(district_id__in=district_ids, pack__verified=False)
    return sorted(set(chosen.values_list("pack__code", "pack__version")))


def draft_packs_in_context(context, *, spanning=True):
    """The draft packs a screen or document applies, and whether they are its entry's: the
    entry's own, else its place's district's now, else (a list or board spanning districts,
    when `spanning`) those of the districts the user works in now."""
    pinned = context.get("pinned_packs")
    if pinned:  # a screen of many entries' animals (the lots): each entry's pinned pack
        return sorted({(p.code, p.version) for p in pinned if not p.verified}), True
    pack = entry_pack_in_context(context)
    if pack is not None:
        return ([] if pack.verified else [(pack.code, pack.version)]), True
    district = _district_in(context)
    if district is not None:
        return draft_packs([district.pk]), False
    user = getattr(context.get("request"), "user", None) or context.get("user")
    if not spanning or user is None:
        return [], False
    return draft_packs(visible_district_ids(user)), False


@register.simple_tag(takes_context=True)
def unverified_pack(context, document=False):
    """The warning, when the pack applied is a draft; nothing otherwise."""
    drafts, of_entry = draft_packs_in_context(context, spanning=not document)
    if not drafts:
        return ""
    return render_to_string(
        "rulepacks/_unverified_line.html",
        {
            "packs": [{"code": code, "version": version} for code, version in drafts],
            "document": document,
            "of_entry": of_entry,
            "second": context.get("second"),
        },
    )
