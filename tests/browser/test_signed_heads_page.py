"""The public page of the event log's signed heads (/verify/), as a visitor's browser shows it:
every chain's signed link, readable and accessible, on a phone's width too."""

from kernel import anchors
from tests.browser.conftest import check_a11y, check_fits_width
from tests.kernel.test_signed_checkpoints import chain, signing_key

__all__ = ["chain", "signing_key"]  # fixtures used here


def test_the_signed_heads_page(page, live_server, signing_key, chain):
    signed, problems = anchors.write_checkpoint()
    assert problems == []

    response = page.goto(f"{live_server.url}/verify/")

    assert response.status == 200
    assert page.get_by_role("heading", level=1).inner_text() == "Signed heads of the event log"
    table = page.locator("#signed-heads")
    assert signed.heads[chain][1] in table.inner_text()
    check_a11y(page, "signed heads")
    page.set_viewport_size({"width": 360, "height": 740})
    check_fits_width(page)
