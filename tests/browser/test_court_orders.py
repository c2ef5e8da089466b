"""A court's order at 360 px wide: the pound-keeper records it with its scan and the cow stays
in the pound, flagged as awaiting its check; the District Magistrate's clerk checks it against
the court's record and confirms it, and only then is the cow released. axe-core finds no WCAG
A/AA violation on any page visited (docs/decisions/0056)."""

import pytest
from django.utils import timezone

from impounding.models import AnimalState, CourtOrder
from tests.browser.conftest import check_a11y, check_fits_width, screenshot, sign_in
from tests.impounding.factories import make_entry, set_tariffs
from tests.pdfs import SCAN_PDF

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def look(page, name):
    screenshot(page, f"court-order-{name}")
    check_a11y(page, name)
    check_fits_width(page)


def test_record_then_check_then_released(
    page, live_server, tmp_path, district, pound, pound_keeper, dm_clerk
):
    set_tariffs(district)
    entry = make_entry(pound=pound, by=pound_keeper)
    cow = entry.animals.get()
    scan = tmp_path / "order.pdf"
    scan.write_bytes(SCAN_PDF)
    base = live_server.url

    sign_in(page, base, "pound_keeper")
    page.goto(f"{base}{entry.get_absolute_url()}")
    page.get_by_role("link", name="Court orders release (s.19)").click()
    page.wait_for_load_state()
    look(page, "record")
    page.locator("input[name=animals]").first.check()
    page.get_by_label("Order of a Civil Court (s.19)").check()
    page.locator("#id_court").fill("Civil Judge (Junior Division), Mohanlalganj")
    page.get_by_label("Case number").fill("O.S. 112/2026")
    page.get_by_label("Date of the order").fill(timezone.localdate().isoformat())
    page.get_by_label("Scan of the order").set_input_files(str(scan))
    page.get_by_label("What the order says").fill("The cow be released to Harish Chandra.")
    page.get_by_role("button", name="Record the order for checking").click()
    page.wait_for_url(f"{base}{entry.get_absolute_url()}")
    assert "stay in the pound" in page.get_by_role("status").first.inner_text()
    assert page.get_by_test_id("awaiting-order").is_visible()
    look(page, "awaiting")
    cow.refresh_from_db()
    assert cow.state == AnimalState.IMPOUNDED
    page.goto(f"{base}/")
    assert "O.S. 112/2026" in page.get_by_test_id("court-orders").inner_text()
    look(page, "keeper-home")

    sign_in(page, base, "dm_clerk")
    page.goto(f"{base}/office/approvals/")
    page.get_by_role("link", name="Check O.S. 112/2026").click()
    page.wait_for_load_state()
    look(page, "check")
    page.get_by_role("button", name="Record the check").click()
    page.wait_for_load_state()
    assert page.locator("[data-error-summary]").is_visible()
    look(page, "check-errors")
    page.get_by_label("Confirmed: release the animals").check()
    page.get_by_label("The order on the court's website (eCourts)").check()
    page.get_by_label("Reference of the check").fill("CNR UPLK020011122026")
    page.get_by_role("button", name="Record the check").click()
    page.wait_for_url(f"{base}/office/approvals/")
    assert "the animals are released" in page.get_by_role("status").first.inner_text()

    cow.refresh_from_db()
    order = CourtOrder.objects.get()
    assert (cow.state, cow.court_order) == (AnimalState.RELEASED_BY_ORDER, order)
    assert (order.status, order.reviewed_by) == (CourtOrder.Status.RELEASED, dm_clerk)
    page.goto(f"{base}{entry.get_absolute_url()}")
    assert "CNR UPLK020011122026" in page.get_by_test_id("court-order-status").inner_text()
    look(page, "released")
