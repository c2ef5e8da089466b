"""Contract tests for the register's writes: POST /api/v1/entries/ (s.8) and
POST /api/v1/entries/{pk}/release/ (s.13): the screens' checks and messages, their permissions
and scope, the Idempotency-Key, and never a 500 on bad input."""

import base64
import io
import json
import threading
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from PIL import Image

from api.idempotency import HEADER
from api.models import IdempotentRequest
from impounding.dues import dues
from impounding.forms.register import AnimalForm, EntryForm
from impounding.forms.releases import ClaimForm, ConfirmForm
from impounding.models import Animal, AnimalState, Impoundment, Receipt, Release
from kernel.formatting import inr
from kernel.models import Event
from tests.api.conftest import bearer
from tests.impounding.factories import cow, make_entry, pay

ENTRIES = "/api/v1/entries/"
# Measured with the pound's accounts open: token, grants, key, the service's own queries (two
# animals), the event's chain, the record of the answer, and whether the entry's pack asks a
# veterinary inspection (its to-do, ADR 0071). Neither grows with the register. The token's kind
# (ADR 0074) adds its check at creation and a savepoint around the throttled last-sync update.
# The owners' messages (ADR 0077) hear the release: a savepoint and the entry's phones, one query.
QUERIES_NEW_ENTRY = 71
QUERIES_RELEASE = 99


def release_url(entry):
    return f"{ENTRIES}{entry.pk}/release/"


def entry_body(**kw):
    now = timezone.localtime()
    return {
        "arrived_at": (now - timedelta(hours=1)).isoformat(),
        "seized_at": (now - timedelta(hours=3)).isoformat(),
        "seizure_place": "Field near the canal",
        "basis": "s10",
        "seizer_name": "Ram Prasad",
        "seizer_residence": "Nigohan",
        "seizer_capacity": "cultivator",
        "owner_name": "Shyam Lal",
        "owner_residence": "Samesi",
        "animals": [
            {"species": "cattle", "sex": "female", "age_class": "adult", "colour": "White"},
            {"species": "goat", "sex": "male", "age_class": "adult", "colour": "Black"},
        ],
    } | kw


def release_body(entry, **kw):
    animals = list(entry.animals.filter(state=AnimalState.IMPOUNDED))
    return {
        "animals": [a.pk for a in animals],
        "amount": str(dues(animals).total),
        "claimant_name": "Shyam Lal",
        "claimant_address": "Samesi",
        "claimant_role": "owner",
        "payment_mode": "cash",
        "acknowledgement": "register_page",
        "register_page": "12",
    } | kw


def post(client, url, body, user, key="key-00000001", **headers):
    raw = body if isinstance(body, (str, bytes)) else json.dumps(body)
    if key:
        headers[f"HTTP_{HEADER.upper().replace('-', '_')}"] = key
    return client.post(url, raw, content_type="application/json", **bearer(user), **headers)


def problem_of(response, status):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == status
    return body


def fields_of(body):
    return {e["field"] for e in body.get("errors", [])}


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow(colour="Brown")])


# --- A new entry -------------------------------------------------------------------------


def test_new_entry_is_made_by_the_service_and_answered_201(client, pound_keeper, pound):
    response = post(client, ENTRIES, entry_body(), pound_keeper)

    assert response.status_code == 201, response.content
    made = Impoundment.objects.get()
    body = response.json()
    assert response["Location"] == f"{ENTRIES}{made.pk}/"
    assert body["register_number"] == made.register_number
    assert body["pound"] == pound.pk  # the keeper's one pound, as the screen's hidden field
    assert [a["species"] for a in body["animals"]] == ["cattle", "goat"]
    assert body["warnings"] == []
    assert made.recorded_by == pound_keeper
    assert made.idempotency_key is not None  # the service's own key, from the header
    assert Event.objects.filter(impoundment_id=made.pk, action="register.entered").count() == 1
    assert client.get(response["Location"], **bearer(pound_keeper)).status_code == 200


def test_new_entry_warnings_are_the_screens(client, pound_keeper):
    now = timezone.localtime()
    body = entry_body(seized_at=(now - timedelta(hours=60)).isoformat())
    warnings = post(client, ENTRIES, body, pound_keeper).json()["warnings"]
    assert len(warnings) == 1 and "hours after the seizure" in warnings[0]


def test_replay_returns_the_first_answer_and_makes_one_entry(client, pound_keeper):
    body = entry_body()
    first = post(client, ENTRIES, body, pound_keeper)
    again = post(client, ENTRIES, body, pound_keeper)

    assert again.status_code == 201
    assert again.content == first.content
    assert again["Location"] == first["Location"]
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert Impoundment.objects.count() == 1 and Animal.objects.count() == 2


