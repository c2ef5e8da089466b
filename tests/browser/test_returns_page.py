"""The returns page (s.7) at 360 px wide: the office chooses the district's consolidation and a
pound's return and cash book, downloads the CSV of the return, and axe-core finds no WCAG A/AA
violation; the page reflows without horizontal scrolling (its tables scroll in their regions)."""

import csv
import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from tests.browser.conftest import check_a11y, check_fits_width, pass_second_factor, screenshot
from tests.impounding.factories import cow, goat, make_entry, pay, set_tariffs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, base, username):
    page.goto(f"{base}/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_label("Password").press("Enter")
    pass_second_factor(page, base, username)


def test_office_chooses_and_downloads_returns(
    live_server, page, district, pound, pound_keeper, dm_clerk, settings
):
    # As under `make run`: the worker's task runs inside the request that asks for it.
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    set_tariffs(district)
    entry = make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(hours=5),
        animals=[cow(), goat()],
    )
    pay(entry, pound_keeper)
    today = timezone.localdate()
    base = live_server.url
    sign_in(page, base, "dm_clerk")

    page.goto(f"{base}{reverse('office:returns')}")
    screenshot(page, "returns-default")
    check_a11y(page, "returns")
    check_fits_width(page)

    page.get_by_label("Pound, or the whole district").select_option(
        label=f"Whole district: {district.name}"
    )
    page.get_by_label("Month of the return").fill(f"{today:%Y-%m}")
    page.get_by_role("button", name="Show the figures").click()
    page.wait_for_load_state()
    asks = page.locator("form", has=page.get_by_role("button", name="Return as PDF"))
    assert asks.locator('input[name="what"]').get_attribute("value") == "district_return"
    assert asks.locator('input[name="pk"]').get_attribute("value") == str(district.pk)
    screenshot(page, "returns-district")
    check_a11y(page, "returns, district")
    check_fits_width(page)

    page.get_by_label("Pound, or the whole district").select_option(label=pound.name)
    page.get_by_label("Day of the cash book").fill(today.isoformat())
    page.get_by_role("button", name="Show the figures").click()
    page.wait_for_load_state()
    region = page.get_by_role("region", name="Cash book", exact=True)
    assert "₹22,200.00" in region.inner_text()
    screenshot(page, "returns-pound")
    check_a11y(page, "returns, pound")
    check_fits_width(page)

    page.get_by_role("button", name="Return as CSV").click()
    page.wait_for_load_state()
    expect(page.get_by_text("The file is ready.")).to_be_visible()
    screenshot(page, "returns-prepared")
    check_a11y(page, "returns, prepared file")
    with page.expect_download() as info:
        page.get_by_role("link", name="Download").click()
    download = info.value
    assert download.suggested_filename == f"return-{pound.code}-{today:%Y-%m}.csv"
    text = Path(download.path()).read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[-1][3] == "All categories"
    assert rows[-1][rows[0].index("Fines (s.12)")] == "21400.00"
