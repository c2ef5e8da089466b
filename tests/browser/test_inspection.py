"""The pound-keeper records a veterinary officer's visit at 360 px wide, in English and in Hindi,
from the today board's to-do to the entry's record; axe-core finds no WCAG A/AA violation on the
form, its errors or the record (ADR 0071)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from impounding.models import Inspection
from tests.browser.conftest import check_a11y, check_fits_width, screenshot, sign_in
from tests.impounding.factories import cow, make_entry
from tests.rulepacks.factories import inspecting

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def entry(district, pound, pound_keeper):
    inspecting(district, within_hours=24)
    return make_entry(
        pound=pound,
        by=pound_keeper,
        arrived_at=timezone.now() - timedelta(hours=3),
        animals=[cow(), cow(colour="Black", marks="Left horn broken")],
    )


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"inspection-{name}")


def test_keeper_records_the_inspection_from_the_board(page, live_server, entry):
    base = live_server.url
    sign_in(page, base, "pound_keeper")
    page.goto(base + reverse("impounding:today"))
    due = page.get_by_test_id("inspections-due")
    assert entry.register_number in due.inner_text()
    look(page, "board")

    due.get_by_role("link", name=entry.register_number).click()
    page.wait_for_load_state()
    assert page.get_by_role("heading", level=1).inner_text() == "Record the veterinary inspection"
    assert "due by" in page.get_by_test_id("inspection-due").inner_text()
    look(page, "form")

    page.get_by_role("button", name="Record the inspection").click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()  # named messages (ADR 0030)
    look(page, "errors")

    page.get_by_label("Veterinary officer's name").fill("Dr. Anita Verma")
    page.get_by_label("Designation").fill("Veterinary Officer, Mohanlalganj")
    page.get_by_label("Registration number").fill("UPSVC-4471")
    for i, fitness in ((0, 0), (1, 1)):
        page.locator(f"#id_findings-{i}-condition").fill("Healthy")
        page.locator(f"#id_findings-{i}-marking_applied").fill(f"Ear tag UP-17-{i}")
        page.locator(f"#id_findings-{i}-fitness_{fitness}").check()
    page.get_by_role("button", name="Record the inspection").press("Enter")
    page.wait_for_url(base + entry.get_absolute_url())
    assert Inspection.objects.get().findings.count() == 2
    assert "UPSVC-4471" in page.get_by_test_id("inspection-visit").inner_text()
    look(page, "recorded")


def test_the_form_in_hindi(page, live_server, entry):
    base = live_server.url
    sign_in(page, base, "pound_keeper", lang="hi")
    page.goto(base + reverse("impounding:inspection_new", kwargs={"pk": entry.pk}))
    assert page.get_by_role("heading", level=1).inner_text() == "पशु चिकित्सा निरीक्षण दर्ज करें"
    look(page, "form-hi")
    page.get_by_role("button", name="निरीक्षण दर्ज करें").click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()
    look(page, "errors-hi")
