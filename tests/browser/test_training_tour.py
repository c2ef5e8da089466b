"""The training page's guided tour walked end to end in the demo's training district, in one
run, in English and in Hindi (issue 27, ADR 0080): each step signed in as the demo user the tour
names, done through the pages, with the trainer's buttons moving the clock. The s.14 cycle
(seizure, feeding, report, notice, drums, auction, sale), then release on payment (s.13), a
deposit on dispute (s.15) and the s.16 sale of as many animals as the dues need, with its
account (a)-(f); then the office's money on the district's clock (ADR 0080 addendum): the
surplus received, the fines remitted with their GRN and confirmed by another person against the
CIN and scroll, the surplus's three months run by the clock's 30-day moves and credited to the
State's revenues with its transfer memo, and that transfer's challan recorded and confirmed."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from accounts.models import District, Village
from auctions.models import Auction, Report, S16Case
from demo import register as register_demo
from demo import staff as demo
from demo import unclaimed as unclaimed_demo
from impounding.models import AnimalState, FeedingLog, Impoundment
from kernel import clock
from kernel.formatting import indate
from ledger.checks import run_checks
from office.models import Remittance, SurplusDeposit, TreasuryChallan
from tests import readpdf
from tests.browser.conftest import PASSWORD, check_a11y, check_fits_width, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def trn():
    """The demo as `seed_demo` makes it, without its records: the training district is empty."""
    demo.seed_all(password=PASSWORD)
    register_demo.seed_tariffs()
    unclaimed_demo.seed_conditions()
    return District.objects.get(code="trn")


class Tour:
    """The walk's page, server and language, and the few moves every step makes."""

    def __init__(self, page, base, lang, district):
        self.page, self.base, self.lang, self.district = page, base, lang, district

    def t(self, message):
        with translation.override(self.lang):
            return gettext(message)

    def as_(self, username):
        sign_in(self.page, self.base, username, self.lang)
        expect(self.page.locator("#training-banner")).to_be_visible()

    def click(self, href):
        self.page.locator(f"#main a[href='{href}']").first.click()
        self.page.wait_for_load_state()

    def submit(self, selector="button.btn-primary[type=submit]"):
        self.page.locator(f"#main form {selector}").first.click()
        self.page.wait_for_load_state()

    def status(self):
        return self.page.locator("[role=status]").first.inner_text()

    def now(self):
        return timezone.localtime(clock.now(self.district))

    def move(self, *moves):
        """The trainer moves the clock from the banner's link to the tour page."""
        self.as_("magistrate_trn")
        self.page.locator("#training-banner a").click()
        self.page.wait_for_load_state()
        for how in moves:
            self.page.locator(f"button[name=move][value='{how}']").click()
            self.page.wait_for_load_state()
            expect(self.page.locator("[role=status] .alert-success")).to_be_visible()
        expect(self.page.locator("#training-now")).to_contain_text(indate(self.now().date()))

    def pdf_says_training(self, href, *numbers):
        """The document says TRAINING (in English beside the district's language, so in both
        walks), is dated by the training clock, and carries `numbers`."""
        response = self.page.request.get(self.base + href)
        assert response.status == 200 and response.body().startswith(b"%PDF")
        text = readpdf.text(response.body())
        for expected in ("TRAINING", indate(self.now().date()), *numbers):
            assert expected in text, (expected, text[:300])


