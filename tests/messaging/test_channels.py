"""The channels against fake gateways that speak NIC's and C-DAC's protocols (ADR 0077): the real
parameter names, Unicode as each takes it, a refusal for a wrong template id or text, and
retries through failures, dropped connections and slow answers; held without a DLT id; one
message per key; opting out and WhatsApp's consent honoured."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from messaging import channels, services
from messaging.models import Event, Message, Phone, Template

from .conftest import configure, register_all
from .fakegateways import FakeNic

Status = Message.Status
NUMBER = "9876543210"


def code(language="en", key="r1", number=NUMBER):
    return services.send_one_time_code(phone=number, code="482913", key=key, language=language)


def intake(language="en", key="k1", **kw):
    values = {"pound": "Nigohan", "entry": "LKO/2026/1", "amount": "520.00", "phone": "0522-1"}
    return services.queue(
        event=Event.INTAKE,
        recipient=NUMBER,
        variables=values,
        key=key,
        language=language,
        **kw,
    )


def later(minutes):
    """Bring every queued message's next try to now, as if `minutes` had passed."""
    Message.objects.filter(status=Status.QUEUED).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )


@pytest.mark.parametrize("gateway", ["nic", "mobileseva"])
@pytest.mark.parametrize("language", ["en", "hi"])
def test_a_message_goes_through_each_gateway_in_each_language(request, gateway, language):
    fake = request.getfixturevalue(gateway)
    message = intake(language)
    services.send_due()
    message.refresh_from_db()
    assert message.status == Status.SENT and message.attempts == 1
    (accepted,) = fake.accepted
    assert accepted["text"] == message.text  # the Unicode came through whole
    assert accepted["id"] == message.provider_id
    assert (
        accepted["template"]
        == Template.objects.get(event="intake", language=language).dlt_template_id
    )
    assert accepted["to"].endswith(NUMBER)


@pytest.mark.parametrize("gateway", ["nic", "mobileseva"])
def test_the_gateway_refuses_a_wrong_template_id_and_it_is_not_tried_again(request, gateway):
    fake = request.getfixturevalue(gateway)
    message = intake()
    Message.objects.filter(pk=message.pk).update(dlt_template_id="1107999")
    services.send_due()
    message.refresh_from_db()
    assert (message.status, message.attempts, fake.accepted) == (Status.FAILED, 1, [])
    assert "template" in message.reason


@pytest.mark.parametrize("gateway", ["nic", "mobileseva"])
def test_the_gateway_refuses_a_text_that_does_not_match(request, gateway):
    fake = request.getfixturevalue(gateway)
    message = intake("hi")
    Message.objects.filter(pk=message.pk).update(text=message.text + " अभी")
    services.send_due()
    message.refresh_from_db()
    assert message.status == Status.FAILED and "match" in message.reason
    assert fake.accepted == []


@pytest.mark.parametrize("gateway", ["nic", "mobileseva"])
def test_an_outage_is_tried_again_with_backoff_until_it_passes(request, gateway):
    fake = request.getfixturevalue(gateway)
    fake.fail, fake.drop = 2, 1
    message = intake("hi")
    waits = []
    for _ in range(3):
        before = timezone.now()
        services.send_due()
        message.refresh_from_db()
        assert message.status == Status.QUEUED and message.reason
        waits.append(message.next_attempt_at - before)
        later(waits[-1])
    services.send_due()
    message.refresh_from_db()
    assert (message.status, message.attempts, len(fake.accepted)) == (Status.SENT, 4, 1)
    assert [round(w.total_seconds() / 60) for w in waits] == [1, 4, 16]
    services.send_due()  # nothing more is due
    assert fake.requests == 4


def test_a_slow_gateway_is_given_up_on_at_the_timeout_and_tried_again(nic, settings):
    settings.MESSAGING_TIMEOUT_SECONDS = 0.3
    nic.delay = 0.8
    message = intake()
    services.send_due()
    message.refresh_from_db()
    assert message.status == Status.QUEUED and "timed out" in message.reason
    nic.delay = 0
    later(1)
    services.send_due()
    message.refresh_from_db()
    assert message.status == Status.SENT


