"""The pound-keeper's field app on a 360 px phone (issue 22): records captured with no signal are
kept on the phone and reach the server exactly once, whatever the network and the server do."""

import io
import random
import re
from datetime import timedelta

import pytest
import segno
from django.utils import timezone
from PIL import Image
from playwright.sync_api import expect

from impounding.models import Animal, AnimalState, FeedingLog, Impoundment
from tests.browser.conftest import check_a11y, check_fits_width, screenshot
from tests.impounding.factories import cow, make_entry

from . import field_helpers
from .field_helpers import capture_entry, forgive_noise, moment, open_app, outbox, set_offline

phone = field_helpers.phone  # the fixtures, for this module's tests
contract = field_helpers.contract
sync = field_helpers.sync

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PROBLEM = "application/problem+json"


def send_until(page, state, count, tries=30):
    """Press "Send now" until `count` entries are in `state` (a retry waits 5 s otherwise)."""
    for _ in range(tries):
        if outbox(page, state).count() == count:
            return
        page.get_by_role("button", name="Send now").click()
        page.wait_for_timeout(500)
    expect(outbox(page, state)).to_have_count(count)


def test_three_entries_captured_offline_reach_the_server_once(
    page, context, live_server, phone, contract, sync
):
    base = live_server.url
    senders = []  # who sent each entry: the page, or the worker on Background Sync
    context.on(
        "request",
        lambda r: (
            senders.append("worker" if r.service_worker else "page")
            if r.method == "POST" and r.url.endswith("/entries/")
            else None
        ),
    )
    open_app(page, base, phone)
    context.set_offline(True)
    for place in ("North field", "Canal bank", "School road"):
        capture_entry(page, place)
    page.goto(base + "/field/#outbox")
    expect(outbox(page, "waiting")).to_have_count(3)

    page.reload()  # offline: the worker opens the app, the outbox is still there
    expect(page.locator("#network-state")).to_contain_text("Offline")
    expect(outbox(page, "waiting")).to_have_count(3)

    context.set_offline(False)  # the connection returns: the app sends on its own
    expect(outbox(page, "sent")).to_have_count(3, timeout=20_000)
    places = sorted(Impoundment.objects.values_list("seizure_place", flat=True))
    assert places == ["Canal bank", "North field", "School road"]
    expect(outbox(page, "sent").first).to_contain_text("Register number")
    if sync == "no background sync":
        assert set(senders) == {"page"}  # as Firefox and Safari: the page alone sends
    forgive_noise(page)


def test_two_server_errors_then_one_entry(page, context, live_server, phone, contract, sync):
    keys = []

    def flaky(route):
        if route.request.method != "POST":
            return route.fallback()
        keys.append(route.request.headers["idempotency-key"])
        if len(keys) <= 2:
            return route.fulfill(status=500, content_type=PROBLEM, body='{"status": 500}')
        return route.fallback()

    open_app(page, live_server.url, phone)
    context.route("**/api/v1/entries/", flaky)
    capture_entry(page, "Mango grove")
    page.goto(live_server.url + "/field/#outbox")
    send_until(page, "sent", 1)
    # Two refusals, then the answer; the worker's Background Sync may add a try of its own.
    assert len(keys) >= 3 and len(set(keys)) == 1  # one record, one key, every try
    page.get_by_role("button", name="Send now").click()
    expect(page.locator("#field-message")).to_have_text("Everything is sent.")
    assert Impoundment.objects.count() == 1
    forgive_noise(page)


