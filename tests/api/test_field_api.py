"""The field app's server half (issue 22, ADR 0074): the pound's reference data with its ETag,
the phone's capture time beside the server's receipt (a clock that is off flagged for the
office, never refused), and the feeding rounds, custody events and photos the phone sends, each
once for its Idempotency-Key, scoped as the screens are."""

import io
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from PIL import Image

from accounts.models import ToDo
from accounts.roles import Role
from api.idempotency import HEADER
from impounding.models import Animal, AnimalState, FeedingLog, Impoundment
from kernel.models import Event
from tests.api.conftest import bearer
from tests.api.test_intake_api import ENTRIES, entry_body, post
from tests.impounding.factories import cow, make_entry

REFERENCE = "/api/v1/field/reference/"
KEY = f"HTTP_{HEADER.upper().replace('-', '_')}"


@pytest.fixture
def entry(pound, pound_keeper):
    return make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow(colour="Brown")])


def jpeg(size=(1600, 1200)):
    out = io.BytesIO()
    Image.new("RGB", size, "brown").save(out, "JPEG")
    out.seek(0)
    out.name = "animal-1.jpg"
    return out


# --- The reference data ----------------------------------------------------------------------


def test_reference_gives_the_pounds_villages_staff_and_tariffs_and_304_when_unchanged(
    client, pound, pound_keeper
):
    first = client.get(REFERENCE, {"pound": pound.pk}, **bearer(pound_keeper))
    assert first.status_code == 200
    body = first.json()
    assert body["pound"] == {"id": pound.pk, "name": pound.name}
    assert body["villages"] and all({"id", "name"} <= set(v) for v in body["villages"])
    assert pound_keeper.pk in [s["id"] for s in body["staff"]]
    assert "cattle" in [s["value"] for s in body["species"]]
    assert {"on", "fine_scale", "feeding_order"} <= set(body["tariffs"])
    assert len(body["version"]) == 16
    again = client.get(
        REFERENCE, {"pound": pound.pk}, HTTP_IF_NONE_MATCH=first["ETag"], **bearer(pound_keeper)
    )
    assert again.status_code == 304 and again.content == b""


def test_reference_changes_its_version_when_a_village_is_added(client, pound, pound_keeper):
    from accounts.models import Village

    before = client.get(REFERENCE, {"pound": pound.pk}, **bearer(pound_keeper))
    Village.objects.create(district=pound.district, name="Zafarpur")
    after = client.get(
        REFERENCE, {"pound": pound.pk}, HTTP_IF_NONE_MATCH=before["ETag"], **bearer(pound_keeper)
    )
    assert after.status_code == 200
    assert after.json()["version"] != before.json()["version"]
    assert "Zafarpur" in [v["name"] for v in after.json()["villages"]]


def test_reference_counts_the_past_days_without_a_feeding_record(client, pound, pound_keeper):
    from impounding.services import log_feeding

    assert client.get(REFERENCE, **bearer(pound_keeper)).json()["missing_feeding_days"] == 0
    make_entry(
        pound=pound,
        by=pound_keeper,
        animals=[cow()],
        arrived_at=timezone.now() - timedelta(days=3),
    )
    before = client.get(REFERENCE, **bearer(pound_keeper))
    assert before.json()["missing_feeding_days"] == 3  # today is not missing yet
    log_feeding(
        pound=pound,
        by=pound_keeper,
        date=timezone.localdate() - timedelta(days=1),
        animals_fed=1,
        fodder="Straw",
    )
    after = client.get(REFERENCE, HTTP_IF_NONE_MATCH=before["ETag"], **bearer(pound_keeper))
    assert after.status_code == 200 and after.json()["missing_feeding_days"] == 2


def test_reference_of_another_districts_pound_is_404_and_a_pound_is_needed(
    client, pound, other_pound, pound_keeper, outsider
):
    assert client.get(REFERENCE, {"pound": pound.pk}, **bearer(outsider)).status_code == 404
    # The keeper of one pound may leave it out; a number that is none is named.
    only = client.get(REFERENCE, **bearer(pound_keeper))
    assert only.status_code == 200 and only.json()["pound"]["id"] == pound.pk
    assert client.get(REFERENCE, {"pound": "x"}, **bearer(pound_keeper)).status_code == 400


# --- The phone's time of capture ---------------------------------------------------------------


def test_capture_time_is_kept_beside_the_receipt_and_the_clocks_run_from_the_arrival(
    client, pound_keeper
):
    captured = timezone.now() - timedelta(days=2)
    body = entry_body(captured_at=captured.isoformat())
    answer = post(client, ENTRIES, body, pound_keeper)
    assert answer.status_code == 201, answer.content
    assert answer.json()["register_number"]
    entry = Impoundment.objects.get(pk=answer.json()["id"])
    assert abs(entry.captured_at - captured) < timedelta(seconds=1)
    assert entry.recorded_at - entry.captured_at > timedelta(days=1)
    assert entry.arrived_at.isoformat() != entry.captured_at.isoformat()
    event = Event.objects.filter(action="register.entered").latest("pk")
    assert "captured_at" in event.data
    # Kept offline two days is no wrong clock: no flag.
    assert not any(w["code"] == "device_clock" for w in entry.warnings)