def test_same_key_with_another_body_is_422(client, pound_keeper):
    post(client, ENTRIES, entry_body(), pound_keeper)
    other = post(client, ENTRIES, entry_body(seizure_place="Another field"), pound_keeper)
    assert fields_of(problem_of(other, 422)) == {HEADER}
    assert Impoundment.objects.count() == 1


def test_another_users_same_key_is_another_request(client, pound_keeper, pound):
    from accounts.roles import Role
    from tests.accounts.factories import staff

    second = staff(Role.POUND_KEEPER, "second_keeper", pound=pound)
    post(client, ENTRIES, entry_body(), pound_keeper)
    assert post(client, ENTRIES, entry_body(), second).status_code == 201
    assert Impoundment.objects.count() == 2


@pytest.mark.parametrize("key", [None, "short", "has space in it", "é" * 10, "x" * 256])
def test_missing_or_malformed_key_is_400(client, pound_keeper, key):
    body = problem_of(post(client, ENTRIES, entry_body(), pound_keeper, key=key), 400)
    assert fields_of(body) == {HEADER}
    assert not Impoundment.objects.exists()


def test_refused_entry_writes_nothing_and_the_key_may_be_used_again(client, pound_keeper):
    refused = post(client, ENTRIES, entry_body(seizer_name=""), pound_keeper)

    assert fields_of(problem_of(refused, 400)) == {"seizer_name"}
    assert not Impoundment.objects.exists() and not Event.objects.exists()
    assert not IdempotentRequest.objects.exists()
    assert post(client, ENTRIES, entry_body(), pound_keeper).status_code == 201


def test_screen_checks_come_back_as_field_errors(client, pound_keeper):
    now = timezone.localtime()
    body = entry_body(
        basis="s11",
        seized_at=(now + timedelta(hours=1)).isoformat(),
        notice_description="White cow near the canal",
        animals=[{"species": "cattle", "sex": "female", "age_class": "adult", "colour": " "}],
    )
    errors = problem_of(post(client, ENTRIES, body, pound_keeper), 400)["errors"]
    by_field = {e["field"]: e["message"] for e in errors}
    assert by_field["s11_site"] == "Say which public work."
    assert by_field["s11_ground"] == "Say whether it was doing damage or straying."
    assert by_field["seized_at"] == "The seizure must come before the arrival."
    assert by_field["notice_confirmed"].startswith("Confirm the description is fit to publish")
    assert by_field["animals.0.colour"] == "This field is required."


def test_values_of_the_wrong_kind_are_named_before_the_rules(client, pound_keeper):
    body = entry_body(basis="s11", animals=[{"species": "dragon", "sex": "female"}])
    errors = problem_of(post(client, ENTRIES, body, pound_keeper), 400)["errors"]
    by_field = {e["field"]: e["message"] for e in errors}
    assert by_field["animals.0.species"] == "This value is not valid."
    assert by_field["animals.0.colour"] == "This field is required."
    assert "s11_site" not in by_field  # the rules read the values once they are of their kind


def test_no_animal_is_the_screens_message(client, pound_keeper):
    for animals in ([], None):
        errors = problem_of(post(client, ENTRIES, entry_body(animals=animals), pound_keeper), 400)
        assert {"field": "animals", "message": "Enter at least one animal."} in errors["errors"]


def test_ear_tag_failing_its_check_stands_only_when_confirmed(client, pound_keeper):
    bad = [{"species": "cattle", "sex": "female", "age_class": "adult", "colour": "White"}]
    bad[0]["ear_tag"] = "123456789012"
    refused = post(client, ENTRIES, entry_body(animals=bad), pound_keeper)
    assert "animals.0.ear_tag" in fields_of(problem_of(refused, 400))
    bad[0]["tag_confirmed"] = True
    assert post(client, ENTRIES, entry_body(animals=bad), pound_keeper).status_code == 201


