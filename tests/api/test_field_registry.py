"""The field app's entries ask the ear-tag registry as the arrival screen does (ADR 0078,
addendum): the same cached lookup with its short timeout, once the entry is committed; the
keeper sees the owner it names on the entry's page and confirms it there, which corrects the
register, records the confirmation and tells the owner. The fake registry on loopback answers."""

import pytest
from django.urls import reverse

from impounding.models import Amendment, Impoundment, TagLookup
from kernel.models import Event
from messaging.models import Message
from tests.api.test_intake_api import ENTRIES, entry_body, post
from tests.impounding.fakeregistry import TOKEN, FakeRegistry
from tests.impounding.test_lost_reports import sms_templates  # noqa: F401

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


def synced(client, keeper, capture, **kw):
    """An entry as the field app sends it: an ear tag, the owner not known."""
    body = entry_body(owner_name="", owner_residence="", **kw)
    body["animals"][0]["ear_tag"] = TAG
    with capture(execute=True):
        answer = post(client, ENTRIES, body, keeper)
    assert answer.status_code == 201, answer.content
    return Impoundment.objects.get(pk=answer.json()["id"])


def test_a_synced_entry_asks_the_registry_and_the_keeper_sees_the_owner(
    client, pound_keeper, fake_registry, django_capture_on_commit_callbacks
):
    entry = synced(client, pound_keeper, django_capture_on_commit_callbacks)
    assert fake_registry.asked == [TAG]
    assert TagLookup.objects.get(tag=TAG).outcome == "found"
    assert entry.owner_name == ""  # nothing filled without the keeper
    client.force_login(pound_keeper)
    page = client.get(reverse("impounding:entry", args=[entry.pk])).content.decode()
    assert "Shyam Lal" in page and "******3210" in page and "9876543210" not in page
    assert reverse("impounding:entry_owner_from_tag", args=[entry.pk]) in page
    # Read from the cache: the page asks the registry nothing.
    assert fake_registry.asked == [TAG]


@pytest.mark.usefixtures("sms_templates")
def test_the_keeper_confirms_the_owner_and_it_is_recorded_once(
    client, pound_keeper, fake_registry, django_capture_on_commit_callbacks
):
    entry = synced(client, pound_keeper, django_capture_on_commit_callbacks)
    client.force_login(pound_keeper)
    url = reverse("impounding:entry_owner_from_tag", args=[entry.pk])
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(url, {"use_owner": TAG})
    assert answer.status_code == 302
    entry.refresh_from_db()
    assert (entry.owner_name, entry.owner_residence, entry.owner_phone) == (
        "Shyam Lal",
        "Samesi",
        "9876543210",
    )
    assert Amendment.objects.filter(impoundment=entry).count() == 3  # the original stays
    event = Event.objects.get(action="register.owner_from_tag", impoundment=entry)
    assert event.by == pound_keeper and event.section == "s.8" and event.data["tag"] == TAG
    assert Message.objects.filter(recipient="9876543210", impoundment=entry).exists()
    # Confirmed twice, done once; and the page offers it no more.
    client.post(url, {"use_owner": TAG})
    assert Amendment.objects.filter(impoundment=entry).count() == 3
    assert Event.objects.filter(action="register.owner_from_tag").count() == 1
    page = client.get(reverse("impounding:entry", args=[entry.pk])).content.decode()
    assert url not in page


def test_a_tag_not_of_the_entry_changes_nothing(
    client, pound_keeper, fake_registry, django_capture_on_commit_callbacks
):
    entry = synced(client, pound_keeper, django_capture_on_commit_callbacks)
    TagLookup.objects.create(
        tag="111122223333", outcome="found", registry="http", owner_name="Someone Else"
    )
    client.force_login(pound_keeper)
    url = reverse("impounding:entry_owner_from_tag", args=[entry.pk])
    answer = client.post(url, {"use_owner": "111122223333"}, follow=True)
    assert "The registry names no owner for that tag of this entry." in answer.content.decode()
    entry.refresh_from_db()
    assert entry.owner_name == "" and not Amendment.objects.exists()


def test_a_failing_registry_is_no_suggestion_and_the_entry_stands(
    client, pound_keeper, fake_registry, django_capture_on_commit_callbacks
):
    fake_registry.mode = "error"
    entry = synced(client, pound_keeper, django_capture_on_commit_callbacks)
    assert TagLookup.objects.get(tag=TAG).outcome == "failed"
    client.force_login(pound_keeper)
    page = client.get(reverse("impounding:entry", args=[entry.pk])).content.decode()
    assert "Shyam Lal" not in page


def test_only_the_keeper_of_the_pound_is_offered_it(
    client,
    pound_keeper,
    police_officer,
    outsider,
    fake_registry,
    django_capture_on_commit_callbacks,
):
    entry = synced(client, pound_keeper, django_capture_on_commit_callbacks)
    url = reverse("impounding:entry_owner_from_tag", args=[entry.pk])
    client.force_login(police_officer)
    page = client.get(reverse("impounding:entry", args=[entry.pk])).content.decode()
    assert url not in page
    assert client.post(url, {"use_owner": TAG}).status_code == 403
    client.force_login(outsider)
    assert client.post(url, {"use_owner": TAG}).status_code == 404
    entry.refresh_from_db()
    assert entry.owner_name == ""


def test_a_synced_entry_is_matched_to_the_open_lost_reports_on_the_worker(
    client, pound_keeper, district, django_capture_on_commit_callbacks
):
    from django_tasks_db.models import DBTaskResult

    synced(client, pound_keeper, django_capture_on_commit_callbacks)
    task = DBTaskResult.objects.get(task_path="impounding.tasks.match_lost_reports")
    assert len(task.args_kwargs["args"][0]) == 2  # both animals