@pytest.mark.parametrize(
    "off, flagged", [(timedelta(hours=2), True), (timedelta(minutes=5), False)]
)
def test_a_phone_clock_off_by_more_than_the_tolerance_is_flagged_for_the_office_not_refused(
    client, pound_keeper, dm_clerk, off, flagged
):
    device_now = (timezone.now() - off).isoformat()
    answer = post(client, ENTRIES, entry_body(), pound_keeper, HTTP_DEVICE_TIME=device_now)
    assert answer.status_code == 201
    entry = Impoundment.objects.get(pk=answer.json()["id"])
    warned = [w for w in entry.warnings if w["code"] == "device_clock"]
    todo = ToDo.objects.filter(key=f"field_clock:{entry.pk}", role=Role.DM_CLERK)
    assert bool(warned) is flagged and todo.exists() is flagged
    if flagged:
        assert warned[0]["minutes"] == 120
        assert any("clock" in w for w in answer.json()["warnings"])


def test_a_capture_time_ahead_of_the_server_is_flagged(client, pound_keeper):
    ahead = (timezone.now() + timedelta(hours=1)).isoformat()
    answer = post(client, ENTRIES, entry_body(captured_at=ahead), pound_keeper)
    entry = Impoundment.objects.get(pk=answer.json()["id"])
    assert [w["minutes"] for w in entry.warnings if w["code"] == "device_clock"] == [-60]


# --- A feeding round ---------------------------------------------------------------------------


def feeding_body(entry, **kw):
    animals = list(entry.animals.all())
    return {
        "date": timezone.localdate().isoformat(),
        "fodder": "Dry fodder 10 kg",
        "watered": True,
        "cost": None,
        "animals_fed": len(animals),
        "animals": [{"animal": a.pk, "quantity": "5 kg"} for a in animals],
        "captured_at": timezone.now().isoformat(),
    } | kw


def test_a_feeding_round_is_recorded_once_for_its_key(client, pound, pound_keeper, entry):
    url = f"/api/v1/pounds/{pound.pk}/feeding/"
    body = feeding_body(entry)
    first = post(client, url, body, pound_keeper, key="feed-0000001")
    again = post(client, url, body, pound_keeper, key="feed-0000001")
    assert first.status_code == 201, first.content
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
    log = FeedingLog.objects.get(pound=pound)
    assert log.animals_fed == 2 and "5 kg" in log.remarks
    event = Event.objects.filter(action="custody.fed").latest("pk")
    assert event.section == "s.9" and "captured_at" in event.data


def test_a_feeding_round_names_an_animal_not_in_the_pound_beside_it(
    client, pound, other_pound, pound_keeper, outsider, entry
):
    theirs = make_entry(pound=other_pound, by=outsider, animals=[cow()]).animals.get()
    body = feeding_body(entry, animals=[{"animal": theirs.pk, "quantity": ""}], animals_fed=1)
    answer = post(client, f"/api/v1/pounds/{pound.pk}/feeding/", body, pound_keeper)
    assert answer.status_code == 400
    assert [e["field"] for e in answer.json()["errors"]] == ["animals.0.animal"]
    assert not FeedingLog.objects.exists()
    url = f"/api/v1/pounds/{pound.pk}/feeding/"
    assert post(client, url, feeding_body(entry), outsider).status_code == 404


# --- Custody events ----------------------------------------------------------------------------


def custody_url(animal):
    return f"/api/v1/animals/{animal.pk}/custody-events/"


def test_a_death_ends_custody_once_and_needs_its_cause(client, pound_keeper, entry):
    animal = entry.animals.first()
    at = (timezone.now() - timedelta(minutes=30)).isoformat()
    missing = post(client, custody_url(animal), {"kind": "death", "occurred_at": at}, pound_keeper)
    assert missing.status_code == 400
    assert [e["field"] for e in missing.json()["errors"]] == ["remarks"]
    body = {"kind": "death", "occurred_at": at, "remarks": "Snake bite"}
    first = post(client, custody_url(animal), body, pound_keeper, key="death-000001")
    again = post(client, custody_url(animal), body, pound_keeper, key="death-000001")
    assert first.status_code == 201 and again.content == first.content
    animal.refresh_from_db()
    assert animal.state == AnimalState.DIED
    assert Event.objects.filter(action="custody.died").count() == 1


def test_an_escape_and_a_birth_from_the_phone(client, pound_keeper, entry):
    dam, other = entry.animals.all()
    at = (timezone.now() - timedelta(minutes=10)).isoformat()
    birth = {"kind": "birth", "occurred_at": at}
    incomplete = post(client, custody_url(dam), birth, pound_keeper, key="birth-000001")
    assert {e["field"] for e in incomplete.json()["errors"]} == {"sex", "colour"}
    born = post(
        client,
        custody_url(dam),
        birth | {"sex": "female", "colour": "White"},
        pound_keeper,
        key="birth-000002",
    )
    assert born.status_code == 201, born.content
    assert Animal.objects.get(pk=born.json()["calf"]).impoundment_id == entry.pk
    escape = {"kind": "escape", "occurred_at": at, "remarks": "Broke the fence"}
    assert (
        post(client, custody_url(other), escape, pound_keeper, key="esc-0000001").status_code == 201
    )
    other.refresh_from_db()
    assert other.state == AnimalState.ESCAPED