@pytest.mark.parametrize(
    ("raw", "fields"),
    [
        ("not json", {"request"}),
        ("[1, 2]", {"request"}),
        ('"a string"', {"request"}),
        ("", {"seizer_name", "animals"}),  # no body: every field left empty
        ("[" * 100_000, {"request"}),
        (b"\xff\xfe{}", {"request"}),
        ({"seizer_name": 5}, {"seizer_name"}),
        ({"notice_confirmed": "yes"}, {"notice_confirmed"}),
        ({"pound": "abc"}, {"pound"}),
        ({"pound": True}, {"pound"}),
        ({"pound": 10**30}, {"pound"}),
        ({"arrived_at": "yesterday"}, {"arrived_at"}),
        ({"arrived_at": ["2026-01-01"]}, {"arrived_at"}),
        ({"animals": "two cows"}, {"animals"}),
        ({"animals": [1, 2]}, {"animals"}),
        ({"animals": [{"colour": {"a": 1}}]}, {"animals.0.colour"}),
        ({"owner_nmae": "Shyam"}, {"owner_nmae"}),
        (
            {
                "animals": [
                    {
                        "species": "cattle",
                        "sex": "female",
                        "age_class": "adult",
                        "colour": "White",
                        "photo": 12,
                    }
                ]
            },
            {"animals.0.photo"},
        ),  # fmt: skip
    ],
)
def test_bad_input_is_400_naming_the_field(client, pound_keeper, raw, fields):
    body = raw if isinstance(raw, (str, bytes)) else entry_body(**raw)
    response = post(client, ENTRIES, body, pound_keeper)
    assert fields <= fields_of(problem_of(response, 400))
    assert not Impoundment.objects.exists()


def test_another_pound_is_not_a_choice(client, pound_keeper, other_pound):
    body = entry_body(pound=other_pound.pk)
    assert "pound" in fields_of(problem_of(post(client, ENTRIES, body, pound_keeper), 400))
    assert not Impoundment.objects.exists()


def _png(size=(40, 30)):
    out = io.BytesIO()
    Image.new("RGB", size, "white").save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def test_photo_may_be_sent_as_base64(client, pound_keeper):
    animals = entry_body()["animals"][:1]
    animals[0]["photo"] = f"data:image/png;base64,{_png()}"
    assert post(client, ENTRIES, entry_body(animals=animals), pound_keeper).status_code == 201
    assert Animal.objects.get().photo.name


@pytest.mark.parametrize("photo", ["not base64 at all!", base64.b64encode(b"GIF89a").decode(), ""])
def test_photo_that_is_no_image_is_the_forms_error(client, pound_keeper, photo):
    animals = entry_body()["animals"][:1]
    animals[0]["photo"] = photo
    response = post(client, ENTRIES, entry_body(animals=animals), pound_keeper)
    if photo == "":
        assert response.status_code == 201  # an empty photo is no photo, as on the screen
        assert not Animal.objects.get().photo
    else:
        assert fields_of(problem_of(response, 400)) == {"animals.0.photo"}


def test_messages_in_hindi_by_accept_language(client, pound_keeper):
    body = entry_body(seizer_name="", animals=[])
    response = post(client, ENTRIES, body, pound_keeper, HTTP_ACCEPT_LANGUAGE="hi")
    problem = problem_of(response, 400)
    by_field = {e["field"]: e["message"] for e in problem["errors"]}
    assert problem["title"] != "The request has errors."
    assert by_field["seizer_name"] != "This field is required."
    assert by_field["animals"] != "Enter at least one animal."
    assert all(any("\u0900" <= c <= "\u097f" for c in m) for m in by_field.values())


@pytest.mark.parametrize("role", ["police_officer", "auditor", "dm_clerk", "magistrate"])
def test_roles_without_the_register_are_refused_as_on_the_screen(client, role_users, role):
    response = post(client, ENTRIES, entry_body(), role_users[role])
    assert problem_of(response, 403)["title"] == "Not allowed"
    assert not Impoundment.objects.exists()


def test_refused_before_the_key_and_the_body(client, police_officer):
    problem_of(post(client, ENTRIES, "not json", police_officer, key=None), 403)


@pytest.mark.parametrize("rows", [1, 6])
def test_new_entry_queries_do_not_grow_with_the_register(
    client, pound_keeper, pound, rows, django_assert_max_num_queries
):
    for _ in range(rows):  # the first also opens the pound's accounts
        make_entry(pound=pound, by=pound_keeper)
    body = entry_body()
    with django_assert_max_num_queries(QUERIES_NEW_ENTRY):
        assert post(client, ENTRIES, body, pound_keeper).status_code == 201


# --- Release on payment --------------------------------------------------------------------


