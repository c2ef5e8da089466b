"""Background work of the s.14 documents (Django's tasks, on the worker: docs/decisions/0012).

The report and the notice of unclaimed cattle list every animal, the notice with its photo:
for a round-up of many animals they take long to draw. So each is drawn by the worker as soon
as it is issued, and kept (IssuedDocument.objects.kept_pdf); the download then reads the kept
file. A download before the worker got there draws it itself, and the first one kept wins, so
a task run twice, or after a download, does no harm.
"""

from django.tasks import task

from accounts.models import IssuedDocument

from .models import Notice, Report


def _documents():
    # auctions.documents imports the services, which enqueue these tasks: read at run time.
    from . import documents

    return documents


@task()
def keep_report_pdf(report_id):
    """Draw and keep the s.14 report; its size in bytes is the task's result."""
    report = Report.objects.select_related("pound", "document").get(pk=report_id)
    draw = _documents().report_pdf
    return len(IssuedDocument.objects.kept_pdf(report.document, lambda: draw(report)))


@task()
def keep_notice_pdf(notice_id):
    """Draw and keep the s.14 notice, photos and all; its size in bytes is the task's result."""
    notice = Notice.objects.select_related("pound", "document").get(pk=notice_id)
    documents = _documents()
    pdf = IssuedDocument.objects.kept_pdf(
        notice.document,
        lambda: documents.notice_pdf(notice),
        basis=documents.notice_basis(notice),
    )
    return len(pdf)