def arrive(tour, animals, place):
    """The pound-keeper enters the cattle in the register (s.8), checks and confirms."""
    page = tour.page
    tour.click(reverse("impounding:entry_new"))
    arrived = tour.now() - timedelta(hours=1)
    page.fill("#id_arrived_at", arrived.strftime("%d-%m-%Y %H:%M"))
    page.fill("#id_seized_at", (arrived - timedelta(hours=2)).strftime("%d-%m-%Y %H:%M"))
    page.fill("#id_seizure_place", place)
    page.select_option("#id_seizure_village", str(Village.objects.get(code="trn-gaon").pk))
    page.check("input[name=basis][value=s10]")
    page.fill("#id_seizer_name", "Ram Prasad Maurya")
    page.fill("#id_seizer_residence", "Training Gaon")
    page.select_option("#id_seizer_capacity", "cultivator")
    for index, (species, colour) in enumerate(animals):
        if index:
            page.locator("#add-animal").click()
            page.wait_for_load_state()
        page.select_option(f"#id_animals-{index}-species", species)
        page.select_option(f"#id_animals-{index}-sex", "female")
        page.select_option(f"#id_animals-{index}-age_class", "adult")
        page.fill(f"#id_animals-{index}-colour", colour)
    tour.submit()
    page.locator("button[name=confirm]").click()
    page.wait_for_url(re.compile(r"/pound/entries/\d+/$"))
    entry = Impoundment.objects.get(seizure_place=place)
    assert entry.register_number in tour.status()
    return entry


def feed(tour, pound):
    """The pound-keeper records the day's feeding and watering (s.9), dated by the clock."""
    page = tour.page
    page.goto(tour.base + reverse("impounding:today"))
    tour.click(reverse("impounding:feeding_log", args=[pound.pk]))
    expect(page.locator("#id_date")).to_have_value(indate(tour.now().date()))
    page.fill("#id_fodder", "Dry straw 10 kg, green fodder 5 kg")
    page.fill("#id_cost", "120")
    tour.submit()
    assert FeedingLog.objects.get(pound=pound).date == tour.now().date()


def s14_report_notice_and_drums(tour, entry):
    """Seven days on, the keeper reports (s.14); the officer posts the notice and has it
    proclaimed by beat of drum in the village and at the market-place."""
    page = tour.page
    tour.move("7", "1")  # the report falls due on the eighth day after arrival
    tour.as_("keeper_trn")
    page.goto(tour.base + reverse("auctions:reports_due"))
    tour.click(reverse("auctions:report_send", args=[entry.pk]))
    tour.submit()
    report = Report.objects.get(impoundment=entry)
    assert page.url == tour.base + report.get_absolute_url()
    assert report.due_on <= tour.now().date()
    tour.as_("officer_trn")
    page.goto(tour.base + reverse("auctions:reports"))
    tour.click(report.get_absolute_url())
    tour.click(reverse("auctions:notice_post", args=[report.pk]))
    tour.submit()  # stuck up today, at the thana's notice board
    notice = report.notice
    for channel in ("drum_village", "drum_market"):
        tour.click(reverse("auctions:proclamation_new", args=[notice.pk]) + f"?channel={channel}")
        page.fill("#id_made_by", "Chowkidar Ram Khilawan")
        page.fill("#id_place", "Chaupal")
        tour.submit()
    expect(page.locator("#drums-done")).to_be_visible()
    return report


def s14_auction_and_sale(tour, report):
    """Eight days after the notice the officer schedules the auction; the trainer moves the
    clock to its hour; a bidder registers and the lot is sold, with its certificate."""
    page = tour.page
    tour.move("7", "1")
    tour.as_("officer_trn")
    page.goto(tour.base + report.get_absolute_url())
    expect(page.get_by_text(tour.t("may be sold"), exact=True)).to_be_visible()
    tour.click(reverse("auctions:auction_new") + f"?report={report.pk}")
    auction = schedule(tour)
    assert auction.kind == Auction.Kind.UNCLAIMED
    sell(tour, auction, 1, "32000")
    sale = auction.lots.get(number=1).sale
    panel = page.get_by_test_id("confirmation-panel")
    expect(panel.locator(".confirmation-reference")).to_have_text(sale.certificate.number)
    expect(page.locator("#lot-1 .badge")).to_have_text(tour.t("Sold"))
    tour.pdf_says_training(
        reverse("auctions:sale_certificate_pdf", args=[sale.pk]), sale.certificate.number
    )
    return sale