def test_a_reply_lost_after_the_server_saved_makes_one_entry(
    page, context, live_server, phone, contract, sync
):
    """The server commits, then the connection is cut before its answer arrives (the socket
    reset, as a proxy or a phone's radio drops it): the phone tries again with the same key and
    gets the first answer, not a second entry. With Background Sync the worker may try too, so
    the tries are counted as at least one more, all with the one key."""
    keys, first = [], []

    def cut_after_commit(route):
        if route.request.method != "POST":
            return route.fallback()
        keys.append(route.request.headers["idempotency-key"])
        if len(keys) == 1:
            first.append(route.fetch().status)  # the server has it
            return route.abort("connectionreset")
        return route.fallback()

    open_app(page, live_server.url, phone)
    context.route("**/api/v1/entries/", cut_after_commit)
    capture_entry(page, "Railway crossing")
    page.goto(live_server.url + "/field/#outbox")
    send_until(page, "sent", 1)
    assert first == [201] and len(keys) >= 2 and len(set(keys)) == 1  # one key, every try
    assert Impoundment.objects.count() == 1  # the server answered the retries with the first
    forgive_noise(page)


def test_a_refused_entry_never_holds_back_the_others(
    page, context, live_server, phone, contract, sync
):
    keys = []
    context.on(
        "request",
        lambda r: keys.append(r.headers.get("idempotency-key")) if r.method == "POST" else None,
    )
    open_app(page, live_server.url, phone)
    context.set_offline(True)
    capture_entry(page, "River ghat")
    capture_entry(page, "Wrong times", seized_hours_ago=1)  # seized after it arrived: a 400
    capture_entry(page, "Temple lane")
    context.set_offline(False)
    page.goto(live_server.url + "/field/#outbox")
    expect(outbox(page, "sent")).to_have_count(2, timeout=20_000)
    expect(outbox(page, "fixing")).to_have_count(1)
    expect(outbox(page, "fixing")).to_contain_text("The seizure must come before the arrival.")
    assert Impoundment.objects.count() == 2

    outbox(page, "fixing").get_by_role("button", name="Correct it").click()
    seized = page.get_by_label("Time of seizure")
    expect(seized).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#entry-form")).to_contain_text("The seizure must come before the arrival.")
    if sync == "background sync":  # the errors beside their fields, once
        check_a11y(page, "field entry needing fixing")
        check_fits_width(page)
        screenshot(page, "field-entry-fixing-en")
    seized.fill(moment(3))
    page.get_by_role("button", name="Save and send").click()
    page.goto(live_server.url + "/field/#outbox")
    expect(outbox(page, "sent")).to_have_count(3, timeout=20_000)
    assert sorted(Impoundment.objects.values_list("seizure_place", flat=True)) == [
        "River ghat",
        "Temple lane",
        "Wrong times",
    ]
    assert len(set(keys)) == 4  # three records, and the corrected one with a new key
    forgive_noise(page)


def camera_photo(path):
    """A 12-megapixel photo of about 5 MB with its EXIF data, as a phone's camera makes it."""
    width, height = 4000, 3000
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    grain = (width // 3, height // 3)
    noise = Image.frombytes("RGB", grain, random.randbytes(grain[0] * grain[1] * 3))
    image = Image.blend(image, noise.resize((width, height)), 0.4)
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # the camera's make, and where and when it was
    exif[0x0132] = "2026:12:05 08:00:00"
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=95, exif=exif)
    path.write_bytes(buffer.getvalue())
    return path


def test_a_5_mb_photo_reaches_the_server_under_400_kb(
    page, context, live_server, phone, contract, tmp_path
):
    photo = camera_photo(tmp_path / "camera.jpg")
    assert photo.stat().st_size > 4_500_000
    bodies = []
    context.on(
        "request",
        lambda r: bodies.append(r.post_data_buffer or b"") if "/photos/" in r.url else None,
    )
    open_app(page, live_server.url, phone)
    capture_entry(page, "Bus stand", photo=photo)
    page.goto(live_server.url + "/field/#outbox")
    expect(outbox(page, "sent")).to_have_count(1, timeout=20_000)
    expect(page.locator('[data-kind="photo"][data-state="sent"]')).to_have_count(1, timeout=20_000)
    assert bodies and max(len(b) for b in bodies) < 400 * 1024
    assert not any(b"Exif" in b or b"PhoneMaker" in b for b in bodies)  # EXIF dropped
    kept = Animal.objects.get(impoundment__seizure_place="Bus stand")
    assert kept.photo and kept.photo.size < 400 * 1024  # on the server, shrunk once more
    forgive_noise(page)


