"""The reflow check itself (WCAG 1.4.10 at 360 px): it fails on any sideways scroll, including a
line of text that runs past a box narrow enough on its own (a long reference in a heading made
10 px of sideways scroll on the auction page after a sale, with no element's box past the edge),
and it lets pass what scrolls inside a box of its own (a wide table in .table-responsive)."""

import pytest

from tests.browser.conftest import check_fits_width

pytestmark = pytest.mark.browser

LONG_WORD = "CERT/POUND12/2026/00001/1/WITH/MORE/ROOM/THAN/A/PHONE/HAS"


def test_a_line_of_text_past_the_edge_fails(page):
    page.set_content(f"<body style='margin:0'><h2 style='font-size:24px'>Sold {LONG_WORD}</h2>")
    with pytest.raises(AssertionError, match=r"wider than the viewport.*text in H2"):
        check_fits_width(page)


def test_an_element_past_the_edge_fails(page):
    page.set_content("<body style='margin:0'><div style='width:400px'>wide</div>")
    with pytest.raises(AssertionError, match=r"40px wider than the viewport.*DIV"):
        check_fits_width(page)


def test_what_scrolls_in_its_own_box_passes(page):
    page.set_content(
        "<body style='margin:0'><div style='overflow-x:auto'>"
        f"<table><tr><td style='white-space:nowrap'>{LONG_WORD * 3}</td></tr></table></div>"
        f"<h2 style='overflow-wrap:break-word'>Sold {LONG_WORD}</h2>"
    )
    check_fits_width(page)
