"""A delivery report that reaches us before the message's provider id is saved (ADR 0084
addendum, "Early reports"): kept, one row per provider and id, applied once when the send saves
the id, by the same transitions; one never matched is deleted by the retention run."""

import threading
import time
from datetime import datetime, timedelta

import pytest
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone

from accounts.scoping import system_actor
from messaging import services
from messaging.models import EarlyReport, Event, Message
from office.retention import apply_retention

Status = Message.Status
TOKEN = "dlr-secret-4f9a"
FIRST_ID = "1001"  # the fake NIC's first Request ID
HANDSET = datetime(2026, 12, 5, 14, 3, 9, tzinfo=timezone.get_fixed_timezone(330))


@pytest.fixture(autouse=True)
def token(settings):
    settings.MESSAGING_DLR_TOKEN = TOKEN


def report(client, provider_id, status, provider="nic"):
    names = {"nic": ("requestid", "donetime"), "mobileseva": ("msgid", "deliverytime")}[provider]
    params = {"token": TOKEN, names[0]: provider_id, "status": status}
    params[names[1]] = "2026-12-05 14:03:09"
    answer = client.get(reverse("messaging:dlr", args=[provider]), params)
    assert answer.status_code == 200
    return answer


def send(key="k1"):
    values = {"pound": "Nigohan", "entry": "LKO/2026/1", "amount": "520.00", "phone": "0522-1"}
    message = services.queue(
        event=Event.INTAKE, recipient="9876543210", variables=values, key=key, language="en"
    )
    Message.objects.filter(pk=message.pk).update(next_attempt_at=timezone.now())
    services.send_due()
    message.refresh_from_db()
    return message


def test_an_early_report_is_kept_then_applied_once_when_the_send_saves_the_id(client, nic):
    report(client, FIRST_ID, "DELIVRD")
    early = EarlyReport.objects.get()
    assert (early.provider, early.provider_id, early.delivered) == ("nic", FIRST_ID, True)
    assert Message.objects.count() == 0

    message = send()
    assert message.provider_id == FIRST_ID
    assert message.status == Status.DELIVERED and message.report_status == "DELIVRD"
    assert message.delivered_at == HANDSET and message.reported_at == early.received_at
    assert not EarlyReport.objects.exists()  # applied, and gone with the save

    # Applied once: the same report again, or a late "undelivered", changes nothing and keeps
    # nothing (the id is saved now).
    report(client, FIRST_ID, "DELIVRD")
    report(client, FIRST_ID, "UNDELIV")
    message.refresh_from_db()
    assert message.status == Status.DELIVERED and message.report_status == "DELIVRD"
    assert not EarlyReport.objects.exists()


def test_an_early_failure_is_applied_as_a_failure(client, mobileseva):
    report(client, "1001upgovt-pound", "EXPIRED", provider="mobileseva")
    message = send()
    assert message.status == Status.FAILED and "EXPIRED" in message.reason
    assert message.delivered_at is None and not EarlyReport.objects.exists()


def test_a_duplicate_early_report_is_one_row_the_first_kept(client):
    for status in ("UNDELIV", "UNDELIV", "DELIVRD"):
        report(client, "77", status)
    early = EarlyReport.objects.get()
    assert (early.delivered, early.status) == (False, "UNDELIV")
    report(client, "77", "DELIVRD", provider="mobileseva")  # another provider's id 77
    assert EarlyReport.objects.count() == 2


def test_an_interim_report_is_not_kept(client):
    report(client, "78", "ENROUTE")
    assert not EarlyReport.objects.exists()


def test_a_report_for_a_message_already_reported_is_not_kept(client, nic):
    message = send()
    report(client, message.provider_id, "DELIVRD")
    report(client, message.provider_id, "UNDELIV")
    assert not EarlyReport.objects.exists()


def test_a_report_never_matched_is_pruned_by_the_retention_run(client, settings):
    settings.MESSAGING_EARLY_REPORT_DAYS = 7
    report(client, "404", "DELIVRD")
    received = EarlyReport.objects.get().received_at
    assert services.prune_early_reports(received + timedelta(days=6)) == 0
    assert EarlyReport.objects.count() == 1
    done = apply_retention(by=system_actor(), now=received + timedelta(days=7, minutes=1))
    assert done["early_delivery_reports"] == 1
    assert not EarlyReport.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_report_that_comes_while_the_id_is_being_saved_waits_and_applies(nic):
    """The sender has saved the id and found no early report, but not yet committed: the report
    waits for the commit, then finds the message, instead of being kept where nothing looks."""
    values = {"pound": "Nigohan", "entry": "LKO/2026/1", "amount": "520.00", "phone": "0522-1"}
    message = services.queue(
        event=Event.INTAKE, recipient="9876543210", variables=values, key="k9", language="en"
    )
    assert message.channel == "nic"
    saved = threading.Event()

    def save():
        try:
            with transaction.atomic():
                Message.objects.filter(pk=message.pk).update(status=Status.SENT, provider_id="555")
                message.status, message.provider_id = Status.SENT, "555"
                assert services._apply_early_report(message) == 0  # none yet
                saved.set()
                time.sleep(1)  # the report comes now, before the commit
        finally:
            connection.close()

    sender = threading.Thread(target=save)
    sender.start()
    assert saved.wait(10)
    moved = services.report_delivery(
        provider_id="555", delivered=True, channel="nic", status="DELIVRD"
    )
    sender.join()
    assert moved == 1 and not EarlyReport.objects.exists()
    message.refresh_from_db()
    assert message.status == Status.DELIVERED