@pytest.mark.parametrize(
    ("lang", "heading", "offline"),
    [("en", "New register entry", "Offline"), ("hi", "रजिस्टर में नई प्रविष्टि", "ऑफ़लाइन")],
)
def test_the_app_opens_offline_from_a_cold_cache_after_one_visit(
    page, context, live_server, phone, contract, lang, heading, offline
):
    """One online visit, then the browser's HTTP cache emptied and the network gone: the worker
    opens the app, in the keeper's language, with its catalogue's words."""
    context.add_cookies([{"name": "django_language", "value": lang, "url": live_server.url}])
    open_app(page, live_server.url, phone)
    page.wait_for_timeout(500)  # the worker's install has precached the shell by now
    cdp = context.new_cdp_session(page)
    cdp.send("Network.clearBrowserCache")
    context.set_offline(True)
    page.close()
    cold = context.new_page()
    cold.goto(live_server.url + "/field/")
    expect(cold.get_by_role("heading", name=heading)).to_be_visible()
    expect(cold.locator("#network-state")).to_contain_text(offline)  # the catalogue's words
    cold.locator('.field-nav a[href="#outbox"]').click()
    expect(cold.locator("#send-now")).to_be_visible()


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_field_screens_pass_axe_at_360_px(
    page, context, live_server, phone, contract, lang, pound, pound_keeper
):
    make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow(colour="Black")])
    base = live_server.url
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    open_app(page, base, phone)
    expect(page.locator("#feeding-animals li")).to_have_count(2)
    for screen in ("entry", "feeding", "custody", "outbox"):
        page.goto(f"{base}/field/#{screen}")
        expect(page.locator(f"#{screen}-title")).to_be_visible()
        check_a11y(page, f"field {screen} {lang}")
        check_fits_width(page)
        screenshot(page, f"field-{screen}-{lang}")
    forgive_noise(page)


def test_a_feeding_round_and_a_death_recorded_offline(
    page, context, live_server, phone, contract, sync, pound, pound_keeper
):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow(colour="Black")])
    base = live_server.url
    open_app(page, base, phone)  # online once: the animals in the pound are kept on the phone
    set_offline(context, contract, True)
    page.goto(base + "/field/#feeding")
    rows = page.locator("#feeding-animals li")
    expect(rows).to_have_count(2)
    page.get_by_label("Fodder given").fill("Dry straw 20 kg")
    rows.first.get_by_role("textbox").fill("10")
    page.locator("#feeding-form").get_by_role("button", name="Save and send").click()
    expect(page.locator("#field-message")).to_contain_text("Feeding round saved")

    page.goto(base + "/field/#custody")
    page.get_by_label("What happened").select_option("death")
    page.get_by_label("When").fill(moment(1))
    page.get_by_label("Remarks").fill("Found dead at dawn")
    page.locator("#custody-form").get_by_role("button", name="Save and send").click()
    page.goto(base + "/field/#outbox")
    expect(outbox(page, "waiting", "feeding")).to_have_count(1)
    expect(outbox(page, "waiting", "custody")).to_have_count(1)

    set_offline(context, contract, False)
    expect(outbox(page, "sent", "feeding")).to_have_count(1, timeout=20_000)
    expect(outbox(page, "sent", "custody")).to_have_count(1, timeout=20_000)
    assert FeedingLog.objects.filter(pound=pound).count() == 1
    assert entry.animals.filter(state=AnimalState.DIED).count() == 1
    forgive_noise(page)