def schedule(tour, days=1):
    """The officer schedules the sale for 11:00, `days` on; the trainer moves to its hour."""
    page = tour.page
    when = (tour.now() + timedelta(days=days)).replace(hour=11, minute=0, second=0, microsecond=0)
    page.fill("#id_scheduled_for", when.strftime("%d-%m-%Y %H:%M"))
    tour.submit()
    page.wait_for_url(re.compile(r"/auctions/\d+/$"))
    auction = Auction.objects.get(pk=page.url.rstrip("/").rsplit("/", 1)[1])
    assert timezone.localtime(auction.scheduled_for) == when
    tour.move("auction")
    assert tour.now() >= when
    return auction


def sell(tour, auction, lot, price):
    """The officer registers a bidder (once) and sells lot `lot` for `price` to bidder 1."""
    page = tour.page
    tour.as_("officer_trn")
    page.goto(tour.base + auction.get_absolute_url())
    if not auction.bidders.exists():
        tour.click(reverse("auctions:bidder_new", args=[auction.pk]))
        page.fill("#id_name", "Mohd. Salim Qureshi")
        page.fill("#id_address", "Bakshi ka Talab")
        page.select_option("#id_id_kind", "voter")
        page.fill("#id_id_number", "UPV1234567")
        page.fill("#id_phone", "9123456780")
        page.check("#id_declaration_signed")
        tour.submit()
        page.wait_for_url(re.compile(r"/auctions/\d+/#bidder-\d+$"))
    tour.click(reverse("auctions:lot_sell", args=[auction.lots.get(number=lot).pk]))
    page.select_option("#id_bid-bidder", index=1)
    page.fill("#id_bid-amount", price)
    page.locator("button[name=bid]").click()
    page.wait_for_load_state()
    expect(page.locator("#id_sale-price")).to_have_value(f"{price}.00")
    page.fill("#id_sale-expenses", "150")
    tour.submit("button[name=hammer]")
    tour.submit("button[name=confirm]")
    page.wait_for_url(re.compile(rf"/auctions/\d+/#lot-{lot}$"))


def release_and_deposit(tour, entry):
    """The owner of animal 1 pays (s.13); the owner of animal 2 disputes and deposits (s.15).
    Each gets a receipt of the training pound's own series, which says TRAINING."""
    numbers = []
    for kind, number in (("release", 1), ("deposit", 2)):
        page = tour.page
        page.goto(tour.base + entry.get_absolute_url())
        tour.click(reverse(f"impounding:{kind}", args=[entry.pk]))
        page.check(f"input[name=animals][value='{entry.animals.get(number=number).pk}']")
        page.fill("#id_claimant_name", "Shyam Lal")
        page.fill("#id_claimant_address", "Training Gaon")
        page.fill("#id_register_page", "27")
        if kind == "deposit":
            page.fill("#id_ground", "The cattle were on my own land")
        tour.submit()
        tour.submit("button[name=confirm]")
        page.wait_for_url(re.compile(r"/pound/entries/\d+/"))
        panel = page.get_by_test_id("confirmation-panel")
        receipt = panel.locator(".confirmation-reference").inner_text()
        tour.pdf_says_training(panel.get_by_role("link").first.get_attribute("href"), receipt)
        numbers.append(receipt)
    states = dict(entry.animals.values_list("number", "state"))
    assert states[1] == AnimalState.RELEASED_PAID
    assert states[2] == AnimalState.RELEASED_ON_DEPOSIT
    assert numbers[0] != numbers[1]
    # The deposit waits on the list of deposits, by its receipt.
    tour.page.goto(tour.base + reverse("impounding:deposits"))
    expect(tour.page.locator("#main").get_by_text(numbers[1]).first).to_be_visible()
    return numbers


