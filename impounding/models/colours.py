"""Cattle colours in the reader's language (ADR 0081).

A colour is kept as it was entered, a short free text. The usual ones are kept in English (a
keeper who types "भूरा" on a Hindi page, or picks it from the suggestions, stores "Brown"), and
every page and document shows them in its reader's language. A colour that is not on the list
is shown as it was written, in every language."""

from functools import cache

from django.utils import translation
from django.utils.translation import gettext_lazy as _

from kernel.languages import shipped

COLOURS = {
    "Black": _("Black"),
    "White": _("White"),
    "Brown": _("Brown"),
    "Grey": _("Grey"),
    "Red": _("Red"),
    "Fawn": _("Fawn"),
    "Black and white": _("Black and white"),
    "Brown and white": _("Brown and white"),
    "Red and white": _("Red and white"),
    "Spotted": _("Spotted"),
}
# Spellings typed in English for the same colours.
_ALSO = {"gray": "Grey", "black & white": "Black and white", "brown & white": "Brown and white"}


def _key(text):
    return " ".join(str(text).split()).casefold()


def _known():
    """Every way of writing a listed colour, in English and in each shipped language."""
    return _known_in(tuple(shipped()))


@cache
def _known_in(codes):
    """_known for these languages: worked out once a process, since the catalogues do not
    change while it runs (a board of fifty animals asked for it fifty times)."""
    found = {_key(en): en for en in COLOURS} | _ALSO
    for code in codes:
        with translation.override(code):
            found.update({_key(label): en for en, label in COLOURS.items()})
    return found


def canonical_colour(text):
    """The colour as it is kept: a listed colour in English, whatever language it was typed in;
    any other text as typed (trimmed)."""
    text = " ".join(str(text or "").split())
    return _known().get(_key(text), text)


def colour_label(text):
    """The colour in the active language: a listed colour translated, any other as written."""
    en = canonical_colour(text)
    return str(COLOURS[en]) if en in COLOURS else str(text or "")


def colour_suggestions():
    """The listed colours in the active language, for a text box's suggestions."""
    return [str(label) for label in COLOURS.values()]
