"""The sweep of documents kept by what they say (docs/decisions/0072, docs/retention.md): the daily
retention run removes `kept/` files older than RETENTION_KEPT_DAYS from the file system and from
an S3 store (moto's server over real HTTP), touches nothing else, and the document is drawn and
kept again on its next download."""

import os
from datetime import date, timedelta

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import timezone

from accounts.scoping import system_actor
from impounding import documents
from kernel import held_uploads
from kernel.sweep import remove_older
from office.retention import apply_retention
from tests.kernel.test_stored_files import s3, s3_endpoint  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


def kept_names():
    names = []
    folders = ["kept"]
    while folders:
        folder = folders.pop()
        try:
            subfolders, files = default_storage.listdir(folder)
        except FileNotFoundError:
            continue
        folders += [f"{folder}/{sub}" for sub in subfolders]
        names += [f"{folder}/{name}" for name in files]
    return sorted(names)


def age(name, days):
    """Set a file's time on the file system `days` back."""
    path = default_storage.path(name)
    then = (timezone.now() - timedelta(days=days)).timestamp()
    os.utime(path, (then, then))


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def test_the_retention_run_sweeps_old_kept_files_and_the_document_is_drawn_again(
    media, settings, pound, pound_keeper, tariffs
):
    first = documents.tariff_schedule(pound, date(2026, 1, 15), by=pound_keeper)
    [kept] = kept_names()
    assert kept.startswith("kept/schedule/")
    default_storage.save("animals/photo.jpg", ContentFile(b"x"))
    age("animals/photo.jpg", 400)
    age(kept, settings.RETENTION_KEPT_DAYS - 1)

    assert apply_retention(by=system_actor())["kept_documents"] == 0  # not yet a month old
    assert kept_names() == [kept]

    age(kept, settings.RETENTION_KEPT_DAYS + 1)
    assert apply_retention(by=system_actor())["kept_documents"] == 1
    assert kept_names() == []
    assert default_storage.exists("animals/photo.jpg")  # outside kept/: never touched
    assert apply_retention(by=system_actor())["kept_documents"] == 0  # a second run: nothing

    again = documents.tariff_schedule(pound, date(2026, 1, 15), by=pound_keeper)
    assert kept_names() == [kept]  # the same content, kept again under the same name
    assert again[:5] == first[:5] == b"%PDF-"


def test_the_command_prints_what_it_swept(media, settings, capsys):
    default_storage.save("kept/entry-copy/ab/ab12.pdf", ContentFile(b"%PDF-"))
    age("kept/entry-copy/ab/ab12.pdf", settings.RETENTION_KEPT_DAYS + 1)
    call_command("apply_retention")
    assert "kept documents 1" in capsys.readouterr().out


def test_the_period_is_the_setting(media, settings):
    default_storage.save("kept/statement/cd/cd34.pdf", ContentFile(b"%PDF-"))
    age("kept/statement/cd/cd34.pdf", 10)
    settings.RETENTION_KEPT_DAYS = 7
    assert apply_retention(by=system_actor())["kept_documents"] == 1


def test_on_s3_old_kept_files_go_in_pages_and_nothing_else_is_touched(s3):  # noqa: F811
    client, bucket = s3
    for n in range(5):
        default_storage.save(f"kept/schedule/{n:02d}/{n}.pdf", ContentFile(b"%PDF-"))
    default_storage.save("keptnot/other.pdf", ContentFile(b"x"))
    default_storage.save("animals/photo.jpg", ContentFile(b"x"))
    now = timezone.now()

    assert remove_older("kept", now - timedelta(days=30)) == 0  # all just written
    # A month on, every kept file is old; the listing is read two at a time.
    from kernel import sweep

    sweep.PAGE, page = 2, sweep.PAGE
    try:
        assert remove_older("kept", now + timedelta(days=31)) == 5
    finally:
        sweep.PAGE = page
    keys = {o["Key"] for o in client.list_objects_v2(Bucket=bucket).get("Contents", [])}
    assert keys == {"keptnot/other.pdf", "animals/photo.jpg"}
    assert remove_older("kept", now + timedelta(days=31)) == 0


def test_held_photos_are_swept_by_the_same_helper(media):
    default_storage.save("held/abandoned.jpg", ContentFile(b"x"))
    age("held/abandoned.jpg", 2)
    default_storage.save("held/fresh.jpg", ContentFile(b"x"))
    assert held_uploads.sweep() == 1
    assert default_storage.exists("held/fresh.jpg")
    assert not default_storage.exists("held/abandoned.jpg")