def s16_refusal(tour, entry):
    """The owner of animals 3 and 4 appears and refuses to pay (s.16); the officer schedules
    the s.16 sale a day on, as the conditions allow."""
    page = tour.page
    page.goto(tour.base + entry.get_absolute_url())
    tour.click(reverse("auctions:s16_new", args=[entry.pk]))
    for number in (3, 4):
        page.check(f"input[name=animals][value='{entry.animals.get(number=number).pk}']")
    page.fill("#id_owner_name", "Gita Devi")
    page.fill("#id_owner_address", "Training Haat")
    tour.submit()
    page.wait_for_url(re.compile(r"/s16/\d+/$"))
    case = S16Case.objects.get(impoundment=entry)
    tour.as_("officer_trn")
    page.goto(tour.base + case.get_absolute_url())
    tour.click(reverse("auctions:auction_new") + f"?case={case.pk}")
    auction = schedule(tour)
    assert auction.kind == Auction.Kind.OWNER_REFUSED and auction.lots.count() == 2
    return case, auction


def s16_sale_and_account(tour, case, auction):
    """One lot covers the dues: the officer stops, and settles with the owner, whose account
    (a)-(f) shows two animals impounded, one sold, and the balance; the other goes home."""
    page = tour.page
    sell(tour, auction, 1, "90000")
    expect(page.get_by_text(tour.t("Dues covered: stop selling.")).first).to_be_visible()
    tour.click(case.get_absolute_url())
    tour.click(reverse("auctions:s16_settle", args=[case.pk]))
    account = page.locator("#s16-account")
    expect(account.locator("#item-a")).to_have_text("2")
    expect(account.locator("#item-d")).to_have_text("1")
    expect(account.locator("#item-remaining")).to_have_text("1")
    page.fill("#id_register_page", "41")
    page.locator("#confirm-button").click()
    page.wait_for_url(re.compile(r"/s16/\d+/$"))
    case.refresh_from_db()
    assert case.status == S16Case.Status.CLOSED and case.balance > 0
    tour.pdf_says_training(reverse("auctions:s16_account_pdf", args=[case.pk]))


def surplus_received(tour, sale):
    """The District Magistrate's clerk receives the sale's surplus into deposit (s.17), on the
    district's day: its three months run from here."""
    page = tour.page
    tour.as_("clerk_trn")
    deposit = SurplusDeposit.objects.get(sale=sale)
    page.goto(tour.base + reverse("office:surplus"))
    tour.click(reverse("office:surplus_receive", args=[deposit.pk]))
    expect(page.locator("#id_received_on")).to_have_value(indate(tour.now().date()))
    tour.submit()
    deposit.refresh_from_db()
    assert deposit.status == SurplusDeposit.Status.HELD
    assert deposit.received_on == tour.now().date() and indate(deposit.expires_on) in tour.status()
    return deposit


def scroll_of_today(tour, number):
    page = tour.page
    page.fill("#id_cin", f"00023902612052{number:05d}")
    page.fill("#id_scroll_number", f"SC-TRN-{number}")
    page.fill("#id_scroll_date", indate(tour.now().date()))


def fines_remitted_and_confirmed(tour):
    """The keeper pays the fines into the treasury and records the challan's GRN; the clerk,
    another person, confirms it against the CIN and the scroll of the district's day (s.17)."""
    page = tour.page
    tour.as_("keeper_trn")
    page.goto(tour.base + reverse("office:remittances"))
    tour.click(reverse("office:remittance_new"))
    page.fill("#id_challan_number", "GRN TRN 2026 0001")
    page.fill("#id_treasury", "District Treasury, Training")
    tour.submit()
    remittance = Remittance.objects.get(pound__district=tour.district)
    assert remittance.number in tour.status() and remittance.remitted_on == tour.now().date()
    tour.as_("clerk_trn")
    page.goto(tour.base + reverse("office:remittances"))
    tour.click(reverse("office:remittance_confirm", args=[remittance.pk]))
    page.check("#id_checked")
    scroll_of_today(tour, 1)
    tour.submit()
    expect(page.locator(f"#remittance-{remittance.pk}")).to_contain_text(remittance.number)
    remittance.refresh_from_db()
    assert remittance.status == Remittance.Status.CONFIRMED
    assert remittance.confirmed_by.username == "clerk_trn"
    assert TreasuryChallan.objects.get(remittance=remittance).scroll_date == tour.now().date()


