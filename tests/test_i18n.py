"""Every string is translatable and the Hindi catalogue is complete and compiled."""

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


def _untranslated(catalog):
    missing = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            missing.append(message.id)
    return missing


def test_hindi_catalogue_is_complete():
    with PO.open("rb") as f:
        catalog = read_po(f)
    assert len(catalog) > 50
    assert _untranslated(catalog) == []


def test_compiled_catalogue_matches_the_po_file():
    with PO.open("rb") as f:
        po = {m.id: m.string for m in read_po(f) if m.id and not m.fuzzy}
    with MO.open("rb") as f:
        mo = {
            (tuple(m.id) if isinstance(m.id, list) else m.id): (
                tuple(m.string) if isinstance(m.string, list) else m.string
            )
            for m in read_mo(f)
            if m.id
        }
    assert mo == po, "run `make messages` and commit locale/hi/LC_MESSAGES/django.mo"


@pytest.mark.skipif(
    shutil.which("xgettext") is None and os.environ.get("CI", "").lower() not in ("true", "1"),
    reason="needs gettext (xgettext) to extract strings",
)
def test_no_string_in_the_code_is_missing_from_the_catalogue(tmp_path):
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
    with (copy / "locale" / "hi" / "LC_MESSAGES" / "django.po").open("rb") as f:
        catalog = read_po(f)
    assert _untranslated(catalog) == []
