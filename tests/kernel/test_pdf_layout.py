"""The shared print styles (static/css/pdf.css) keep a document's signatures with what they sign."""

from weasyprint import HTML

from kernel.documents import _stylesheets
from tests import readpdf


def _pdf(filler_mm, tail):
    font_config, sheets = _stylesheets()
    html = f'<div style="height: {filler_mm}mm">Filler</div>{tail}'
    return HTML(string=html).write_pdf(stylesheets=sheets, font_config=font_config)


SIGNED = (
    '<div class="box">The last statement</div>'
    '<table class="signatures"><tr><td class="sealed"><div class="seal">Office seal</div>'
    '<div class="line">Signed here</div></td></tr></table>'
)


def test_signatures_never_start_a_page_alone():
    # The filler leaves room for the box but not for the signatures under it.
    pages = readpdf.page_texts(_pdf(245, SIGNED))
    assert len(pages) == 2
    signed = next(p for p in pages if "Signed here" in p)
    assert "The last statement" in signed and "Office seal" in signed


def test_signatures_stay_on_the_page_when_there_is_room():
    pages = readpdf.page_texts(_pdf(150, SIGNED))
    assert len(pages) == 1
