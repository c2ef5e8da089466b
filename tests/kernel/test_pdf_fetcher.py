"""WeasyPrint fetches only static files and data: URIs for a document, never the network or
another file on the server (issue 11)."""

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from weasyprint import HTML

from kernel.documents import _url_fetcher
from tests.readpdf import images

PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Bw"
    "HwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        f"file://{Path(__file__).resolve()}",
        "file:///work/../etc/hostname",
        "http://127.0.0.1:9/secret.png",
        "https://169.254.169.254/latest/meta-data/",
        "ftp://example.org/x",
    ],
)
def test_the_fetcher_refuses_anything_but_static_files_and_data(url):
    with pytest.raises(ValueError, match="not fetched"):
        _url_fetcher().fetch(url)


def test_the_fetcher_serves_static_files_and_data_uris():
    fonts = Path(finders.find("fonts/fonts.css")).resolve()

    assert _url_fetcher().fetch(fonts.as_uri()).status in (None, 200)
    assert _url_fetcher().fetch(PIXEL).status in (None, 200)


def test_a_document_embeds_its_own_image_and_not_a_server_file():
    def draw(body):
        html = HTML(string=f"<html><body>{body}</body></html>", url_fetcher=_url_fetcher())
        return html.write_pdf()

    own = draw(f'<img src="{PIXEL}">')
    probe = draw(
        f'<img src="{PIXEL}"><img src="file:///etc/hostname">'
        f'<img src="file://{finders.find("fonts/fonts.css")}/../../../../etc/hostname">'
        '<img src="http://127.0.0.1:9/x.png">'
    )

    assert images(own) >= 1
    assert images(probe) == images(own)  # the server's files and the network drew nothing
