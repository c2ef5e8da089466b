"""The gateways' delivery reports (ADR 0084): each fake gateway pushes its report to the live
server in its own parameter names; the token is the check (403 without it, 429 past the
refusals); a report repeated, or a late "delivered" after "failed", changes nothing; the entry's
page shows what arrived and what did not."""

from datetime import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from messaging import reports, services
from messaging.models import Event, Message
from tests.impounding.factories import make_entry

from .fakegateways import NIC_DLR, SEVA_DLR

Status = Message.Status
TOKEN = "dlr-secret-4f9a"
NUMBER = "9876543210"


@pytest.fixture(autouse=True)
def token(settings):
    settings.MESSAGING_DLR_TOKEN = TOKEN


def sent(key="k1", impoundment=None):
    values = {"pound": "Nigohan", "entry": "LKO/2026/1", "amount": "520.00", "phone": "0522-1"}
    message = services.queue(
        event=Event.INTAKE,
        recipient=NUMBER,
        variables=values,
        key=key,
        language="en",
        impoundment=impoundment,
    )
    Message.objects.filter(pk=message.pk).update(next_attempt_at=timezone.now())
    services.send_due()
    message.refresh_from_db()
    assert message.status == Status.SENT
    return message


def dlr_url(base, provider, token=TOKEN):
    return f"{base}{reverse('messaging:dlr', args=[provider])}?token={token}"


def test_each_providers_names_are_the_ones_its_gateway_pushes():
    """One mapping per provider, the names the fake gateways speak (a State confirms them)."""
    for provider, names in (("nic", NIC_DLR), ("mobileseva", SEVA_DLR)):
        mapping = reports.MAPPINGS[provider]
        assert (mapping.id, mapping.status, mapping.at) == names


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("gateway", ["nic", "mobileseva"])
def test_each_gateway_reports_a_delivery_to_the_live_server(request, live_server, gateway):
    fake = request.getfixturevalue(gateway)
    message = sent()
    status = fake.report(
        dlr_url(live_server.url, gateway),
        message.provider_id,
        "DELIVRD",
        at=("2026-12-05 14:03:09"),
    )
    assert status == 200
    message.refresh_from_db()
    assert message.status == Status.DELIVERED and message.report_status == "DELIVRD"
    handset = datetime(2026, 12, 5, 14, 3, 9, tzinfo=timezone.get_fixed_timezone(330))
    assert message.delivered_at == handset
    assert message.reported_at is not None


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("gateway", ["nic", "mobileseva"])
def test_a_repeated_or_late_report_changes_nothing(request, live_server, gateway):
    fake = request.getfixturevalue(gateway)
    message = sent()
    url = dlr_url(live_server.url, gateway)
    assert fake.report(url, message.provider_id, "ENROUTE") == 200  # interim: nothing yet
    message.refresh_from_db()
    assert message.status == Status.SENT and message.reported_at is None
    assert fake.report(url, message.provider_id, "EXPIRED") == 200
    message.refresh_from_db()
    first = (message.status, message.reason, message.reported_at, message.report_status)
    assert first[0] == Status.FAILED and "EXPIRED" in message.reason
    for status in ("EXPIRED", "DELIVRD", "UNDELIV"):  # the same again; a late "delivered"
        assert fake.report(url, message.provider_id, status) == 200
    message.refresh_from_db()
    assert (message.status, message.reason, message.reported_at, message.report_status) == first
    assert message.delivered_at is None


@pytest.mark.django_db(transaction=True)
def test_a_delivered_message_stays_delivered(live_server, mobileseva):
    message = sent()
    url = dlr_url(live_server.url, "mobileseva")
    for status in ("DELIVRD", "DELIVRD", "UNDELIV", "REJECTD"):
        assert mobileseva.report(url, message.provider_id, status) == 200
    message.refresh_from_db()
    assert message.status == Status.DELIVERED and message.report_status == "DELIVRD"


@pytest.mark.django_db(transaction=True)
def test_a_report_without_the_token_is_refused(live_server, nic, settings):
    message = sent()
    base = live_server.url
    assert nic.report(dlr_url(base, "nic", token=""), message.provider_id, "DELIVRD") == 403
    assert nic.report(dlr_url(base, "nic", token="guess"), message.provider_id, "DELIVRD") == 403
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    url = base + reverse("messaging:dlr", args=["nic"])
    message.refresh_from_db()
    assert message.status == Status.SENT
    assert nic.report(url, message.provider_id, "DELIVRD", headers=bearer) == 200
    message.refresh_from_db()
    assert message.status == Status.DELIVERED


def test_no_token_configured_refuses_every_report(client, settings):
    settings.MESSAGING_DLR_TOKEN = ""
    url = reverse("messaging:dlr", args=["nic"])
    assert client.get(url, {"token": "", "requestid": "1", "status": "DELIVRD"}).status_code == 403


def test_refusals_from_one_address_are_throttled(client, settings):
    settings.MESSAGING_DLR_REFUSALS_PER_MINUTE = 3
    url = reverse("messaging:dlr", args=["mobileseva"])
    codes = [
        client.post(f"{url}?token=x", {"msgid": "1", "status": "DELIVRD"}).status_code
        for _ in range(5)
    ]
    assert codes == [403, 403, 403, 429, 429]
    # the gateway at another address is not held up
    ok = client.post(
        f"{url}?token={TOKEN}", {"msgid": "1", "status": "DELIVRD"}, REMOTE_ADDR="10.1.2.3"
    )
    assert ok.status_code == 200


def test_a_report_is_read_in_its_providers_names_only(client, nic):
    message = sent()
    url = reverse("messaging:dlr", args=["nic"])
    # Mobile Seva's names sent to NIC's route name nothing NIC's report would
    answer = client.get(url, {"token": TOKEN, "msgid": message.provider_id, "status": "DELIVRD"})
    assert answer.status_code == 400
    assert client.get(reverse("messaging:dlr", args=["other"]), {"token": TOKEN}).status_code == 404
    # another provider's id is not this provider's message
    wrong = client.post(
        reverse("messaging:dlr", args=["mobileseva"]) + f"?token={TOKEN}",
        {"msgid": message.provider_id, "status": "DELIVRD"},
    )
    assert wrong.status_code == 200
    message.refresh_from_db()
    assert message.status == Status.SENT


def test_a_report_never_needs_the_csrf_token_but_always_the_secret(nic):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    message = sent()
    url = reverse("messaging:dlr", args=["nic"]) + f"?token={TOKEN}"
    answer = client.post(url, {"requestid": message.provider_id, "status": "UNDELIV"})
    assert answer.status_code == 200
    message.refresh_from_db()
    assert message.status == Status.FAILED


def test_the_entry_page_shows_delivered_and_not_delivered(
    client, nic, pound, pound_keeper, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper)
    arrived, lost = sent("a", impoundment=entry), sent("b", impoundment=entry)
    url = reverse("messaging:dlr", args=["nic"])
    client.get(url, {"token": TOKEN, "requestid": arrived.provider_id, "status": "DELIVRD"})
    client.get(url, {"token": TOKEN, "requestid": lost.provider_id, "status": "UNDELIV"})
    client.force_login(pound_keeper)
    page = client.get(reverse("impounding:entry", args=[entry.pk])).content.decode()
    assert 'data-message-status="delivered"' in page and "Delivered" in page
    assert 'data-message-status="failed"' in page and "Not delivered" in page
    assert "reported" in page and "UNDELIV" in page
