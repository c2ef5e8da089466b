"""The keeper enters a tagged cow at 360 px, in English and in Hindi: the check page shows the
owner the State's ear-tag registry names (a fake on loopback), masked, and fills the entry's
owner only when the keeper confirms; axe finds no WCAG A/AA violation (ADR 0078)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from impounding.models import Impoundment
from kernel.models import Event
from tests.browser.conftest import check_a11y, check_fits_width, screenshot, sign_in
from tests.impounding.fakeregistry import TOKEN, FakeRegistry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TAG = "123456789010"


@pytest.fixture
def fake_registry(settings):
    with FakeRegistry() as fake:
        settings.EAR_TAG_REGISTRY = "http"
        settings.EAR_TAG_REGISTRY_URL = fake.url
        settings.EAR_TAG_REGISTRY_TOKEN = TOKEN
        fake.owners[TAG] = {"name": "Shyam Lal", "phone": "9876543210", "village": "Samesi"}
        yield fake


def _fill_arrival(page):
    arrived = timezone.localtime() - timedelta(hours=1)
    page.fill("#id_arrived_at", arrived.strftime("%Y-%m-%dT%H:%M"))
    page.fill("#id_seized_at", (arrived - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M"))
    page.fill("#id_seizure_place", "Wheat field by the Sai canal")
    page.check("input[name=basis][value=s10]")
    page.fill("#id_seizer_name", "Ram Prasad Maurya")
    page.fill("#id_seizer_residence", "Nigohan")
    page.select_option("#id_seizer_capacity", "cultivator")
    page.select_option("#id_animals-0-species", "cattle")
    page.select_option("#id_animals-0-sex", "female")
    page.select_option("#id_animals-0-age_class", "adult")
    page.fill("#id_animals-0-colour", "White")
    page.fill("#id_animals-0-ear_tag", TAG)


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_keeper_confirms_the_owner_the_registry_suggests(
    page, live_server, pound, pound_keeper, tariffs, fake_registry, lang
):
    base = live_server.url
    sign_in(page, base, "pound_keeper", lang=lang)
    page.goto(base + reverse("impounding:entry_new"))
    _fill_arrival(page)
    page.locator("form button.btn-primary[type=submit]").click()
    suggestion = page.locator("section", has=page.locator("button[name=use_owner]"))
    suggestion.wait_for()
    text = suggestion.inner_text()
    assert "Shyam Lal" in text and "******3210" in text and "9876543210" not in page.content()
    check_a11y(page, f"owner suggested {lang}")
    check_fits_width(page)
    screenshot(page, f"owner-suggested-{lang}")

    page.locator("button[name=use_owner]").click()
    page.locator("button[name=confirm]").wait_for()
    assert page.locator("button[name=use_owner]").count() == 0
    assert "Shyam Lal" in page.locator("dl.summary-list").nth(2).inner_text()
    check_a11y(page, f"owner confirmed {lang}")
    check_fits_width(page)
    page.locator("button[name=confirm]").click()
    page.wait_for_url("**/pound/entries/*/")
    entry = Impoundment.objects.get()
    assert (entry.owner_name, entry.owner_phone) == ("Shyam Lal", "9876543210")
    assert Event.objects.filter(action="register.owner_from_tag", by_id=pound_keeper.pk).exists()
