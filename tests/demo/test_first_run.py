"""`make run` is quiet and quick (issue 27): a task's log line is printed once, the seed puts the
documents' drawing aside for their first download, and the seed's QR codes carry the port the
demo serves on."""

import logging

from django.tasks.backends.dummy import DummyBackend

from auctions.tasks import keep_report_pdf
from demo.management.commands.seed_demo import tasks_put_aside
from kernel.documents import public_base_url


def test_a_tasks_log_line_is_printed_once(capsys):
    """Django's records reach the console through the root alone, not also through Django's
    default console handler (which printed each task's line twice in DEBUG)."""
    django_logger = logging.getLogger("django")
    assert django_logger.handlers == [] and django_logger.propagate
    root = logging.getLogger()
    seen = []

    class Count(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    counter = Count()
    root.addHandler(counter)
    try:
        logging.getLogger("django.tasks").warning("Task t1 enqueued")
    finally:
        root.removeHandler(counter)
    assert seen == ["Task t1 enqueued"]
    # Nothing besides the root's own handlers printed it.
    handlers = [h for name in ("django", "django.tasks") for h in logging.getLogger(name).handlers]
    assert handlers == []


def test_the_seed_puts_the_documents_drawing_aside_and_restores_the_backend(db):
    assert not isinstance(keep_report_pdf.get_backend(), DummyBackend)
    with tasks_put_aside():
        assert isinstance(keep_report_pdf.get_backend(), DummyBackend)
        result = keep_report_pdf.enqueue(10**9)  # no such report: it would fail if it ran
        assert result.status == "READY"
    assert not isinstance(keep_report_pdf.get_backend(), DummyBackend)


def test_the_seeds_address_follows_the_port_make_run_serves_on(settings, monkeypatch):
    settings.PUBLIC_BASE_URL = ""
    monkeypatch.setenv("PORT", "8123")
    assert public_base_url() == "http://127.0.0.1:8123"
    monkeypatch.delenv("PORT")
    assert public_base_url() == "http://127.0.0.1:8000"
    settings.PUBLIC_BASE_URL = "https://pounds.example.gov.in"
    assert public_base_url() == "https://pounds.example.gov.in"