def test_after_the_last_try_the_message_fails(nic, settings):
    settings.MESSAGING_MAX_ATTEMPTS = 2
    nic.fail = 5
    message = intake()
    services.send_due()
    later(1)
    services.send_due()
    message.refresh_from_db()
    assert (message.status, message.attempts) == (Status.FAILED, 2)


def test_the_delivery_report_marks_it_delivered(nic):
    message = intake()
    services.send_due()
    message.refresh_from_db()
    assert services.report_delivery(provider_id=message.provider_id, delivered=True) == 1
    message.refresh_from_db()
    assert message.status == Status.DELIVERED and message.delivered_at


def test_a_template_without_a_dlt_id_is_held_and_goes_once_registered(settings):
    settings.MESSAGING_CHANNEL = "nic"
    message = intake()
    assert message.status == Status.HELD and "DLT" in message.reason
    with FakeNic(register_all()) as fake:
        configure(settings, "nic", fake.url)
        services.send_due()
        message.refresh_from_db()
        assert message.status == Status.SENT and len(fake.accepted) == 1


def test_one_message_per_key_even_when_the_cause_is_replayed(nic):
    first = intake(key="intake:1:0:9876543210")
    again = intake(key="intake:1:0:9876543210")
    assert first.pk == again.pk and Message.objects.count() == 1
    services.send_due()
    services.send_due()
    assert len(nic.accepted) == 1


def test_the_console_channel_delivers_at_once(console_outbox):
    message = intake()
    services.send_due()
    message.refresh_from_db()
    assert message.status == Status.DELIVERED
    assert console_outbox[0]["text"] == message.text


def test_opting_out_is_honoured_for_what_waits_and_what_comes(nic):
    waiting = intake(key="a")
    services.opt_out(NUMBER)
    later_one = intake(key="b")
    services.send_due()
    for message in (waiting, later_one):
        message.refresh_from_db()
        assert message.status == Status.REFUSED
    assert nic.accepted == []
    # the holder's own request for a code still goes
    otp = code()
    services.send_due()
    otp.refresh_from_db()
    assert otp.status == Status.SENT


def test_a_one_time_code_goes_at_night_and_a_notice_waits(nic, time_machine):
    time_machine.move_to(
        timezone.datetime(2026, 12, 5, 23, 30, tzinfo=timezone.get_current_timezone())
    )
    otp, notice = code("hi"), intake()
    services.send_due()
    otp.refresh_from_db(), notice.refresh_from_db()
    assert otp.status == Status.SENT and notice.status == Status.QUEUED
    assert timezone.localtime(notice.next_attempt_at).hour == 9


def test_mobile_seva_sends_a_code_as_an_otp_message(mobileseva):
    code("hi")
    services.send_due()
    (accepted,) = mobileseva.accepted
    assert "482913" in accepted["text"]
    params = channels.MobileSeva().params(Message.objects.get())
    assert params["smsservicetype"] == "unicodeotpmsg"


def test_whatsapp_refuses_without_the_owners_consent(settings):
    settings.MESSAGING_CHANNEL = "whatsapp"
    settings.MESSAGING_GATEWAY_URL = "http://127.0.0.1:9/"
    message = intake()
    services.send_due()
    message.refresh_from_db()
    assert message.status == Status.FAILED and "consent" in message.reason
    assert not Phone.objects.filter(whatsapp_consent_at__isnull=False).exists()


def test_sending_never_fails_the_work_that_queued_it(settings):
    """A message queued inside a transaction that then rolls back is gone with it."""
    with pytest.raises(RuntimeError), transaction.atomic():
        intake()
        raise RuntimeError
    assert Message.objects.count() == 0


def test_the_commit_hands_the_message_to_the_worker(nic, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        message = intake()
    assert len(callbacks) == 1
    (task,) = DBTaskResult.objects.filter(task_path="messaging.services.deliver_message")
    assert task.args_kwargs["args"] == [str(message.pk)]
    assert services.deliver_message.call(str(message.pk)) == Status.SENT
    assert services.deliver_message.call(str(message.pk)) == "not due"  # run twice: sent once
    assert len(nic.accepted) == 1
