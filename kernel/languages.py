"""Which language a document's second half is in (docs/decisions/0069).

A document is printed in English and in the language of the district that issues it: the one its
rule pack names (`[documents] second_language`: "hi" for the central Act and Uttar Pradesh, "mr"
for Maharashtra, "ta" for Tamil Nadu). The kernel cannot read the packs (they sit on a floor
above it), so the rule-pack app registers the function that answers, and each document function
runs inside `documents_for(district_id)`:

    with documents_for(pound.district_id):
        ...  # both(), offices(), {% language second %} use the district's language

Outside any district (a document of no district, a test) it is Hindi, as before packs named one.
A pack may name a language PoundAdmin does not ship yet (Kerala's "ml"): then the document is in
English alone and says which language is awaited; `second_language()` is None.
"""

import functools
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings

from .formatting import amount_in_words

DEFAULT = "hi"
_current: ContextVar[tuple[str | None, str]] = ContextVar(
    "second_language", default=(DEFAULT, DEFAULT)
)
_resolver: list[Callable[[int], str | None]] = []


def shipped():
    """The languages besides English that have a catalogue, a font and formats."""
    return [code for code, _name in settings.LANGUAGES if code != "en"]


def register(resolver):
    """`resolver(district_id)` gives the language its pack names (or None). Called once, by the
    rule-pack app when it is ready."""
    _resolver[:] = [resolver]


def pack_language(district_id):
    """The language the district's pack names, shipped or not; Hindi when no pack says."""
    if district_id is None or not _resolver:
        return DEFAULT
    return _resolver[0](district_id) or DEFAULT


def second_language():
    """The language of the second half of the document being drawn; None when the district's
    pack names one that is not shipped (the document is then in English alone)."""
    return _current.get()[0]


def amount_in_both(amount):
    """An amount in words in English and in the second half's language (English again when the
    pack's language is not shipped), as the documents' `words_en` and `words_hi`."""
    return {
        "words_en": amount_in_words(amount, "en"),
        "words_hi": amount_in_words(amount, second_language() or "en"),
    }


def awaited_language():
    """The code the pack names when it is not shipped ("ml"), else ""."""
    code, named = _current.get()
    return "" if code else named


@contextmanager
def documents_for(district_id):
    named = pack_language(district_id)
    token = _current.set((named if named in shipped() else None, named))
    try:
        yield second_language()
    finally:
        _current.reset(token)


def in_district_language(district_id_of):
    """Decorate a document function: it runs in the language of the district that
    `district_id_of(*args, **kwargs)` names."""

    def decorate(function):
        @functools.wraps(function)
        def run(*args, **kwargs):
            with documents_for(district_id_of(*args, **kwargs)):
                return function(*args, **kwargs)

        return run

    return decorate


def template_context():
    """What every document template is given: `second` for {% language second %} ("en" when
    there is none, the halves then hidden by the body's class) and the awaited language."""
    code = second_language()
    return {"second": code or "en", "second_awaited": awaited_language()}
