"""The gaushala handover at 360 px (ADR 0070): under the Uttar Pradesh pack the DM's clerk adds
a body to the register, prepares the handover of a cow (first with nothing filled in, to see the
errors), the Magistrate approves it on the disposal decision screen and the certificate is
offered, then the clerk prepares the month's upkeep claim. axe-core finds nothing on any page."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from playwright.sync_api import expect

from auctions.models import DisposalOrder, Gaushala
from auctions.services import gaushala as gaushalas
from tests.auctions.factories import conditions, ready_for_sale
from tests.browser.conftest import check_a11y, check_fits_width, screenshot
from tests.browser.test_s16 import sign_in
from tests.rulepacks.factories import take

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def look(page, name):
    screenshot(page, f"gaushala-{name}")
    check_a11y(page, name)
    check_fits_width(page)


def test_clerk_prepares_and_magistrate_approves_a_handover(
    page, live_server, pound, district, pound_keeper, police_officer, dm_clerk, magistrate, tariffs
):
    take(district, "up")
    conditions(district)
    entry, _notice = ready_for_sale(pound=pound, keeper=pound_keeper, officer=police_officer)
    base = live_server.url

    sign_in(page, base, "dm_clerk")
    page.goto(base + reverse("auctions:auctions"))
    page.get_by_role("link", name="Gaushalas and welfare bodies").click()
    look(page, "register-empty")
    page.get_by_role("link", name="Add a body").click()
    page.get_by_label("Kind of body").select_option("gaushala")
    page.get_by_label("Name").fill("Shri Krishna Gaushala, Mohanlalganj")
    page.get_by_label("Registration number").fill("UP/GS/2019/0042")
    page.get_by_label("Address").fill("Mohanlalganj, Lucknow")
    page.get_by_label("Capacity (head of cattle)").fill("40")
    page.get_by_label("Agreed upkeep a head a day (₹)").fill("50.00")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("[data-error-summary]")).to_be_visible()
    look(page, "register-errors")
    page.get_by_label("Order or authority that fixed the rate").fill("DM order 112/2026")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/auctions/gaushalas/$"))
    look(page, "register")
    body = Gaushala.objects.get()

    page.get_by_role("link", name="Prepare a handover order").click()
    page.get_by_role("button", name="Send for approval").click()
    expect(page.locator("[data-error-summary]")).to_be_visible()
    look(page, "handover-errors")
    page.get_by_label("Gaushala or welfare body").select_option(str(body.pk))
    page.get_by_label(re.compile(entry.animals.get().reference)).check()
    page.get_by_label("Why the animals are handed over").fill("A cow may not be sold in UP")
    page.get_by_role("button", name="Send for approval").click()
    page.wait_for_url(re.compile(r"/auctions/disposals/$"))
    look(page, "disposals")

    sign_in(page, base, "magistrate")
    page.goto(base + reverse("auctions:disposals"))
    page.get_by_role("link", name=re.compile("^Decide")).click()
    look(page, "decide")
    page.get_by_label("Approve the disposal").check()
    page.get_by_role("button", name="Record the decision").click()
    page.wait_for_url(re.compile(r"/auctions/disposals/$"))
    order = DisposalOrder.objects.get()
    assert order.status == DisposalOrder.Status.APPROVED
    assert order.handover.certificate is not None
    page.goto(base + reverse("auctions:disposal_decide", args=[order.pk]))
    certificate = page.get_by_role("link", name="The certificate of handover as a PDF")
    assert certificate.get_attribute("href") == reverse(
        "auctions:handover_certificate_pdf", args=[order.pk]
    )
    look(page, "decided")

    first = (order.handover.received_on.replace(day=1) + timedelta(days=32)).replace(day=1)
    days = gaushalas.animal_days(body, first)
    with time_machine.travel(first + timedelta(days=40)):
        sign_in(page, base, "dm_clerk")
        page.goto(base + reverse("auctions:upkeep_claim_new"))
        look(page, "claim-new")
        page.get_by_label("Gaushala or welfare body").select_option(str(body.pk))
        page.get_by_label("Month").fill(f"{first:%Y-%m}")
        page.get_by_label("Animal-days claimed").fill(str(days))
        page.get_by_role("button", name="Send for approval").click()
        page.wait_for_url(re.compile(r"/auctions/gaushalas/upkeep/$"))
        look(page, "claims")
