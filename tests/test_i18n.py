"""Every string is translatable and every shipped language's catalogue is complete and compiled:
Hindi, Marathi and Tamil (docs/decisions/0069). A new language is a new line in LANGUAGES and
fails here until its catalogue is whole."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "locale" / "hi" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")
SECOND = ["hi", "mr", "ta"]
# Python and templates (django), and the field app's scripts (djangojs: Django's JavaScript
# catalogue, ADR 0073).
DOMAINS = ["django", "djangojs"]


def _po(language, domain="django"):
    return ROOT / "locale" / language / "LC_MESSAGES" / f"{domain}.po"


def _untranslated(catalog):
    missing = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            missing.append(message.id)
    return missing


def _done(message):
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    return all(strings)


def test_shipped_languages_are_the_tested_ones(settings):
    assert [code for code, _ in settings.LANGUAGES if code != "en"] == SECOND


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", SECOND)
def test_catalogue_is_complete(language, domain):
    """No untranslated and no fuzzy entry, in any shipped language."""
    with _po(language, domain).open("rb") as f:
        catalog = read_po(f)
    assert len(catalog) > 20
    missing = _untranslated(catalog)
    assert missing == [], f"{language}: {len(missing)} untranslated or fuzzy, e.g. {missing[:3]}"


@pytest.mark.parametrize("language", ["mr", "ta"])
def test_catalogue_has_every_hindi_msgid(language):
    """The Hindi catalogue is the one makemessages keeps; the others hold the same entries."""
    with PO.open("rb") as f:
        hindi = {
            (m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in read_po(f) if m.id
        }
    with _po(language).open("rb") as f:
        other = {
            (m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in read_po(f) if m.id
        }
    assert hindi - other == set()


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", SECOND)
def test_compiled_catalogue_matches_the_po_file(language, domain):
    with _po(language, domain).open("rb") as f:
        po = {m.id: m.string for m in read_po(f) if m.id and not m.fuzzy and _done(m)}
    with _po(language, domain).with_suffix(".mo").open("rb") as f:
        mo = {
            (tuple(m.id) if isinstance(m.id, list) else m.id): (
                tuple(m.string) if isinstance(m.string, list) else m.string
            )
            for m in read_mo(f)
            if m.id
        }
    assert mo == po, f"run `make messages` and commit locale/{language}/LC_MESSAGES/{domain}.mo"


@pytest.mark.skipif(
    shutil.which("xgettext") is None and os.environ.get("CI", "").lower() not in ("true", "1"),
    reason="needs gettext (xgettext) to extract strings",
)
@pytest.mark.parametrize("domain", DOMAINS)
def test_no_string_in_the_code_is_missing_from_the_catalogue(tmp_path, domain):
    """Extract the strings afresh from a copy of the tree: all must already be translated."""
    ignore = shutil.ignore_patterns(
        ".venv",
        "node_modules",
        "staticfiles",
        "media",
        ".git",
        "__pycache__",
        "*.sqlite3",
        "test-artifacts",
    )
    copy = tmp_path / "src"
    shutil.copytree(ROOT, copy, ignore=ignore)
    env = {**os.environ, "DEBUG": "true", "POUNDADMIN_READ_DOT_ENV": "false"}
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "makemessages",
            "-d",
            domain,
            "-l",
            "hi",
            "--no-obsolete",
            "--ignore=static/vendor/*",
            "--ignore=tests/*",
            "-v0",
        ],
        cwd=copy,
        env=env,
        check=True,
        capture_output=True,
    )
    with (copy / "locale" / "hi" / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        catalog = read_po(f)
    assert _untranslated(catalog) == []


def test_the_django_strings_are_still_djangos():
    """kernel/django_strings.py lists Django's own msgids for the project's catalogues: each must
    still be one of Django's, or its translation would never be used."""
    import django

    from kernel import django_strings

    with (Path(django.__file__).parent / "conf/locale/en/LC_MESSAGES/django.po").open("rb") as f:
        djangos = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
    from django.utils import translation

    with translation.override("en"):  # the singular, untranslated
        ours = [*django_strings.STRINGS, *(str(p) for p in django_strings.PLURALS)]
    assert set(ours) - djangos == set()


@pytest.mark.parametrize(
    ("language", "money", "paper"),
    [("hi", "प्राप्ति", "रसीद"), ("mr", "जमा", "पावती"), ("ta", "வரவு", "ரசீது")],
)
def test_receipt_says_which_receipt_it_is(language, money, paper):
    """ "Receipt" is the cash book's column of money received and the paper given for it: each
    has its context and its own word (the glossaries), and none is left without one."""
    with _po(language).open("rb") as f:
        found = {m.context: m.string for m in read_po(f) if m.id == "Receipt"}
    assert found == {"cash book column: money received": money, "the paper receipt": paper}
