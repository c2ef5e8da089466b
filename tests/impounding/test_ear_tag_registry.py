"""Lookup by ear tag (ADR 0078): the registry behind its interface, its answers kept with their
age, and the intake that never waits on it for long nor fails for it."""

import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from impounding import registry
from impounding.models import Impoundment, TagLookup
from kernel.models import Event
from tests.impounding.fakeregistry import TOKEN, FakeRegistry
from tests.impounding.test_views_register import entry_post

TAG = "123456789010"
OWNER = {"name": "Shyam Lal", "phone": "9876543210", "village": "Samesi"}


@pytest.fixture
def fake_registry(settings):
    with FakeRegistry() as fake:
        settings.EAR_TAG_REGISTRY = "http"
        settings.EAR_TAG_REGISTRY_URL = fake.url
        settings.EAR_TAG_REGISTRY_TOKEN = TOKEN
        settings.EAR_TAG_REGISTRY_TIMEOUT = 0.5
        fake.owners[TAG] = OWNER
        yield fake


def test_without_a_registry_nothing_is_asked_or_kept():
    assert registry.registry().name == "none"
    assert registry.look_up(TAG) is None
    assert not TagLookup.objects.exists()


def test_the_registry_names_the_owner_and_the_answer_is_kept(fake_registry):
    owner = registry.look_up(TAG)
    assert owner == registry.Owner("Shyam Lal", "9876543210", "Samesi")
    assert registry.look_up(TAG) == owner
    assert fake_registry.asked == [TAG]  # the second from the database, not the registry
    row = TagLookup.objects.get(tag=TAG)
    assert (row.outcome, row.registry) == ("found", "http")


def test_an_answer_older_than_its_age_is_asked_again(fake_registry, settings):
    registry.look_up(TAG)
    TagLookup.objects.update(looked_up_at=timezone.now() - timedelta(hours=25))
    fake_registry.owners[TAG] = OWNER | {"village": "Nigohan"}
    assert registry.look_up(TAG).village == "Nigohan"
    assert len(fake_registry.asked) == 2


def test_a_tag_the_registry_does_not_know_is_no_suggestion_and_is_kept(fake_registry):
    assert registry.look_up("987654321012") is None
    assert TagLookup.objects.get(tag="987654321012").outcome == "unknown"


def test_a_tag_of_another_shape_is_never_asked(fake_registry):
    assert registry.look_up("RFID-55") is None
    assert fake_registry.asked == []


@pytest.mark.parametrize(
    ("mode", "error"),
    [("slow", "timed out"), ("error", "HTTP 500"), ("garbage", "malformed"), ("wrong_tag", "")],
)
def test_a_failing_registry_is_recorded_and_answers_nothing(fake_registry, mode, error):
    fake_registry.mode = mode
    started = time.monotonic()
    assert registry.look_up(TAG) is None
    assert time.monotonic() - started < 1.5  # the timeout, not the registry's delay
    row = TagLookup.objects.get(tag=TAG)
    assert (row.outcome, row.failures) == ("failed", 1)
    assert error in row.error
    # Not asked again at once: the next form is not kept waiting by the same outage.
    registry.look_up(TAG)
    assert len(fake_registry.asked) == 1
    TagLookup.objects.update(looked_up_at=timezone.now() - timedelta(minutes=11))
    fake_registry.mode = "ok"
    assert registry.look_up(TAG).name == "Shyam Lal"


def test_a_failure_keeps_the_owner_found_before(fake_registry):
    registry.look_up(TAG)
    TagLookup.objects.update(looked_up_at=timezone.now() - timedelta(days=2))
    fake_registry.mode = "error"
    assert registry.look_up(TAG).name == "Shyam Lal"
    assert TagLookup.objects.get(tag=TAG).outcome == "failed"


def test_a_wrong_token_is_a_failure_not_an_owner(fake_registry, settings):
    settings.EAR_TAG_REGISTRY_TOKEN = "wrong"
    assert registry.look_up(TAG) is None
    assert TagLookup.objects.get(tag=TAG).error == "HTTP 401"


def _check_page(client, pound, **over):
    data = entry_post(pound, **{"animals-0-ear_tag": TAG} | over)
    del data["confirm"]
    return data, client.post(reverse("impounding:entry_new"), data)


@pytest.mark.parametrize("language", ["en", "hi"])
def test_the_keeper_sees_the_suggestion_masked_and_confirms_it(
    client, pound_keeper, pound, tariffs, fake_registry, language
):
    client.force_login(pound_keeper)
    client.cookies["django_language"] = language
    data, response = _check_page(client, pound)
    body = response.content.decode()
    assert response.templates[0].name == "impounding/entry_check.html"
    assert "Shyam Lal" in body and "******3210" in body and "Samesi" in body
    assert "9876543210" not in body  # not before the keeper confirms
    assert 'name="use_owner"' in body
    # Nothing is filled in without the keeper's word: the entry made now has no owner.
    assert 'name="owner_name" value=""' in body

    response = client.post(reverse("impounding:entry_new"), dict(data, use_owner=TAG))
    body = response.content.decode()
    assert response.templates[0].name == "impounding/entry_check.html"
    assert 'name="owner_name" value="Shyam Lal"' in body
    assert 'name="owner_from_tag" value="123456789010"' in body
    assert 'name="use_owner"' not in body  # the owner is the entry's now
    replay = dict(data, owner_name="Shyam Lal", owner_residence="Samesi")
    replay |= {"owner_phone": "9876543210", "owner_from_tag": TAG, "confirm": "1"}
    client.post(reverse("impounding:entry_new"), replay)
    entry = Impoundment.objects.get()
    assert (entry.owner_name, entry.owner_phone) == ("Shyam Lal", "9876543210")
    event = Event.objects.get(action="register.owner_from_tag")
    assert (event.section, event.by_id, event.data["tag"]) == ("s.8", pound_keeper.pk, TAG)


def test_an_owner_changed_after_confirming_is_not_recorded_as_the_registrys(
    client, pound_keeper, pound, tariffs, fake_registry
):
    client.force_login(pound_keeper)
    registry.look_up(TAG)
    post = entry_post(pound, **{"animals-0-ear_tag": TAG})
    post |= {"owner_name": "Someone Else", "owner_from_tag": TAG}
    client.post(reverse("impounding:entry_new"), post)
    assert Impoundment.objects.get().owner_name == "Someone Else"
    assert not Event.objects.filter(action="register.owner_from_tag").exists()


def test_the_intake_goes_on_when_the_registry_is_down(
    client, pound_keeper, pound, tariffs, fake_registry
):
    client.force_login(pound_keeper)
    fake_registry.mode = "slow"
    started = time.monotonic()
    data, response = _check_page(client, pound)
    assert time.monotonic() - started < 3
    assert response.templates[0].name == "impounding/entry_check.html"
    assert 'name="use_owner"' not in response.content.decode()
    client.post(reverse("impounding:entry_new"), dict(data, confirm="1"))
    assert Impoundment.objects.get().owner_name == ""


def test_the_registrys_answers_are_kept_a_month(fake_registry):
    from accounts.scoping import system_actor
    from office.retention import apply_retention

    registry.look_up(TAG)
    registry.look_up("987654321012")
    TagLookup.objects.filter(tag=TAG).update(looked_up_at=timezone.now() - timedelta(days=31))
    assert apply_retention(by=system_actor())["tag_lookups"] == 1
    assert list(TagLookup.objects.values_list("tag", flat=True)) == ["987654321012"]