def test_a_birth_recorded_offline_reaches_the_server_once_with_its_sex_and_colour_and_gaps_show(
    page, context, live_server, phone, contract, pound, pound_keeper
):
    arrived = timezone.now() - timedelta(days=2)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()], arrived_at=arrived)
    dam = entry.animals.get()
    base = live_server.url
    open_app(page, base, phone)
    set_offline(context, contract, True)
    # The feeding round counts the past days with no record, as the feeding page does.
    page.goto(base + "/field/#feeding")
    expect(page.locator("#feeding-gaps")).to_have_text(
        "2 days without a feeding record in the last 30 days"
    )
    page.goto(base + "/field/#custody")
    form = page.locator("#custody-form")
    expect(form.get_by_label("Sex of the calf")).to_be_hidden()  # a death has no calf
    form.get_by_label("What happened").select_option("birth")
    form.get_by_label("When").fill(moment(1))
    form.get_by_label("Sex of the calf").select_option("female")
    form.get_by_role("button", name="Save and send").click()
    # The colour is asked for beside its field before anything is kept.
    colour = form.get_by_label("Colour of the calf")
    expect(colour).to_have_attribute("aria-invalid", "true")
    expect(form.locator(".field-error")).to_have_text(["This field is required."])
    colour.fill("White")
    form.get_by_role("button", name="Save and send").click()
    expect(page.locator("#field-message")).to_contain_text("Saved on this phone")
    expect(form.get_by_label("Sex of the calf")).to_be_hidden()  # the form is fresh again
    check_fits_width(page)
    page.goto(base + "/field/#outbox")
    expect(outbox(page, "waiting", "custody")).to_have_count(1)

    set_offline(context, contract, False)
    expect(outbox(page, "sent", "custody")).to_have_count(1, timeout=20_000)
    page.get_by_role("button", name="Send now").click()
    page.wait_for_timeout(500)
    calves = Animal.objects.filter(impoundment=entry).exclude(pk=dam.pk)
    assert [(c.sex, c.colour) for c in calves] == [("female", "White")]
    forgive_noise(page)


def test_signing_out_warns_of_unsent_records(page, context, live_server, phone, contract):
    base = live_server.url
    open_app(page, base, phone)
    set_offline(context, contract, True)
    capture_entry(page, "Old well")
    page.goto(base + "/field/#outbox")
    page.get_by_role("button", name="Sign out", exact=True).click()
    warning = page.locator("#sign-out-warning")
    expect(warning).to_contain_text("1 record has not reached the office.")
    expect(page.get_by_role("button", name="Sign out and delete them")).to_be_focused()
    check_a11y(page, "field sign-out warning")
    set_offline(context, contract, False)
    page.get_by_role("button", name="Sign out and delete them").click()
    page.wait_for_url(re.compile(r"/accounts/tokens/|/login/"))  # pairing asks who signs in
    page.goto(base + "/field/#outbox")
    expect(page.locator("#not-paired")).to_be_visible()
    assert page.evaluate("async () => (await FieldStore.records()).length") == 0
    forgive_noise(page)


def test_keeper_captures_and_sends_with_the_keyboard(page, live_server, phone, contract):
    base = live_server.url
    open_app(page, base, phone)
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to main content")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="New entry")).to_be_focused()
    # The date and time boxes take DD-MM-YYYY HH:MM as typed; the keyboard types the rest.
    page.get_by_label("Time of seizure").fill(moment(3))
    page.get_by_label("Arrived at the pound").fill(moment(2))
    for label, value in [
        ("Place of seizure", "Keyboard lane"),
        ("Seizer's name", "Ramesh Kumar"),
        ("Seizer's residence", "Rampur"),
        ("Colour", "Grey"),
    ]:
        page.get_by_label(label, exact=True).focus()
        page.keyboard.type(value)
    page.keyboard.press("Enter")  # from the last field: the form is saved and sent
    expect(page.locator("#field-message")).to_contain_text("Saved on this phone")
    page.get_by_role("link", name="Outbox").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Outbox")).to_be_focused()
    expect(outbox(page, "sent")).to_have_count(1, timeout=20_000)
    assert Impoundment.objects.get().seizure_place == "Keyboard lane"


