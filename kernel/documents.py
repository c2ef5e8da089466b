"""Every document is a PDF made by WeasyPrint from one template in templates/pdf/.

`render_pdf()` is the only place that calls WeasyPrint. Fonts come from static/fonts through the
same fonts.css the browser uses, given by file path so that nothing is fetched over a network.
Render after the database transaction has committed: never hold row locks while drawing a PDF.
"""

import functools
import hashlib
import os
import ssl
from dataclasses import dataclass

import segno
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.utils import translation

from kernel.languages import second_language, template_context
from kernel.middleware import request_origin

# WeasyPrint (about a second of import) is imported where a document is drawn, so that a command
# or a process that draws none does not pay for it; the app servers import it as they start
# (poundadmin/wsgi.py, preloaded by gunicorn), so no first request pays for it either.


@functools.cache
def _stylesheets(roll=False):
    from weasyprint import CSS
    from weasyprint.text.fonts import FontConfiguration

    font_config = FontConfiguration()
    sheets = [
        CSS(filename=finders.find("fonts/fonts.css"), font_config=font_config),
        CSS(filename=finders.find("css/pdf.css"), font_config=font_config),
    ]
    if roll:
        sheets.append(CSS(filename=finders.find("css/pdf-roll.css"), font_config=font_config))
    return font_config, sheets


@functools.cache
def _ssl_context():
    # WeasyPrint's default fetcher builds an SSL context for each document, which loads the
    # system's certificates: about 20 ms, as long as a whole small document takes to draw.
    return ssl.create_default_context()


def _url_fetcher():
    """A new fetcher per document (it keeps the request it is on), on one SSL context."""
    from kernel.pdffetch import AllowListFetcher

    return AllowListFetcher(allowed_protocols=("file", "data"), ssl_context=_ssl_context())


def render_html(template_name, context, *, language=None):
    """templates/pdf/<template_name> rendered to the HTML a document is drawn from."""
    with translation.override(language or translation.get_language() or settings.LANGUAGE_CODE):
        return render_to_string(template_name, template_context() | context)


def html_basis(template_name, context, *, language=None):
    """The SHA-256 of a document's HTML: what it says, the basis on which a kept copy of it is
    still the document a new drawing would make (accounts.issued.kept_pdf)."""
    html = render_html(template_name, context, language=language)
    return hashlib.sha256(html.encode()).hexdigest()


def kept_drawing(kind, template_name, context, *, stamps=(), roll=False, language=None):
    """The PDF of `template_name` drawn from `context`, kept in the store under the fingerprint
    of what it says (html_basis, with the times of printing in `stamps` left out) and served
    from there while a new drawing would say the same (docs/decisions/0072). The check costs
    one rendering of the template to HTML and a read of the store, not a drawing; a changed
    record, a new day's dues or another language is another fingerprint, so another file. A
    kept file's printing time is that of its first drawing, true while what it says is."""
    unstamped = context | dict.fromkeys(stamps)
    basis = html_basis(template_name, unstamped, language=language)
    name = f"kept/{kind}/{basis[:2]}/{basis}.pdf"
    try:
        with default_storage.open(name, "rb") as handle:
            return handle.read()
    except (FileNotFoundError, OSError):
        pass
    draw = render_roll_pdf if roll else render_pdf
    pdf = draw(template_name, context, language=language)
    if not default_storage.exists(name):  # two first drawings at once: the first stored stays
        default_storage.save(name, ContentFile(pdf))
    return pdf


def render_pdf(template_name, context, *, language=None):
    """Render templates/pdf/<template_name> to PDF bytes."""
    from weasyprint import HTML

    font_config, sheets = _stylesheets()
    html = render_html(template_name, context, language=language)
    document = HTML(
        string=html, base_url=str(settings.BASE_DIR / "static"), url_fetcher=_url_fetcher()
    )
    return document.write_pdf(stylesheets=sheets, font_config=font_config)


