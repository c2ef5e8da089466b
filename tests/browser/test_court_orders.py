"""A court's order at 360 px wide, in English and in Hindi: the pound-keeper records it with its
scan and the cow stays in the pound, flagged as awaiting its check; the District Magistrate's
clerk checks it against the court's record and confirms it, and only then is the cow released.
axe-core finds no WCAG A/AA violation on any page visited (docs/decisions/0056)."""

import pytest
from django.utils import timezone, translation
from playwright.sync_api import expect

from impounding.models import AnimalState, CourtOrder
from tests.browser.conftest import check_a11y, check_fits_width, screenshot, sign_in
from tests.impounding.factories import make_entry, set_tariffs
from tests.pdfs import SCAN_PDF

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def look(page, name):
    screenshot(page, f"court-order-{name}")
    check_a11y(page, name)
    check_fits_width(page)


def words(lang):
    def t(text):
        with translation.override(lang):
            return translation.gettext(text)

    return t


def record(page, base, entry, scan, t, lang):
    page.goto(f"{base}{entry.get_absolute_url()}")
    page.get_by_role("link", name=t("Court orders release (s.19)")).click()
    page.wait_for_load_state()
    look(page, f"record-{lang}")
    page.locator("input[name=animals]").first.check()
    page.locator("input[name=kind][value=civil]").check()
    page.locator("#id_court").fill("Civil Judge (Junior Division), Mohanlalganj")
    page.locator("#id_case_number").fill("O.S. 112/2026")
    page.locator("#id_order_date").fill(timezone.localdate().isoformat())
    page.locator("#id_scan").set_input_files(str(scan))
    page.locator("#id_order_text").fill("The cow be released to Harish Chandra.")
    page.get_by_role("button", name=t("Record the order for checking")).click()
    page.wait_for_url(f"{base}{entry.get_absolute_url()}")


def check(page, base, t, lang):
    page.goto(f"{base}/office/approvals/")
    page.get_by_role("link", name=f"{t('Check')} O.S. 112/2026").click()
    page.wait_for_load_state()
    look(page, f"check-{lang}")
    page.get_by_role("button", name=t("Record the check")).click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()
    look(page, f"check-errors-{lang}")
    page.locator("input[name=outcome][value=confirmed]").check()
    page.locator("input[name=how][value=court_website]").check()
    page.locator("#id_reference").fill("CNR UPLK020011122026")
    page.get_by_role("button", name=t("Record the check")).click()
    page.wait_for_url(f"{base}/office/approvals/")


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_record_then_check_then_released(
    page, live_server, tmp_path, district, pound, pound_keeper, dm_clerk, lang
):
    t = words(lang)
    set_tariffs(district)
    entry = make_entry(pound=pound, by=pound_keeper)
    cow = entry.animals.get()
    scan = tmp_path / "order.pdf"
    scan.write_bytes(SCAN_PDF)
    base = live_server.url

    sign_in(page, base, "pound_keeper", lang)
    record(page, base, entry, scan, t, lang)
    expect(page.get_by_test_id("awaiting-order")).to_be_visible()
    assert (
        t("Court-order release awaiting its check")
        in page.get_by_test_id("awaiting-order").inner_text()
    )
    look(page, f"awaiting-{lang}")
    cow.refresh_from_db()
    assert cow.state == AnimalState.IMPOUNDED
    page.goto(f"{base}/")
    assert "O.S. 112/2026" in page.get_by_test_id("court-orders").inner_text()
    look(page, f"keeper-home-{lang}")

    sign_in(page, base, "dm_clerk", lang)
    check(page, base, t, lang)
    message = t("Court order %(case)s confirmed: the animals are released.")
    assert message % {"case": "O.S. 112/2026"} in page.get_by_role("status").first.inner_text()

    cow.refresh_from_db()
    order = CourtOrder.objects.get()
    assert (cow.state, cow.court_order) == (AnimalState.RELEASED_BY_ORDER, order)
    assert (order.status, order.reviewed_by) == (CourtOrder.Status.RELEASED, dm_clerk)
    page.goto(f"{base}{entry.get_absolute_url()}")
    assert "CNR UPLK020011122026" in page.get_by_test_id("court-order-status").inner_text()
    look(page, f"released-{lang}")