def test_release_on_payment_answers_201_with_the_receipt(client, pound_keeper, entry, settings):
    settings.PUBLIC_BASE_URL = "https://pounds.example.gov.in"
    response = post(client, release_url(entry), release_body(entry), pound_keeper)

    assert response.status_code == 201, response.content
    receipt = Receipt.objects.get()
    body = response.json()
    assert body["receipt"]["number"] == receipt.number
    owed = dues(list(entry.animals.all())).total
    assert body["receipt"]["amount"] == str(receipt.amount) == str(owed)
    token = receipt.document.token
    assert body["receipt"]["verification_url"] == f"https://pounds.example.gov.in/verify/{token}/"
    assert response["Location"] == f"/api/v1/verify/{token}/"
    assert client.get(response["Location"]).json()["number"] == receipt.number
    assert sorted(body["animals"]) == sorted(entry.animals.values_list("pk", flat=True))
    assert set(entry.animals.values_list("state", flat=True)) == {AnimalState.RELEASED_PAID}
    release = Release.objects.get()
    assert release.released_by == pound_keeper and release.claimant_name == "Shyam Lal"


def test_release_replay_makes_one_receipt(client, pound_keeper, entry):
    body = release_body(entry)
    first = post(client, release_url(entry), body, pound_keeper)
    again = post(client, release_url(entry), body, pound_keeper)

    assert again.status_code == 201 and again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert Receipt.objects.count() == 1 and Release.objects.count() == 1


def test_release_key_reused_for_another_entry_is_422(client, pound_keeper, pound, entry):
    second = make_entry(pound=pound, by=pound_keeper)
    post(client, release_url(entry), release_body(entry), pound_keeper)
    reused = post(client, release_url(second), release_body(second), pound_keeper)
    problem_of(reused, 422)
    assert Receipt.objects.count() == 1


def test_wrong_amount_is_refused_with_the_dues_and_writes_nothing(client, pound_keeper, entry):
    owed = dues(list(entry.animals.all())).total
    body = release_body(entry, amount=str(owed - 1))
    refused = post(client, release_url(entry), body, pound_keeper)

    problem = problem_of(refused, 409)
    assert problem["title"] == "The amount tendered is not the dues now."
    assert inr(owed) in problem["detail"] and inr(owed - 1) in problem["detail"]
    assert problem["dues"]["total"] == str(owed)
    assert {a["id"] for a in problem["dues"]["animals"]} == set(body["animals"])
    assert not Receipt.objects.exists() and not Release.objects.exists()
    assert not IdempotentRequest.objects.exists()
    assert set(entry.animals.values_list("state", flat=True)) == {AnimalState.IMPOUNDED}
    # Corrected to the dues the refusal gave, the same key goes through.
    body["amount"] = problem["dues"]["total"]
    assert post(client, release_url(entry), body, pound_keeper).status_code == 201


def test_wrong_amount_in_hindi(client, pound_keeper, entry):
    owed = dues(list(entry.animals.all())).total
    body = release_body(entry, amount="1.00")
    response = post(client, release_url(entry), body, pound_keeper, HTTP_ACCEPT_LANGUAGE="hi")
    problem = problem_of(response, 409)
    assert problem["title"] != "The amount tendered is not the dues now."
    assert problem["detail"].startswith(f"देय राशि अब {inr(owed)} है")


def test_release_form_checks_are_the_screens(client, pound_keeper, entry):
    body = release_body(entry, claimant_role="agent", payment_mode="upi", register_page="")
    errors = problem_of(post(client, release_url(entry), body, pound_keeper), 400)["errors"]
    by_field = {e["field"]: e["message"] for e in errors}
    assert by_field["agent_authority"] == "Record the authority the agent relies on."
    assert by_field["owner_name"] == "Give the owner's name."
    assert by_field["payment_reference"] == "Give the UPI transaction or other payment reference."
    assert by_field["register_page"] == "Give the page of the register the claimant signed."
    missing = problem_of(
        post(client, release_url(entry), body | {"amount": None}, pound_keeper), 400
    )
    assert {"field": "amount", "message": "This field is required."} in missing["errors"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"amount": 1000}, "amount"),
        ({"amount": 1000.0}, "amount"),
        ({"amount": "lots"}, "amount"),
        ({"animals": "all"}, "animals"),
        ({"animals": [True]}, "animals"),
        ({"animals": [999999]}, "animals"),
        ({"animals": []}, "animals"),
        ({"replaces": 1}, "replaces"),
        ({"ground": "my land"}, "ground"),
        ({"signature_data": "data:image/png;base64,AAAA"}, "signature_data"),
        ({"acknowledgement": "signature"}, "signature_data"),
    ],
)
def test_bad_release_input_is_400(client, pound_keeper, entry, change, field):
    body = release_body(entry) | change
    assert field in fields_of(problem_of(post(client, release_url(entry), body, pound_keeper), 400))
    assert not Receipt.objects.exists()


def test_animal_of_another_entry_is_not_a_choice(client, pound_keeper, pound, entry):
    other = make_entry(pound=pound, by=pound_keeper)
    body = release_body(entry, animals=[other.animals.get().pk])
    response = post(client, release_url(entry), body, pound_keeper)
    assert "animals" in fields_of(problem_of(response, 400))


