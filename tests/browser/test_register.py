"""A pound-keeper records three animals; two owners claim them: one pays (s.13), one deposits
(s.15). Both receipts download as valid PDFs. axe-core finds nothing on any page, at 360 px."""

import io
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from pypdf import PdfReader

from demo import register as register_demo
from demo import staff as demo
from impounding.models import AnimalState, Impoundment, Release
from ledger.checks import run_checks
from tests.browser.conftest import check_a11y, check_fits_width, screenshot
from tests.browser.test_roles import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_data():
    demo.seed_all()
    register_demo.seed_tariffs()


def _fill_animal(page, index, species, sex, age, colour):
    page.select_option(f"#id_animals-{index}-species", species)
    page.select_option(f"#id_animals-{index}-sex", sex)
    page.select_option(f"#id_animals-{index}-age_class", age)
    page.fill(f"#id_animals-{index}-colour", colour)


def _download_pdf(page, link):
    with page.expect_download() as info:
        link.click()
    data = Path(info.value.path()).read_bytes()
    assert data.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(data))
    return "\n".join(p.extract_text() for p in reader.pages)


def _claim(page, base, entry, animals, claimant, *, deposit):
    page.goto(f"{base}{entry.get_absolute_url()}")
    name = "Owner disputes: release on deposit (s.15)" if deposit else "Owner pays: release (s.13)"
    page.get_by_role("link", name=name).click()
    page.wait_for_url(re.compile(r"/(deposit|release)/$"))
    check_a11y(page, "claim form")
    check_fits_width(page)
    for label in animals:
        page.get_by_label(label).check()
    page.get_by_label("Claimant's name").fill(claimant)
    page.get_by_label("Claimant's address").fill("Samesi")
    page.get_by_label("Page of the paper register signed").fill("27")
    if deposit:
        page.get_by_label("Why the owner says the seizure was illegal").fill(
            "The cattle were on my own land"
        )
    page.get_by_role("button", name="Continue: check the dues").click()
    assert page.get_by_role("heading", level=1).inner_text().startswith("Check the answers")
    check_a11y(page, "check your answers")
    check_fits_width(page)
    screenshot(page, f"release-check-{'deposit' if deposit else 'payment'}")
    page.get_by_role("button", name=re.compile("^Take ")).click()
    page.wait_for_url(re.compile(r"/pound/entries/\d+/"))
    check_a11y(page, "entry after release")
    kind = "Deposit receipt" if deposit else "Receipt"
    # The confirmation panel: what was done, the receipt's number and the receipt (ADR 0030).
    panel = page.get_by_test_id("confirmation-panel")
    number = panel.locator(".confirmation-reference").inner_text()
    assert f"{kind} {number}." in panel.inner_text()
    assert panel.get_by_role("link", name=re.compile(r"^Print the (deposit )?receipt \(PDF\)$"))
    # The pound's own paper first, named (issue 27); the other paper's link follows it.
    link = page.get_by_role("link", name=f"Receipt {number} — ").first
    return number, _download_pdf(page, link)


def test_arrival_two_owners_one_pays_one_deposits(page, live_server, demo_data):
    base = live_server.url
    sign_in(page, base, "keeper")
    page.get_by_role("link", name="New arrival (s.8)").first.click()
    check_a11y(page, "new arrival")
    check_fits_width(page)
    arrived = timezone.localtime() - timedelta(hours=1)
    page.fill("#id_arrived_at", arrived.strftime("%Y-%m-%dT%H:%M"))
    page.fill("#id_seized_at", (arrived - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M"))
    page.get_by_label("Place of seizure").fill("Wheat field by the Sai canal")
    page.get_by_label("s.10: trespass doing damage to land, crop or produce").check()
    page.get_by_label("Seizer's name").fill("Ram Prasad Maurya")
    page.get_by_label("Seizer's residence").fill("Nigohan")
    page.get_by_label("Seizer's capacity").select_option("cultivator")
    _fill_animal(page, 0, "cattle", "female", "adult", "White")
    page.get_by_role("button", name="Add another animal").click()
    _fill_animal(page, 1, "goat", "male", "adult", "Black")
    page.get_by_role("button", name="Add another animal").click()
    _fill_animal(page, 2, "buffalo", "female", "adult", "Black")
    check_a11y(page, "new arrival, three animals")
    page.get_by_role("button", name="Enter in the register").click()
    # Check your answers first: the register is a legal record (ADR 0030).
    page.get_by_role("heading", name=re.compile("^Check the entry")).wait_for()
    check_a11y(page, "check the entry")
    check_fits_width(page)
    page.get_by_role("button", name="Enter in the register").click()
    page.wait_for_url(re.compile(r"/pound/entries/\d+/"))
    check_a11y(page, "entry")
    check_fits_width(page)
    screenshot(page, "entry-three-animals")
    entry = Impoundment.objects.get(pound__code="lko-mlg-kh")
    assert entry.animals.count() == 3

    paid, paid_text = _claim(
        page,
        base,
        entry,
        ["1. Cattle, Female, Adult, White", "2. Goat, Male, Adult, Black"],
        "Shyam Lal",
        deposit=False,
    )
    deposited, deposit_text = _claim(
        page, base, entry, ["3. Buffalo, Female, Adult, Black"], "Gita Devi", deposit=True
    )
    assert paid in paid_text
    assert deposited in deposit_text
    assert paid != deposited
    states = sorted(entry.animals.values_list("state", flat=True))
    assert states == sorted(
        [AnimalState.RELEASED_PAID, AnimalState.RELEASED_PAID, AnimalState.RELEASED_ON_DEPOSIT]
    )
    assert Release.objects.count() == 2
    assert run_checks() == []
