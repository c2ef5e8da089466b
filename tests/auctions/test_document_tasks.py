"""The s.14 report and notice, which list every animal of a round-up (the notice with their
photos), are drawn and kept by the worker as soon as they are issued: the download reads the
kept file, and never draws it again."""

import hashlib

from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from accounts.models import IssuedDocument
from auctions import documents
from auctions.models import Notice, Report
from tests.auctions.factories import report_and_notice, unclaimed_entry
from tests.impounding.factories import cow, goat

IMMEDIATE = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def must_not_draw(*args, **kwargs):
    raise AssertionError("a document the worker kept was drawn again")


def test_the_worker_draws_and_keeps_the_report_and_the_notice_when_issued(
    client,
    pound,
    pound_keeper,
    police_officer,
    tariffs,
    settings,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    settings.TASKS = IMMEDIATE  # the worker's part, run as soon as it is enqueued
    entry = unclaimed_entry(
        pound=pound, keeper=pound_keeper, days_ago=12, animals=[cow(), cow(), goat(), goat()]
    )
    with django_capture_on_commit_callbacks(execute=True):
        report, notice = report_and_notice(
            entry, pound_keeper, police_officer, sent_days_ago=2, posted_days_ago=1
        )

    kept = {}
    for document in (report.document, notice.document):
        document = IssuedDocument.objects.get(pk=document.pk)
        assert document.file and len(document.sha256) == 64  # before anyone downloaded it
        with document.file.open("rb") as handle:
            kept[document.pk] = handle.read()
        assert hashlib.sha256(kept[document.pk]).hexdigest() == document.sha256
    monkeypatch.setattr(documents, "report_pdf", must_not_draw)
    monkeypatch.setattr(documents, "notice_pdf", must_not_draw)
    client.force_login(pound_keeper)
    got = client.get(reverse("auctions:report_pdf", args=[report.pk])).content
    assert got == kept[report.document_id]
    got = client.get(reverse("auctions:notice_pdf", args=[notice.pk])).content
    assert got == kept[notice.document_id]


def test_issuing_only_enqueues_the_drawing(
    pound, pound_keeper, police_officer, tariffs, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = QUEUE
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    with django_capture_on_commit_callbacks(execute=True):
        report, notice = report_and_notice(
            entry, pound_keeper, police_officer, sent_days_ago=2, posted_days_ago=1
        )

    paths = sorted(DBTaskResult.objects.values_list("task_path", flat=True))
    assert paths == ["auctions.tasks.keep_notice_pdf", "auctions.tasks.keep_report_pdf"]
    assert not IssuedDocument.objects.get(pk=report.document_id).file
    assert Report.objects.count() == Notice.objects.count() == 1
