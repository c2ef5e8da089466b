"""The static files built from assets/ (scripts/build-static) are what the sources give: the
fonts with the rupee sign in the Latin file, and Bootstrap with only the rules in use. A template
that starts using a Bootstrap class the built file dropped fails here until the build is re-run."""

import subprocess
import sys
from pathlib import Path

from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parents[2]
FONTS = ROOT / "static" / "fonts"


def test_built_static_files_are_up_to_date():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build-static"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_rupee_sign_is_in_the_latin_fonts_and_devanagari_is_only_devanagari():
    for weight in (400, 700):
        latin = TTFont(FONTS / f"noto-sans-latin-{weight}-normal.woff2").getBestCmap()
        assert 0x20B9 in latin and ord("A") in latin
        devanagari = TTFont(FONTS / f"noto-sans-devanagari-devanagari-{weight}-normal.woff2")
        assert ord("ह") in devanagari.getBestCmap()
        assert (FONTS / f"noto-sans-devanagari-devanagari-{weight}-normal.woff2").stat().st_size < (
            45 * 1024
        )


def test_fonts_css_keeps_the_devanagari_file_to_devanagari_text():
    css = (FONTS / "fonts.css").read_text()
    faces = css.split("@font-face")[1:]
    devanagari = [f for f in faces if '"Noto Sans Devanagari"' in f]
    assert len(devanagari) == 2
    assert all("unicode-range: U+0900-097F" in f for f in devanagari)
    latin = [f for f in faces if '"Noto Sans"' in f]
    assert all("U+20B9" in f for f in latin)


def test_bootstrap_keeps_the_classes_in_use_and_drops_the_rest():
    css = (ROOT / "static" / "vendor" / "bootstrap" / "css" / "bootstrap.min.css").read_text()
    source = (ROOT / "assets" / "bootstrap" / "bootstrap.min.css").read_text()
    assert len(css) < len(source) / 3
    for used in (".navbar-toggler", ".btn-outline-secondary", ".form-control", ".is-invalid"):
        assert used in css, used
    assert css.startswith('@charset "UTF-8";/*!') and "Bootstrap" in css[:200]  # its licence
    for unused in (".carousel-item", ".offcanvas-start", ".toast-header", ".spinner-grow"):
        assert unused in source and unused not in css, unused
    assert "data-bs-theme=dark" not in css
