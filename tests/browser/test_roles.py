"""Each demo role signs in, sees its home page, switches to Hindi and opens its appointment card.

axe-core finds no WCAG A/AA violation on any page visited, at 360 px wide.
"""

import io
from pathlib import Path

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from accounts.roles import Role
from demo import staff as demo
from tests.browser.conftest import check_a11y, check_fits_width, pass_second_factor, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROLE_USERS = [
    ("keeper", Role.POUND_KEEPER),
    ("officer", Role.POLICE_OFFICER),
    ("clerk", Role.DM_CLERK),
    ("magistrate", Role.MAGISTRATE),
    ("auditor", Role.AUDITOR),
    ("admin", Role.ADMINISTRATOR),
]


@pytest.fixture
def demo_data():
    demo.seed_all()


def sign_in(page, base, username):
    page.goto(f"{base}/login/")
    check_a11y(page, "login")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(demo.DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    pass_second_factor(page, base, username)


@pytest.mark.parametrize(("username", "role"), ROLE_USERS, ids=[u for u, _ in ROLE_USERS])
def test_role_home_hindi_and_appointment_card(page, live_server, demo_data, username, role):
    base = live_server.url
    sign_in(page, base, username)

    # The home page, in English.
    assert page.get_by_role("heading", level=1).inner_text().startswith("Welcome")
    assert page.get_by_role("heading", level=2, name=str(role.label)).first.is_visible() or (
        role in (Role.DM_CLERK,)  # the clerk's panel is headed by the office's name
    )
    check_a11y(page, f"{username} home")
    check_fits_width(page)
    screenshot(page, f"home-{username}-en")

    # Switch to Hindi; the choice persists to the next page.
    page.get_by_role("button", name="हिन्दी").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "hi"
    assert page.get_by_role("heading", level=1).inner_text().startswith("स्वागत")
    check_a11y(page, f"{username} home (hi)")
    check_fits_width(page)
    screenshot(page, f"home-{username}-hi")

    # My appointments, through the menu (collapsed behind the toggler at 360 px).
    page.get_by_role("button", name="मेनू दिखाएँ या छिपाएँ").click()
    page.get_by_role("link", name="मेरी नियुक्तियाँ").click()
    page.wait_for_url(f"{base}/accounts/me/")
    assert page.locator("html").get_attribute("lang") == "hi"
    check_a11y(page, f"{username} appointments (hi)")
    check_fits_width(page)

    # Download the appointment card and open it.
    link = page.get_by_role("link", name="नियुक्ति पत्र (PDF)").first
    with page.expect_download() as download_info:
        link.click()
    download = download_info.value
    pdf = PdfReader(io.BytesIO(Path(download.path()).read_bytes()))
    text = pdf.pages[0].extract_text()
    assert "Appointment card" in text
    assert len(pdf.pages) == 1


def test_skip_link_is_first_and_moves_focus_to_main(page, live_server, demo_data):
    sign_in(page, live_server.url, "keeper")
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.textContent.trim()")
    assert focused == "Skip to main content"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"


def test_wrong_password_message_is_accessible(page, live_server, demo_data):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("keeper")
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="Sign in").click()
    # Waited for: read at once, the page may still be the document being replaced (empty).
    expect(page.locator("main")).to_contain_text("do not match an active account")
    check_a11y(page, "login error")


def test_public_verify_page_for_a_bad_token(page, live_server):
    response = page.goto(f"{live_server.url}/verify/AAAAAAAAAAAAAAAAAAAAAA/")
    assert response.status == 404
    assert page.get_by_role("heading", level=1).inner_text() == "No document has this code"
    check_a11y(page, "verify 404")
    page.console_errors.clear()  # the 404 was the point
