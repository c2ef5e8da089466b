"""What the field app's browser tests share: a paired phone, an entry captured on it, and, until
the field server's endpoints are merged, a stand-in for the two parts of their contract that the
present API lacks (the reference data, and `captured_at` on a new entry)."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import Village
from accounts.services import create_api_token
from api import intake

# The field server's contract is not in this branch yet: the stand-in answers for it.
STAND_IN = "captured_at" not in intake.EntryIn.model_fields
# What a phone's browser logs when it is offline or a test answers 4xx/5xx on purpose.
EXPECTED_NOISE = re.compile(
    r"ERR_INTERNET_DISCONNECTED|ERR_NAME_NOT_RESOLVED|net::ERR_FAILED|Failed to load resource|"
    r"^(400|500) .*/api/v1/entries/$"
)


@pytest.fixture
def phone(pound_keeper, pound):
    """The pairing the phone keeps: its token, the API and its pound."""
    _token, secret = create_api_token(user=pound_keeper, name="Field phone")
    return {"token": secret, "api": "/api/v1/", "pound": pound.pk}


@pytest.fixture
def contract(context, pound):
    """The field server's endpoints as the contract gives them, while they are not merged: the
    reference data from the database, and `captured_at` taken off a new entry (the present API
    refuses a field it does not know). Inert once the field server is merged."""
    # The stand-in answers even when the context is offline: `offline` makes it fail as the
    # network would.
    writes = {"photos": [], "feeding": [], "custody": [], "offline": False}
    if not STAND_IN:
        return writes
    villages = Village.objects.filter(district_id=pound.district_id)
    reference = {
        "version": "stand-in",
        "pound": {"id": pound.pk, "name": pound.name},
        "villages": [{"id": v.pk, "name": v.name} for v in villages],
        "species": [],
        "tariffs": [],
        "staff": [{"id": 1, "name": "Ramesh Kumar"}],
    }

    def answer_reference(route):
        route.fulfill(status=200, json=reference)

    def without_capture_time(route):
        if route.request.method != "POST":
            return route.fallback()
        body = json.loads(route.request.post_data)
        body.pop("captured_at", None)
        return route.fallback(post_data=json.dumps(body))

    def kept(kind):
        def answer(route):
            if writes["offline"]:
                return route.abort("internetdisconnected")
            writes[kind].append(route.request.post_data_buffer)
            route.fulfill(status=201, json={"id": len(writes[kind])})

        return answer

    context.route("**/api/v1/field/reference/", answer_reference)
    context.route("**/api/v1/entries/", without_capture_time)
    context.route(re.compile(r".*/api/v1/entries/\d+/photos/$"), kept("photos"))
    context.route(re.compile(r".*/api/v1/pounds/\d+/feeding/$"), kept("feeding"))
    context.route(re.compile(r".*/api/v1/animals/\d+/custody-events/$"), kept("custody"))
    return writes


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
    return (timezone.localtime() - timedelta(hours=hours_ago)).strftime("%Y-%m-%dT%H:%M")


def capture_entry(page, place, seized_hours_ago=3, photo=None):
    """A new register entry with one animal, typed as the keeper types it, saved."""
    page.goto(page.url.split("#")[0] + "#entry")
    page.get_by_label("Time of seizure").fill(moment(seized_hours_ago))
    page.get_by_label("Arrived at the pound").fill(moment(2))
    page.get_by_label("Place of seizure").fill(place)
    page.get_by_label("Seizer's name").fill("Ramesh Kumar")
    page.get_by_label("Seizer's residence").fill("Rampur")
    page.get_by_label("Colour").fill("Brown")
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