def public_base_url():
    """PUBLIC_BASE_URL; in development, when it is not set, the request's own scheme, host and
    port (so QR codes drawn on `PORT=8001 make run` point at 8001); outside a request (the demo's
    seed, run by `make run` before it serves), the port `make run` serves on, PORT."""
    if settings.PUBLIC_BASE_URL:
        return settings.PUBLIC_BASE_URL
    return request_origin() or f"http://127.0.0.1:{os.environ.get('PORT') or 8000}"


# An 80 mm thermal roll prints about 72 mm wide (static/css/pdf-roll.css sets the margins). The
# page is as long as its content: laid out once on a very long page, then cut to the content's
# length (the page's height is only the PDF's MediaBox: the drawing starts at the top, and the
# roll's page prints nothing at its foot). A slip too long even for that runs on over more pages.
ROLL_WIDTH_MM = 80
ROLL_LONGEST_MM = 3000
_PX_PER_MM = 96 / 25.4


@functools.cache
def _roll_page():
    # Parsed once; given the shared fetcher so that parsing it loads no certificates.
    from weasyprint import CSS

    return CSS(
        string=f"@page {{ size: {ROLL_WIDTH_MM}mm {ROLL_LONGEST_MM}mm; }}",
        url_fetcher=_url_fetcher(),
    )


def render_roll_pdf(template_name, context, *, language=None):
    """Render templates/pdf/<template_name> to PDF bytes on an 80 mm roll."""
    from weasyprint import HTML

    font_config, sheets = _stylesheets(roll=True)
    with translation.override(language or translation.get_language() or settings.LANGUAGE_CODE):
        html = render_to_string(template_name, template_context() | context)
    document = HTML(
        string=html, base_url=str(settings.BASE_DIR / "static"), url_fetcher=_url_fetcher()
    )
    laid_out = document.render(stylesheets=[*sheets, _roll_page()], font_config=font_config)
    if len(laid_out.pages) == 1:
        page = laid_out.pages[0]
        box = page._page_box
        root = box.children[0]
        length_mm = (root.position_y + root.margin_height() + box.margin_bottom) / _PX_PER_MM
        page.height = (length_mm + 1) * _PX_PER_MM
    return laid_out.write_pdf()


def public_url(path):
    return f"{public_base_url()}{path}"


def qr_svg(url):
    """An inline SVG QR code for `url` (error correction M, no quiet-zone clipping)."""
    return segno.make(url, error="m").svg_inline(scale=3, border=2, dark="#000")


def verification_context(document):
    url = public_url(document.get_absolute_url())
    return {"document": document, "verify_url": url, "qr_svg": qr_svg(url)}


def pdf_response(pdf_bytes, filename, *, inline=False):
    response = HttpResponse(pdf_bytes, content_type="application/pdf")
    disposition = "inline" if inline else "attachment"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


# Bilingual parts shared by every document --------------------------------------------------


@dataclass(frozen=True)
class Both:
    """One text in English and in the document's second language (kernel.languages; the field
    keeps its first name, `hi`). `same` when there is none yet (or none needed)."""

    en: str
    hi: str

    @property
    def same(self):
        return self.en == self.hi


def both(text):
    """`text` (a lazy string, or a function giving one) evaluated in English and in the
    document's second language."""
    get = text if callable(text) else (lambda: text)
    with translation.override("en"):
        en = str(get())
    second = second_language()
    if second is None:
        return Both(en, en)
    with translation.override(second):
        hi = str(get())
    return Both(en, hi)


def short_label(label):
    """A choice label without its parenthesis: "Cattle (cow, bull, ...)" -> "Cattle"."""
    return str(label).split(" (")[0]


def offices(pound):
    district = pound.district
    with translation.override("en"):
        district_office = str(district.office_label)
    with translation.override(second_language() or "en"):
        district_office_hi = str(district.office_label)
    return {
        "pound_name": Both(pound.name, pound.name_hi or pound.name),
        "district_name": Both(district.name, district.name_hi or district.name),
        "district_office": Both(district_office, district_office_hi),
    }
