"""Exports and returns are made by the worker (django-tasks-db on PostgreSQL): the request that
asks returns at once with a page that refreshes itself; `manage.py db_worker --batch`, run as its
own process, makes the file; then the page offers it to its owner alone."""

import csv
import io
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from kernel import worker
from office.models import PreparedFile
from office.tasks import prepare_file
from tests.impounding.factories import cow, make_entry

# The worker keeps the real clock, so the asks and their checks do too.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True), pytest.mark.real_clock]
ROOT = Path(__file__).resolve().parents[2]
KEY = "6f1c1a52-6d59-4a4e-9a43-0c55f4b8a001"


def prepare_tasks():
    """The tasks that make files: an entry's arrival also queues its lost-report matching."""
    return DBTaskResult.objects.filter(task_path="office.tasks.prepare_file")


def run_worker(**env_vars):
    """One real worker process on the test database: it runs what is queued, then exits.
    `env_vars` adds to its environment (settings the test changed, as the worker reads them)."""
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
        "LOG_LEVEL": "ERROR",
        **env_vars,
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "db_worker", "--batch", "--no-startup-delay"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def entries(pound, pound_keeper, tariffs):
    return [make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()]) for _ in range(3)]


def ask(client, what="register", key=KEY, **fields):
    return client.post(reverse("office:prepare"), {"what": what, "key": key, **fields})


def test_an_export_is_queued_then_made_by_the_worker_then_offered_to_its_owner(
    client, entries, magistrate, dm_clerk, pound
):
    client.force_login(magistrate)

    response = ask(client, pound=pound.pk)

    prepared = PreparedFile.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("office:prepared", args=[prepared.pk])
    # The request only recorded the ask: nothing was made in it.
    assert (prepared.status, prepared.file.name) == (PreparedFile.Status.QUEUED, "")
    assert prepare_tasks().get().status == "READY"
    waiting = client.get(response["Location"]).content.decode()
    assert '<meta http-equiv="refresh" content="3">' in waiting
    assert "The file is being prepared." in waiting

    run_worker()

    prepared.refresh_from_db()
    assert prepared.status == PreparedFile.Status.READY
    assert prepared.file.name.startswith("prepared/") and prepared.file.name.endswith(".csv")
    assert prepare_tasks().get().status == "SUCCESSFUL"
    ready = client.get(response["Location"]).content.decode()
    assert "refresh" not in ready and "The file is ready." in ready
    download = client.get(reverse("office:prepared_file", args=[prepared.pk]))
    assert download.status_code == 200
    assert download["Content-Disposition"].startswith("attachment;")
    text = b"".join(download.streaming_content).decode("utf-8-sig")
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) == 6 and header[0]
    # The file is its owner's: another user of the same office gets a 404.
    client.force_login(dm_clerk)
    assert client.get(response["Location"]).status_code == 404
    assert client.get(reverse("office:prepared_file", args=[prepared.pk])).status_code == 404


def test_asking_twice_with_the_same_key_makes_one_file(client, entries, magistrate):
    client.force_login(magistrate)

    first, second = ask(client, what="ledger"), ask(client, what="ledger")

    assert first["Location"] == second["Location"]
    assert PreparedFile.objects.count() == 1 and prepare_tasks().count() == 1


def test_a_task_run_again_after_it_finished_changes_nothing(client, entries, magistrate):
    client.force_login(magistrate)
    ask(client, what="ledger")
    run_worker()
    prepared = PreparedFile.objects.get()

    size = prepare_file.call(str(prepared.pk))

    again = PreparedFile.objects.get()
    assert (again.file.name, again.size, size) == (prepared.file.name, prepared.size, prepared.size)


def test_a_district_return_is_prepared_as_a_pdf(client, entries, magistrate, district):
    client.force_login(magistrate)
    today = entries[0].arrived_at.date()

    ask(
        client,
        what="district_return",
        pk=district.pk,
        year=today.year,
        month=today.month,
        fmt="pdf",
    )
    run_worker()

    prepared = PreparedFile.objects.get()
    assert prepared.status == PreparedFile.Status.READY
    assert prepared.filename == f"district-return-{district.code}-{today:%Y-%m}.pdf"
    with prepared.file.open("rb") as handle:
        assert handle.read(5) == b"%PDF-"


def test_another_districts_pound_cannot_be_asked_for(client, magistrate, other_pound):
    client.force_login(magistrate)

    assert ask(client, pound=other_pound.pk).status_code == 404
    assert PreparedFile.objects.count() == 0 and prepare_tasks().count() == 0


def test_the_returns_page_asks_the_worker_with_a_key_per_button(client, entries, magistrate):
    client.force_login(magistrate)

    html = client.get(reverse("office:returns")).content.decode()

    assert html.count(f'action="{reverse("office:prepare")}"') == 4
    assert html.count('name="key"') == 4


def test_a_task_whose_worker_died_is_enqueued_again_and_made(client, entries, magistrate):
    client.force_login(magistrate)
    ask(client, what="register")
    prepared = PreparedFile.objects.get()
    # The worker took it and died: the row says running, the task result too, and no file.
    PreparedFile.objects.filter(pk=prepared.pk).update(
        status=PreparedFile.Status.RUNNING, started_at=timezone.now() - timedelta(hours=1)
    )
    prepare_tasks().update(status="RUNNING")
    out = io.StringIO()

    call_command("requeue_stale_tasks", stdout=out)
    run_worker()

    assert out.getvalue().strip() == "requeue_stale_tasks: 1 enqueued again"
    prepared.refresh_from_db()
    assert prepared.status == PreparedFile.Status.READY and prepared.size > 0


def test_the_waiting_page_says_when_no_worker_is_running(client, entries, magistrate, pound):
    """Rather than "being prepared" for ever: no worker has renewed its lease lately."""
    client.force_login(magistrate)
    page = ask(client, pound=pound.pk)["Location"]
    down = "The background worker is not running just now"

    without = client.get(page).content.decode()
    worker.renew(worker_id="alive")
    alive = client.get(page).content.decode()

    assert down in without and "alert-warning" in without
    assert down not in alive and "The file is being prepared." in alive


def test_a_file_whose_worker_stopped_on_every_try_says_so_and_is_not_tried_again(
    client, entries, magistrate, pound
):
    """The sweep gives a task up after TASK_MAX_ATTEMPTS dead workers (kernel.worker): its file's
    page then says it could not be prepared, and the next worker start does not try it again
    (a retry would only stop that worker too)."""
    client.force_login(magistrate)
    page = ask(client, pound=pound.pk)["Location"]
    prepared = PreparedFile.objects.get()
    assert prepared.task_id is not None  # the task that makes it is remembered
    PreparedFile.objects.filter(pk=prepared.pk).update(
        status=PreparedFile.Status.RUNNING, started_at=timezone.now() - timedelta(hours=1)
    )
    worker.renew(worker_id="alive")
    assert "The file is being prepared." in client.get(page).content.decode()
    prepare_tasks().filter(pk=prepared.task_id).update(
        status="FAILED", exception_class_path=worker.LOST
    )
    out = io.StringIO()

    html = client.get(page).content.decode()
    call_command("requeue_stale_tasks", stdout=out)

    prepared.refresh_from_db()
    assert prepared.status == PreparedFile.Status.FAILED
    assert "The file is being prepared." not in html
    assert "The file could not be prepared." in html
    assert out.getvalue().strip() == "requeue_stale_tasks: 0 enqueued again"
    assert prepare_tasks().count() == 1  # nothing enqueued again
