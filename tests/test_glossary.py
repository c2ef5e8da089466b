"""Every Hindi string uses the words of docs/glossary-hi.md for the terms of the Act: the Hindi
catalogue is read (with Babel, no gettext needed) and each translation whose English names a term
must contain its Hindi word or one of the accepted forms."""

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|\{[{%].*?[}%]\}")
NOT_AFTER = {"Magistrate": "District "}  # "Magistrate" alone, not in "District Magistrate"


def glossary():
    rows = {}
    for line in (ROOT / "docs" / "glossary-hi.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("English", "---") and cells[1]:
            forms = [cells[1], *[f.strip() for f in cells[2].split(",") if f.strip()]]
            rows[cells[0]] = forms
    return rows


def _pattern(term):
    before = NOT_AFTER.get(term)
    guard = f"(?<!{re.escape(before)})" if before else ""
    return re.compile(guard + r"(?<![\w-])" + re.escape(term) + r"(?![\w-])", re.IGNORECASE)


def _pairs():
    with open(ROOT / "locale" / "hi" / "LC_MESSAGES" / "django.po", "rb") as f:
        catalogue = read_po(f)
    for message in catalogue:
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        yield PLACEHOLDER.sub(" ", ids[0]), " ".join(strings)


def test_glossary_lists_the_acts_main_terms():
    terms = glossary()
    for term in ("pound", "pound-keeper", "fine", "seizure", "auction", "District Magistrate"):
        assert term in terms


def test_every_hindi_string_uses_the_glossarys_words():
    terms = {term: (_pattern(term), forms) for term, forms in glossary().items()}
    wrong = []
    for english, hindi in _pairs():
        for term, (pattern, forms) in terms.items():
            if pattern.search(english) and not any(form in hindi for form in forms):
                wrong.append(f"{term!r} -> {forms[0]}: {english[:70]!r} = {hindi[:70]!r}")
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize("language", ["mr", "ta"])
def test_the_statutory_terms_are_those_the_catalogue_uses(language):
    """docs/glossary-<language>.md's statutory terms are words the catalogue prints: a glossary
    that names a word no translation uses is out of date (ADR 0069)."""

    glossary = (ROOT / "docs" / f"glossary-{language}.md").read_text(encoding="utf-8")
    table = glossary.split("## The statutory terms")[1].split("\n## ")[0]
    terms = [row[1].strip() for row in re.findall(r"^\| ([^|]+) \| ([^|]+) \|", table, re.M)[2:]]
    with (ROOT / "locale" / language / "LC_MESSAGES" / "django.po").open("rb") as f:
        catalog = read_po(f)
    printed = "\n".join(
        s for m in catalog for s in (m.string if isinstance(m.string, tuple) else (m.string,))
    )
    assert len(terms) >= 9
    assert [t for t in terms if t not in printed] == []


def test_the_hindi_for_seized_uses_the_glossarys_seizure_and_seizer():
    """ "Seized at/as/under" name the seizure (अभिग्रहण) and the seizer (अभिग्रहणकर्ता) as the
    glossary does, not the everyday ज़ब्त; the board's "Seized at" shows a place and a date."""
    forms = glossary()["seizure"]
    hindi = {english: text for english, text in _pairs() if re.match(r"Seized\b", english)}
    assert {"Seized at", "Seized as", "Seized under"} <= hindi.keys()
    wrong = {e: t for e, t in hindi.items() if "ज़ब्त" in t or not any(f in t for f in forms)}
    assert wrong == {}
    assert "अभिग्रहणकर्ता" in hindi["Seized as"]
    assert "स्थान" in hindi["Seized at"] and "तिथि" in hindi["Seized at"]