def test_a_tag_failing_its_check_comes_back_beside_the_tag(page, live_server, phone, contract):
    """The register's check-digit warning, on the phone: the entry needs fixing, the message is
    beside the tag, and ticking that it reads as written sends it."""
    open_app(page, live_server.url, phone)
    page.get_by_label("Ear tag").fill("123456789012")
    capture_entry(page, "Tag check")
    page.goto(live_server.url + "/field/#outbox")
    expect(outbox(page, "fixing")).to_contain_text("fails its check digit", timeout=20_000)
    outbox(page, "fixing").get_by_role("button", name="Correct it").click()
    tag = page.get_by_label("Ear tag")
    expect(tag).to_have_value("123456789012")
    expect(tag).to_have_attribute("aria-invalid", "true")
    page.get_by_label("The tag reads as written: keep it although it fails the check").check()
    page.get_by_role("button", name="Save and send").click()
    page.goto(live_server.url + "/field/#outbox")
    expect(outbox(page, "sent")).to_have_count(1, timeout=20_000)
    assert Impoundment.objects.get().animals.get().ear_tag == "123456789012"
    forgive_noise(page)


def test_a_draft_stays_on_the_phone_until_it_is_sent(page, live_server, phone, contract):
    open_app(page, live_server.url, phone)
    expect(page.locator("#storage-state")).not_to_be_empty()  # persistent storage, asked
    page.get_by_label("Place of seizure").fill("Half typed")
    page.get_by_role("button", name="Keep as draft").click()
    expect(page.locator("#field-message")).to_contain_text("Kept as a draft")
    page.goto(live_server.url + "/field/#outbox")
    page.get_by_role("button", name="Send now").click()
    expect(page.locator("#field-message")).to_have_text("1 record is not sent yet.")
    expect(outbox(page, "draft")).to_have_count(1)
    assert Impoundment.objects.count() == 0

    outbox(page, "draft").get_by_role("button", name="Open").click()
    expect(page.get_by_label("Place of seizure")).to_have_value("Half typed")
    capture_entry(page, "Half typed, now whole")
    page.goto(live_server.url + "/field/#outbox")
    expect(outbox(page, "sent")).to_have_count(1, timeout=20_000)
    expect(outbox(page, "draft")).to_have_count(0)
    assert Impoundment.objects.get().seizure_place == "Half typed, now whole"


def test_sent_records_are_forgotten_after_thirty_days(page, live_server, phone, contract):
    open_app(page, live_server.url, phone)
    page.evaluate(
        """async () => {
            const day = 24 * 60 * 60 * 1000, body = {animals: [], seizure_place: "x"};
            const old = {kind: "entry", state: "sent", body, created: 1};
            old.sentAt = Date.now() - 31 * day;
            await FieldStore.put({...old, id: "old"});
            await FieldStore.put({...old, id: "recent", sentAt: Date.now() - day});
            await FieldStore.put({...old, id: "unsent", state: "fixing", errors: []});
        }"""
    )
    page.reload()
    page.goto(live_server.url + "/field/#outbox")
    expect(page.locator("#outbox-list [data-record]")).to_have_count(2)
    ids = page.evaluate("async () => (await FieldStore.records()).map(r => r.id).sort()")
    assert ids == ["recent", "unsent"]


FAKE_DETECTOR = """
window.BarcodeDetector = class {
    async detect() { return [{rawValue: "1234 5678 9012", format: "code_128"}]; }
};
"""


def test_the_tag_is_read_from_a_photo_where_the_browser_reads_barcodes(
    page, context, live_server, phone, contract, tmp_path
):
    """Chrome on Android has BarcodeDetector (stood in for here: the test's Chromium lacks it),
    and the app uses it rather than the vendored scanner."""
    context.add_init_script(FAKE_DETECTOR)
    open_app(page, live_server.url, phone)
    photo = tmp_path / "tag.jpg"
    Image.new("RGB", (64, 32), "white").save(photo)
    page.get_by_label("Scan the tag").set_input_files(photo)
    expect(page.get_by_label("Ear tag")).to_have_value("123456789012")
    expect(page.get_by_label("Ear tag")).to_be_focused()
    assert not page.evaluate("'BarcodeDetectionAPI' in self")  # the fallback was not loaded
    check_a11y(page, "field entry with a tag scanned")


