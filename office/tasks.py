"""Background work on PostgreSQL (Django's tasks framework, django-tasks-db backend): the files
too slow to make inside a request. `manage.py db_worker` runs them (deploy/).

A task is idempotent: it makes its PreparedFile once. A task retried after a worker died finds
the file ready and does nothing, or writes it again under a new random name.
"""

import tempfile
from datetime import date

from django.core.files import File
from django.tasks import task
from django.utils import timezone, translation

from accounts.models import District, Pound, ToDo
from accounts.todos import mail_todo
from kernel import worker
from kernel.replica import reads_from_replica
from kernel.uploads import stored_name

from . import exports, return_documents
from .models import PreparedFile


def _period(params):
    return [date.fromisoformat(d) if d else None for d in params["period"]]


def _register(params):
    queryset = exports.register_queryset(params["pound_ids"], *_period(params))
    return "csv", exports.stream_csv(exports.register_header(), queryset)


def _ledger(params):
    queryset = exports.ledger_queryset(
        params["pound_ids"], params["district_ids"], *_period(params)
    )
    return "csv", exports.stream_csv(exports.ledger_header(), queryset)


def _monthly_return(params, owner):
    pound = Pound.objects.select_related("district").get(pk=params["pk"])
    year, month, fmt = params["year"], params["month"], params["fmt"]
    if fmt == "csv":
        return "csv", [return_documents.monthly_return_csv(pound, year, month)]
    return "pdf", [return_documents.monthly_return_pdf(pound, year, month, by=owner)]


def _district_return(params, owner):
    district = District.objects.get(pk=params["pk"])
    year, month, fmt = params["year"], params["month"], params["fmt"]
    if fmt == "csv":
        return "csv", [return_documents.district_return_csv(district, year, month)]
    return "pdf", [return_documents.district_return_pdf(district, year, month, by=owner)]


def _content(prepared):
    """(extension, iterable of bytes or str blocks) of the file to make."""
    kind, params = prepared.kind, prepared.params
    if kind == PreparedFile.Kind.REGISTER:
        return _register(params)
    if kind == PreparedFile.Kind.LEDGER:
        return _ledger(params)
    if kind == PreparedFile.Kind.MONTHLY_RETURN:
        return _monthly_return(params, prepared.owner)
    return _district_return(params, prepared.owner)


@task()
def prepare_file(prepared_id):
    """Make one PreparedFile and store it; its size in bytes is the task's result."""
    prepared = PreparedFile.objects.select_related("owner").get(pk=prepared_id)
    if prepared.status == PreparedFile.Status.READY:
        return prepared.size
    PreparedFile.objects.filter(pk=prepared.pk).update(
        status=PreparedFile.Status.RUNNING, started_at=timezone.now()
    )
    try:
        # The rows are read from the replica, if there is one (ADR 0054); the file's own row
        # (above and below) stays on the primary.
        with translation.override(prepared.params.get("language", "en")), reads_from_replica():
            ext, blocks = _content(prepared)
            # Written to a scratch file in blocks, so a million rows never sit in memory at once.
            with tempfile.TemporaryFile() as scratch:
                for block in blocks:
                    scratch.write(block.encode("utf-8") if isinstance(block, str) else block)
                scratch.seek(0)
                prepared.file.save(stored_name(ext), File(scratch), save=False)
    except Exception:
        PreparedFile.objects.filter(pk=prepared.pk).update(
            status=PreparedFile.Status.FAILED, finished_at=timezone.now()
        )
        raise
    prepared.status, prepared.size = PreparedFile.Status.READY, prepared.file.size
    prepared.finished_at = timezone.now()
    prepared.save(update_fields=["file", "status", "size", "finished_at"])
    return prepared.size


def enqueue_prepare(prepared_id):
    """Put the file on the worker's queue, and remember which task makes it."""
    result = prepare_file.enqueue(str(prepared_id))
    PreparedFile.objects.filter(pk=prepared_id).update(task_id=str(result.id))


def give_up_lost(files):
    """Mark failed every file among `files` (unfinished ones) whose task was given up after its
    worker stopped on every try, so that its page says so rather than "being prepared" for
    ever; a retry would only stop the worker again. Returns the ids marked."""
    lost_tasks = worker.lost(f.task_id for f in files)
    ids = [f.pk for f in files if f.task_id and str(f.task_id) in lost_tasks]
    if ids:
        PreparedFile.objects.filter(
            pk__in=ids, status__in=[PreparedFile.Status.QUEUED, PreparedFile.Status.RUNNING]
        ).update(status=PreparedFile.Status.FAILED, finished_at=timezone.now())
    return ids


def requeue_stale(*, older_than):
    """Enqueue again every file whose task started more than `older_than` ago and never
    finished, and the mail of every open to-do made as long ago and never mailed: their worker
    died. The tasks are idempotent, so a slow one run twice does no harm. Returns how many
    were enqueued."""
    stale = PreparedFile.objects.filter(
        status=PreparedFile.Status.RUNNING, started_at__lt=timezone.now() - older_than
    )
    given_up = set(give_up_lost(list(stale)))
    count = 0
    for prepared in stale:
        if prepared.pk in given_up:
            continue
        PreparedFile.objects.filter(pk=prepared.pk).update(status=PreparedFile.Status.QUEUED)
        enqueue_prepare(prepared.pk)
        count += 1
    unmailed = ToDo.objects.filter(
        done_at__isnull=True,
        mailed_at__isnull=True,
        created_at__lt=timezone.now() - older_than,
    ).values_list("pk", flat=True)
    for todo_id in unmailed:
        mail_todo.enqueue(todo_id)
        count += 1
    return count
