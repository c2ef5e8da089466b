"""What the field app's browser tests share: a paired phone, an entry captured on it, and the
network switched off and on."""

import re
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.device_tokens import pair_device

# What a phone's browser logs when it is offline or a test answers 4xx/5xx on purpose.
EXPECTED_NOISE = re.compile(
    r"ERR_INTERNET_DISCONNECTED|ERR_NAME_NOT_RESOLVED|net::ERR_FAILED|Failed to load resource|"
    r"^(400|500) .*/api/v1/entries/$"
)


@pytest.fixture
def phone(pound_keeper, pound):
    """The pairing the phone keeps: its device token (ADR 0074), the API and its pound."""
    _token, secret = pair_device(
        user=pound_keeper, label="Field phone", idempotency_key=uuid.uuid4()
    )
    return {"token": secret, "api": "/api/v1/", "pound": pound.pk}


@pytest.fixture
def contract():
    """What the tests know of the phone's network beside the browser's own offline switch."""
    return {"offline": False}


@pytest.fixture(params=["background sync", "no background sync"])
def sync(request, context):
    """Each scenario with Background Sync, as Chrome has it, and without, as Firefox and Safari
    (and Android's WebView) behave: the page alone sends, on start, online and "Send now"."""
    if request.param == "no background sync":
        context.add_init_script("delete ServiceWorkerRegistration.prototype.sync;")
    return request.param


def forgive_noise(page):
    """The console lines an offline phone and a refused record make are expected here."""
    page.console_errors[:] = [e for e in page.console_errors if not EXPECTED_NOISE.search(e)]


def open_app(page, base, phone):
    """The app, paired (as the pairing page leaves it), its worker installed and in control."""
    page.goto(f"{base}/field/")
    page.evaluate("phone => FieldStore.setSetting('device', phone)", phone)
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    expect(page.locator("#not-paired")).to_be_hidden()


def moment(hours_ago):
    """As a keeper types it, day first (ADR 0081), whatever the phone's locale."""
    return (timezone.localtime() - timedelta(hours=hours_ago)).strftime("%d-%m-%Y %H:%M")


def capture_entry(page, place, seized_hours_ago=3, photo=None):
    """A new register entry with one animal, typed as the keeper types it, saved."""
    page.goto(page.url.split("#")[0] + "#entry")
    page.get_by_label("Time of seizure").fill(moment(seized_hours_ago))
    page.get_by_label("Arrived at the pound").fill(moment(2))
    page.get_by_label("Place of seizure").fill(place)
    page.get_by_label("Seizer's name").fill("Ramesh Kumar")
    page.get_by_label("Seizer's residence").fill("Rampur")
    page.get_by_label("Colour", exact=True).fill("Brown")
    if photo:
        page.get_by_label("Photo").set_input_files(photo)
        expect(page.locator("[data-photo-note]")).to_contain_text("Photo ready")
    page.locator("#field-message").evaluate("line => { line.textContent = ''; }")
    page.get_by_role("button", name="Save and send").click()
    expect(page.locator("#field-message")).to_contain_text("Saved on this phone")


def outbox(page, state, kind="entry"):
    return page.locator(f'#outbox-list [data-kind="{kind}"][data-state="{state}"]')


def set_offline(context, contract, offline):
    context.set_offline(offline)
    contract["offline"] = offline
