"""The owner's opting-out pages (ADR 0084) at 360 px, by keyboard, in English and in Hindi: from
the footer's link, the form's errors, the code, a wrong code and the confirmation, each passing
axe; and the administrator's template page, where the opt-out code's text waits for its DLT id."""

import importlib
from pathlib import Path

import pytest
from django.apps import apps
from django.urls import reverse
from playwright.sync_api import expect

from messaging import services
from messaging.models import Phone
from tests.browser.conftest import check_a11y, check_fits_width, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
MIGRATIONS = (
    "0002_seed_templates",
    "0003_lost_match_templates",
    "0004_dlr_reports_and_opt_out_codes",
)
SHOTS = Path("/tmp/shots_msgdlr")  # noqa: S108 (the screenshots the reviewer looks at)


@pytest.fixture(autouse=True)
def seeded_templates():
    """The templates the data migrations seed, again after a transactional test's flush."""
    for name in MIGRATIONS:
        importlib.import_module(f"messaging.migrations.{name}").seed(apps, None)


@pytest.fixture
def codes(monkeypatch):
    sent = []
    real = services.send_now

    def capture(**kw):
        sent.append(kw["variables"]["code"])
        return real(**kw)

    monkeypatch.setattr(services, "send_now", capture)
    return sent


def look(page, name):
    check_a11y(page, name)
    check_fits_width(page)
    screenshot(page, f"optout-{name}")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"optout-{name}.png"), full_page=True)


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_an_owner_stops_the_messages_from_a_phone(page, live_server, codes, lang):
    base = live_server.url
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page.goto(base + "/")
    page.locator(f"footer a[href='{reverse('optout')}']").click()
    page.wait_for_url(base + reverse("optout"))
    assert page.locator("html").get_attribute("lang") == lang
    look(page, f"form-{lang}")

    page.locator("#id_phone").press("Enter")  # sent empty: the summary, the error beside it
    expect(page.locator("[data-error-summary]")).to_be_visible()
    assert page.locator(".is-invalid").count() > 0
    look(page, f"errors-{lang}")

    page.locator("#id_phone").fill("98765 43210")
    page.locator("#id_choice_0").check()
    page.locator("#id_phone").press("Enter")
    page.wait_for_url(base + reverse("optout_code"))
    main = page.locator("main").inner_text()
    assert "******3210" in main and "9876543210" not in main
    look(page, f"code-{lang}")

    page.locator("#id_code").fill("000000" if codes[-1] != "000000" else "111111")
    page.locator("#id_code").press("Enter")
    expect(page.locator("[data-error-summary]")).to_be_visible()
    look(page, f"wrong-code-{lang}")

    page.locator("#id_code").fill(codes[-1])
    page.locator("#id_code").press("Enter")
    page.wait_for_url(base + reverse("optout_done"))
    expect(page.locator(".confirmation-reference")).to_have_text("******3210")
    look(page, f"done-{lang}")
    assert Phone.objects.get(number="9876543210").opted_out_at is not None


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_administrators_template_page_passes_axe(page, live_server, administrator, lang):
    base = live_server.url
    sign_in(page, base, administrator.username, lang)
    page.goto(base + reverse("messaging:templates"))
    if lang == "en":
        expect(page.locator("main")).to_contain_text("One-time code to stop or restart messages")
    check_a11y(page, f"templates-{lang}")
    check_fits_width(page)
    screenshot(page, f"message-templates-{lang}")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"templates-{lang}.png"), full_page=True)