def surplus_to_revenue(tour, deposit):
    """The trainer moves the clock 30 days three times, then a day at a time until the three
    months have run: the move's run credits the surplus to the State's revenues, with its
    memo. The clerk records the transfer's challan; the trainer, another person, confirms it."""
    page = tour.page
    tour.move("30", "30", "30")
    extra = (deposit.expires_on - tour.now().date()).days + 1
    assert 1 <= extra <= 3, extra  # three months are 89 to 92 days
    tour.move(*["1"] * extra)
    deposit.refresh_from_db()
    assert (deposit.status, deposit.destination) == (
        SurplusDeposit.Status.TRANSFERRED,
        SurplusDeposit.Destination.STATE_REVENUE,
    )
    memo = deposit.transfer_memo.number
    tour.as_("clerk_trn")
    page.goto(tour.base + reverse("office:surplus"))
    expect(page.locator(f"#surplus-{deposit.pk}")).to_contain_text(memo)
    tour.pdf_says_training(reverse("office:transfer_memo_pdf", args=[deposit.pk]), memo)
    tour.click(reverse("office:surplus_challan_new", args=[deposit.pk]))
    page.fill("#id_grn", "GRN TRN 2026 0002")
    scroll_of_today(tour, 2)
    tour.submit()  # the answers, to check
    tour.submit("button[name=confirm]")
    page.wait_for_url(re.compile(r"/surplus/\d+/challan/$"))
    panel = page.get_by_test_id("confirmation-panel")
    expect(panel.locator(".confirmation-reference")).to_have_text("GRN TRN 2026 0002")
    tour.as_("magistrate_trn")
    page.goto(tour.base + reverse("office:surplus_challan", args=[deposit.pk]))
    page.check("#id_checked")
    tour.submit()
    challan = TreasuryChallan.objects.get(surplus=deposit)
    assert challan.confirmed_by.username == "magistrate_trn"
    assert challan.scroll_date == tour.now().date()


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_guided_tour_walks_end_to_end_on_the_training_clock(page, live_server, trn, lang):
    page.set_default_timeout(15_000)
    tour = Tour(page, live_server.url, lang, trn)
    start = tour.now().date()
    tour.as_("keeper_trn")
    unclaimed = arrive(tour, [("cattle", "Brown")], "Wheat field by the training canal")
    feed(tour, unclaimed.pound)
    report = s14_report_notice_and_drums(tour, unclaimed)
    unclaimed_sale = s14_auction_and_sale(tour, report)
    assert tour.now().date() >= start + timedelta(days=16)

    tour.as_("keeper_trn")
    claimed = arrive(
        tour,
        [("cattle", "White"), ("buffalo", "Black"), ("cattle", "Black"), ("cattle", "Red")],
        "Sugarcane field by the training haat",
    )
    release_and_deposit(tour, claimed)
    case, auction = s16_refusal(tour, claimed)
    s16_sale_and_account(tour, case, auction)
    held = surplus_received(tour, unclaimed_sale)
    fines_remitted_and_confirmed(tour)
    surplus_to_revenue(tour, held)
    assert run_checks() == []

    # The trainer's page at the end of the walk, at 360 px: axe finds nothing, nothing is cut.
    tour.as_("magistrate_trn")
    page.goto(tour.base + reverse("accounts:training", args=[trn.pk]))
    expect(page.locator(".training-steps li")).to_have_count(19)
    for step in page.locator(".training-steps li").all():
        expect(step).to_contain_text("_trn")  # each step names the demo user to sign in as
    check_a11y(page, f"training tour {lang}")
    check_fits_width(page)
    screenshot(page, f"training-tour-{lang}-360")