def tag_photos(tmp_path):
    """A photo of a tag's barcode: the 12 digits as a QR code and as an Interleaved 2 of 5
    barcode (a one-dimensional code, drawn here bar by bar), with a blank photo that has none."""
    qr = tmp_path / "tag-qr.png"
    segno.make("1234 5678 9012", micro=False).save(qr, scale=8, border=4)
    itf = tmp_path / "tag-itf.png"
    interleaved_2_of_5("123456789012").save(itf)
    blank = tmp_path / "blank.png"
    Image.new("RGB", (320, 200), "white").save(blank)
    return qr, itf, blank


ITF_DIGITS = [
    "nnwwn",
    "wnnnw",
    "nwnnw",
    "wwnnn",
    "nnwnw",
    "wnwnn",
    "nwwnn",
    "nnnww",
    "wnnwn",
    "nwnwn",
]


def interleaved_2_of_5(digits, narrow=4, wide=10, height=160):
    """Interleaved 2 of 5: each pair of digits is five bars (the first digit) interleaved with
    five spaces (the second), between the start (four narrow) and stop (wide, narrow, narrow)."""
    widths = [narrow] * 4
    for first, second in zip(digits[::2], digits[1::2], strict=True):
        for bar, space in zip(ITF_DIGITS[int(first)], ITF_DIGITS[int(second)], strict=True):
            widths += [wide if bar == "w" else narrow, wide if space == "w" else narrow]
    widths += [wide, narrow, narrow]
    quiet = 12 * narrow
    image = Image.new("L", (sum(widths) + 2 * quiet, height + 2 * quiet), 255)
    x = quiet
    for i, width in enumerate(widths):
        if i % 2 == 0:  # bars at even places, spaces between
            image.paste(0, (x, quiet, x + width, quiet + height))
        x += width
    return image


def test_without_barcode_detector_the_vendored_scanner_reads_the_tag_even_offline(
    page, context, live_server, phone, contract, tmp_path
):
    """Firefox, Safari and desktop Chromium (this test's) have no BarcodeDetector: the vendored
    ZXing build reads the tag. The worker kept it at install, so it reads with no signal too."""
    qr, itf, blank = tag_photos(tmp_path)
    open_app(page, live_server.url, phone)
    assert not page.evaluate("'BarcodeDetector' in self")
    set_offline(context, contract, True)
    page.reload()
    tag = page.get_by_label("Ear tag")
    for photo in (qr, itf):
        tag.fill("")
        page.get_by_label("Scan the tag").set_input_files(photo)
        expect(tag).to_have_value("123456789012")
    assert page.evaluate("'BarcodeDetectionAPI' in self")
    page.get_by_label("Scan the tag").set_input_files(blank)
    expect(page.locator("[data-scan-note]")).to_contain_text("No tag barcode found")
    set_offline(context, contract, False)
    forgive_noise(page)


def test_a_scanner_never_fetched_says_to_type_the_tag(
    page, context, live_server, phone, contract, tmp_path
):
    """A phone whose worker could not keep the scanner, offline: the keeper is told to type."""
    qr, _itf, _blank = tag_photos(tmp_path)
    context.route("**/vendor/zxing/**", lambda route: route.abort("internetdisconnected"))
    open_app(page, live_server.url, phone)
    page.get_by_label("Scan the tag").set_input_files(qr)
    expect(page.locator("[data-scan-note]")).to_contain_text("Type the tag instead")
    expect(page.get_by_label("Ear tag")).to_have_value("")
    forgive_noise(page)