def test_nothing_left_in_the_pound_is_409(client, pound_keeper, entry):
    post(client, release_url(entry), release_body(entry), pound_keeper)
    again = post(client, release_url(entry), release_body(entry), pound_keeper, key="key-second")
    assert problem_of(again, 409)["title"] == "No animal of this entry is in the pound."


def test_other_districts_entry_is_404(client, outsider, entry):
    problem_of(post(client, release_url(entry), release_body(entry), outsider), 404)
    assert not Receipt.objects.exists()


@pytest.mark.parametrize("pk", ["99999999", "99999999999999999999"])
def test_unknown_entry_is_404(client, pound_keeper, pk):
    response = post(client, f"{ENTRIES}{pk}/release/", {}, pound_keeper)
    problem_of(response, 404)


@pytest.mark.parametrize("role", ["police_officer", "auditor", "dm_clerk", "magistrate"])
def test_roles_that_may_not_release_are_refused(client, role_users, entry, role):
    response = post(client, release_url(entry), release_body(entry), role_users[role])
    problem_of(response, 403)
    assert not Receipt.objects.exists()


@pytest.mark.parametrize("rows", [1, 6])
def test_release_queries_do_not_grow_with_the_register(
    client, pound_keeper, pound, tariffs, rows, django_assert_max_num_queries
):
    for _ in range(rows):
        pay(make_entry(pound=pound, by=pound_keeper), pound_keeper)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])
    body = release_body(entry)
    with django_assert_max_num_queries(QUERIES_RELEASE):
        assert post(client, release_url(entry), body, pound_keeper).status_code == 201


# --- The schema ----------------------------------------------------------------------------


def test_schema_publishes_the_bodies_of_the_forms_and_the_key(client):
    schema = client.get("/api/v1/openapi.json").json()
    create = schema["paths"]["/api/v1/entries/"]["post"]
    release = schema["paths"]["/api/v1/entries/{pk}/release/"]["post"]
    for operation in (create, release):
        assert HEADER in {p["name"] for p in operation["parameters"] if p["in"] == "header"}
        assert {"201", "400", "403", "422"} <= set(operation["responses"])
    entry_schema = create["requestBody"]["content"]["application/json"]["schema"]
    entry_fields = set(EntryForm.base_fields) - {"idempotency_key"}  # the header's
    # `captured_at` is the field app's: the phone's time of capture (api.field).
    assert set(entry_schema["properties"]) == entry_fields | {"animals", "captured_at"}
    animal_schema = entry_schema["properties"]["animals"]["items"]
    assert set(animal_schema["properties"]) == set(AnimalForm.base_fields) - {"photo_held"}
    release_schema = release["requestBody"]["content"]["application/json"]["schema"]
    confirm_fields = set(ConfirmForm.base_fields) - {"idempotency_key"}
    # `replaces` is the claim form's own when the entry has a cancelled receipt to replace.
    claim_fields = set(ClaimForm.base_fields) | confirm_fields | {"replaces"}
    assert set(release_schema["properties"]) == claim_fields
    assert "$ref" not in json.dumps([entry_schema, release_schema])


# --- Two at once ---------------------------------------------------------------------------


def race(*calls):
    """The calls in threads let go together; each thread has its own connection."""
    barrier = threading.Barrier(len(calls))
    results, errors = [None] * len(calls), [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except Exception as exc:  # the test looks at what each thread met
            errors[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread is stuck"
    return results, errors


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_requests_at_once_with_one_key_make_one_entry(pound_keeper, pound):
    headers = bearer(pound_keeper)
    key = str(uuid.uuid4())
    raw = json.dumps(entry_body())

    def send():
        return Client().post(
            ENTRIES, raw, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key, **headers
        )

    results, errors = race(send, send)

    assert errors == [None, None]
    assert [r.status_code for r in results] == [201, 201]
    assert results[0].content == results[1].content
    assert Impoundment.objects.count() == 1 and IdempotentRequest.objects.count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_releases_at_once_with_one_key_make_one_receipt(pound_keeper, entry):
    headers = bearer(pound_keeper)
    key = str(uuid.uuid4())
    raw = json.dumps(release_body(entry))

    def send():
        return Client().post(
            release_url(entry),
            raw,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=key,
            **headers,
        )

    results, errors = race(send, send)

    assert errors == [None, None]
    assert [r.status_code for r in results] == [201, 201]
    assert results[0].content == results[1].content
    assert Receipt.objects.count() == 1 and Release.objects.count() == 1
