"""The other auction screens at 360 px: the District Magistrate's conditions, the list of
auctions, scheduling refused before the lawful date, a bidder blocked under s.19 and cleared by
the Magistrate, a lot not sold, closing, and the disposal orders (s.14 proviso). axe-core finds
nothing on any of them."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from auctions import services
from auctions.models import Auction, DisposalOrder, Lot
from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
from tests.browser.conftest import check_a11y, check_fits_width, screenshot
from tests.browser.test_s16 import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"auction-{name}")


def test_auction_screens_are_accessible(
    page, live_server, pound, district, pound_keeper, police_officer, dm_clerk, magistrate, tariffs
):
    conditions(district)
    ready = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    report, notice = report_and_notice(
        ready, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9
    )
    early = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    early_report, early_notice = report_and_notice(
        early, pound_keeper, police_officer, sent_days_ago=3, posted_days_ago=3
    )
    silent = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    silent_report, _silent_notice = report_and_notice(
        silent, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9, drums=False
    )
    base = live_server.url

    # The DM's office records new conditions of sale.
    sign_in(page, base, "dm_clerk")
    page.goto(base + reverse("auctions:conditions"))
    look(page, "conditions")
    page.get_by_role("link", name="New standing order").click()
    look(page, "conditions-new")
    page.get_by_role("button", name="Record the order").click()
    page.wait_for_load_state()
    expect(page.locator("[data-error-summary]")).to_be_visible()  # named messages (ADR 0030)
    look(page, "conditions-errors")

    # The officer: an early date is refused beside the date field, with the lawful date.
    sign_in(page, base, "police_officer")
    page.goto(base + reverse("auctions:auction_new") + f"?report={early_report.pk}")
    page.get_by_label("Date and time of sale (IST)").fill(
        timezone.localtime(timezone.now() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    )
    page.get_by_role("button", name="Schedule the auction").click()
    page.wait_for_load_state()
    lawful = early_notice.earliest_sale.strftime("%d-%m-%Y")
    expect(
        page.get_by_text(re.compile(f"earliest lawful date .* is {lawful}")).first
    ).to_be_visible()
    look(page, "schedule-too-early")

    # No drum recorded: refused at the top of the page, in the error summary (s.14).
    page.goto(base + reverse("auctions:auction_new") + f"?report={silent_report.pk}")
    page.get_by_label("Date and time of sale (IST)").fill(
        timezone.localtime(timezone.now() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    )
    page.get_by_role("button", name="Schedule the auction").click()
    page.wait_for_load_state()
    summary = page.locator("[data-error-summary]")
    expect(summary.get_by_text(re.compile("not been proclaimed by beat of drum"))).to_be_visible()
    look(page, "schedule-no-drums")

    # The ready one is scheduled; a staff member's namesake registers and is blocked.
    page.goto(base + reverse("auctions:auction_new") + f"?report={report.pk}")
    page.get_by_label("Date and time of sale (IST)").fill(
        timezone.localtime(timezone.now() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    )
    page.get_by_role("button", name="Schedule the auction").click()
    page.wait_for_url(re.compile(r"/auctions/\d+/$"))
    auction = Auction.objects.get()
    services.register_bidder(
        auction=auction,
        by=police_officer,
        name=pound_keeper.get_full_name(),
        address="Samesi",
        id_kind="voter",
        id_number="X1",
        phone="9000000001",
        declaration_signed=True,
    )
    page.goto(base + auction.get_absolute_url())
    expect(page.get_by_text("Blocked: may not bid or buy")).to_be_visible()
    look(page, "blocked-bidder")
    page.goto(base + reverse("auctions:auctions"))
    look(page, "list")

    # The lot is not sold; the auction is closed.
    lot = auction.lots.get()
    page.goto(base + reverse("auctions:lot_unsold", kwargs={"pk": lot.pk}))
    look(page, "lot-unsold")
    page.get_by_label("Why the lot was not sold").fill("No bid")
    page.get_by_role("button", name="Mark not sold").click()
    page.wait_for_url(re.compile(r"/auctions/\d+/#lot-1$"))
    page.get_by_role("link", name="Close the auction").click()
    look(page, "close")
    page.get_by_role("button", name="Close the auction").click()
    page.wait_for_url(re.compile(r"/auctions/\d+/$"))
    assert Lot.objects.get().status == Lot.Status.UNSOLD

    # The Magistrate clears the namesake (for the record), and the office proposes disposal.
    sign_in(page, base, "magistrate")
    page.goto(base + auction.get_absolute_url())
    page.get_by_role("link", name=re.compile("^Clear")).click()
    look(page, "override")
    page.get_by_role("textbox", name=re.compile("^Why the bidder is not an officer")).fill(
        "A namesake"
    )
    page.get_by_role("button", name="Clear the block").click()
    page.wait_for_url(re.compile(r"/auctions/\d+/#bidder-\d+$"))

    sign_in(page, base, "dm_clerk")
    page.goto(base + auction.get_absolute_url())
    page.get_by_role("link", name="Propose disposal").click()
    look(page, "disposal-new")
    page.get_by_label("Why a fair price is unlikely at auction").fill("Old; no bid at auction")
    page.get_by_label("Recipient").fill("Shri Krishna Gaushala, Nigohan")
    page.get_by_role("button", name="Send for approval").click()
    page.wait_for_url(re.compile(r"/auctions/disposals/$"))
    look(page, "disposals")

    sign_in(page, base, "magistrate")
    page.goto(base + reverse("auctions:disposals"))
    page.get_by_role("link", name=re.compile("^Decide")).click()
    look(page, "disposal-decide")
    page.get_by_label("Approve the disposal").check()
    page.get_by_role("button", name="Record the decision").click()
    page.wait_for_url(re.compile(r"/auctions/disposals/$"))
    assert DisposalOrder.objects.get().status == DisposalOrder.Status.APPROVED
    look(page, "disposals-decided")