def test_another_districts_animal_is_404_to_the_phone(client, outsider, entry):
    body = {"kind": "death", "occurred_at": timezone.now().isoformat(), "remarks": "x"}
    assert post(client, custody_url(entry.animals.first()), body, outsider).status_code == 404


def test_a_role_that_records_no_custody_is_refused(client, auditor, entry):
    body = {"kind": "death", "occurred_at": timezone.now().isoformat(), "remarks": "x"}
    assert post(client, custody_url(entry.animals.first()), body, auditor).status_code in (403, 404)


# --- Photos ------------------------------------------------------------------------------------


def send_photo(client, entry, user, key, photo=None, animal=None, **fields):
    data = {
        "photo": photo or jpeg(),
        "animal": animal if animal is not None else entry.animals.first().pk,
        "taken_at": "2026-12-01T10:15:00+05:30",
        "place": "Field near the canal",
    } | fields
    return client.post(f"{ENTRIES}{entry.pk}/photos/", data, **{KEY: key}, **bearer(user))


def test_a_photo_sent_after_its_entry_is_shrunk_and_kept_once(client, pound_keeper, entry):
    first = send_photo(client, entry, pound_keeper, "photo-000001")
    # A browser draws a new multipart boundary for each try: still the same request.
    again = send_photo(client, entry, pound_keeper, "photo-000001")
    assert first.status_code == 201, first.content
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    animal = entry.animals.first()
    animal.refresh_from_db()
    with animal.photo.open("rb") as stored, Image.open(stored) as kept:
        assert max(kept.size) == 1280 and not kept.getexif()
    event = Event.objects.get(action="register.photo_added")
    assert event.data["place"] == "Field near the canal" and event.section == "s.8"
    second = send_photo(client, entry, pound_keeper, "photo-000002")
    assert second.status_code == 409


def test_a_photo_that_is_no_image_or_of_another_entrys_animal_is_named(
    client, pound, pound_keeper, entry
):
    text = io.BytesIO(b"not an image at all")
    text.name = "animal-1.jpg"
    answer = send_photo(client, entry, pound_keeper, "photo-000003", photo=text)
    assert answer.status_code == 400
    assert [e["field"] for e in answer.json()["errors"]] == ["photo"]
    elsewhere = make_entry(pound=pound, by=pound_keeper, animals=[cow()]).animals.get()
    answer = send_photo(client, entry, pound_keeper, "photo-000004", animal=elsewhere.pk)
    assert [e["field"] for e in answer.json()["errors"]] == ["animal"]


def test_another_districts_entry_is_404_to_a_photo(client, outsider, entry):
    assert send_photo(client, entry, outsider, "photo-000005").status_code == 404


def test_the_field_writes_need_a_key(client, pound, pound_keeper, entry):
    url = f"/api/v1/pounds/{pound.pk}/feeding/"
    answer = Client().post(
        url,
        json.dumps(feeding_body(entry)),
        content_type="application/json",
        **bearer(pound_keeper),
    )
    assert answer.status_code == 400


# --- Pruning the keys --------------------------------------------------------------------------


def test_keys_older_than_the_window_are_pruned_in_batches_and_a_retry_inside_it_is_a_replay(
    client, pound, pound_keeper, entry
):
    from io import StringIO

    from django.core.management import call_command

    from api.models import IdempotentRequest

    url = f"/api/v1/pounds/{pound.pk}/feeding/"
    body = feeding_body(entry)
    first = post(client, url, body, pound_keeper, key="feed-kept-001")
    assert first.status_code == 201, first.content
    now = timezone.now()
    IdempotentRequest.objects.filter(key="feed-kept-001").update(
        created_at=now - timedelta(days=29)
    )
    for key, days in (("feed-old-000a", 31), ("feed-old-000b", 45)):
        IdempotentRequest.objects.create(
            user=pound_keeper,
            key=key,
            operation="POST x",
            request_digest="0" * 64,
            status=201,
            content_type="application/json",
            body=b"{}",
            created_at=now - timedelta(days=days),
        )
    out = StringIO()
    call_command("prune_idempotency_keys", "--batch", "1", stdout=out)
    assert out.getvalue() == "prune_idempotency_keys: keys 2\n"
    assert list(IdempotentRequest.objects.values_list("key", flat=True)) == ["feed-kept-001"]
    again = post(client, url, body, pound_keeper, key="feed-kept-001")
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
    assert FeedingLog.objects.filter(pound=pound).count() == 1
    call_command("prune_idempotency_keys", stdout=out)  # nothing older left: idempotent
    assert out.getvalue().endswith("keys 0\n")
