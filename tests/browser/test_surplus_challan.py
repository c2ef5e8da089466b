"""The challan of a surplus credited to the State (s.17; ADR 0076) in a real browser, in English
and Hindi, at 360 px and 1280 px with axe: the clerk opens it from the surplus register, meets
the error summary, checks the answers and sees the confirmation; the Magistrate confirms it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from office import services as office
from office.models import TreasuryChallan
from tests.auctions.factories import conditions
from tests.browser.conftest import at_both_widths, sign_in
from tests.office.factories import received_surplus

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_clerk_records_the_grn_and_the_magistrate_confirms_it(
    page,
    live_server,
    district,
    pound,
    pound_keeper,
    police_officer,
    dm_clerk,
    magistrate,
    tariffs,
    lang,
):
    conditions(district, by=dm_clerk)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    deposit = office.transfer_expired_surplus(
        deposit=held, today=held.expires_on + timedelta(days=1)
    )
    base = live_server.url
    sign_in(page, base, dm_clerk.username, lang)
    page.goto(f"{base}/office/surplus/?list=closed")
    page.locator(f"a[href='/office/surplus/{deposit.pk}/challan/new/']").press("Enter")
    page.wait_for_url(f"{base}/office/surplus/{deposit.pk}/challan/new/")
    page.locator("form button.btn-primary").press("Enter")  # nothing entered
    page.wait_for_selector("[data-error-summary]")
    at_both_widths(page, f"surplus-challan-errors-{lang}")

    page.locator("#id_grn").fill("GRN 2026 7001")
    page.locator("#id_cin").fill("0002390260511200077")
    page.locator("#id_scroll_number").fill("SC-12")
    page.locator("#id_scroll_date").fill(timezone.localdate().strftime("%d-%m-%Y"))
    page.locator("#id_scroll_date").press("Enter")
    page.wait_for_selector("button[name='confirm']")
    at_both_widths(page, f"surplus-challan-check-{lang}")
    assert not TreasuryChallan.objects.exists()
    page.locator("button[name='confirm']").press("Enter")
    page.wait_for_url(f"{base}/office/surplus/{deposit.pk}/challan/")
    page.wait_for_selector("[data-testid='confirmation-panel']")
    at_both_widths(page, f"surplus-challan-recorded-{lang}")
    assert page.locator("#id_checked").count() == 0  # the recorder does not confirm

    sign_in(page, base, magistrate.username, lang)
    page.goto(f"{base}/office/surplus/{deposit.pk}/challan/")
    at_both_widths(page, f"surplus-challan-confirm-{lang}")
    page.locator("#id_checked").check()
    page.locator("#id_checked").press("Enter")
    page.wait_for_selector("[data-testid='confirmation-panel']")
    at_both_widths(page, f"surplus-challan-confirmed-{lang}")
    challan = TreasuryChallan.objects.get(surplus=deposit)
    assert challan.recorded_by == dm_clerk and challan.confirmed_by == magistrate
