"""The owner's opting out from the public page (ADR 0084): the phone proved by a one-time code
(the lost-cattle form's), the messages stopped and started again, honoured by the sender,
throttled like the lost form, in every shipped language, with nothing shown back but the masked
phone."""

import re

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Event, Message, OptOutCode, Phone

Status = Message.Status
NUMBER = "9876543210"


def last_code(outbox):
    services.send_due()
    return re.search(r"\b(\d{6})\b", outbox[-1]["text"]).group(1)


def ask(client, choice="stop", number="98765 43210"):
    return client.post(reverse("optout"), {"phone": number, "choice": choice})


def intake(key):
    values = {"pound": "Nigohan", "entry": "LKO/2026/1", "amount": "520.00", "phone": "0522-1"}
    return services.queue(
        event=Event.INTAKE, recipient=NUMBER, variables=values, key=key, language="en"
    )


@pytest.mark.django_db
def test_an_owner_stops_the_messages_with_the_code_and_starts_them_again(client, console_outbox):
    assert client.get(reverse("optout")).status_code == 200
    answer = ask(client)
    assert answer.status_code == 302 and answer.url == reverse("optout_code")
    page = client.get(reverse("optout_code")).content.decode()
    assert "******3210" in page and NUMBER not in page
    code = last_code(console_outbox)
    assert console_outbox[-1]["to"] == NUMBER
    assert "stop or restart" in console_outbox[-1]["text"]  # its own registered text
    waiting = intake("before")
    answer = client.post(reverse("optout_code"), {"code": code})
    assert answer.url == reverse("optout_done")
    done = client.get(answer.url).content.decode()
    assert "Messages stopped" in done and "******3210" in done and NUMBER not in done
    assert Phone.objects.get(number=NUMBER).opted_out_at is not None
    # the sender honours it: what waited and what comes are not sent
    waiting.refresh_from_db()
    assert waiting.status == Status.REFUSED
    assert intake("after").status == Status.REFUSED

    # and back in
    ask(client, choice="start")
    client.post(reverse("optout_code"), {"code": last_code(console_outbox)})
    done = client.get(reverse("optout_done")).content.decode()
    assert "Messages started again" in done
    assert Phone.objects.get(number=NUMBER).opted_out_at is None
    assert intake("again").status == Status.QUEUED


@pytest.mark.django_db
def test_a_wrong_code_is_refused_beside_the_field_and_three_end_it(client, console_outbox):
    ask(client)
    code = last_code(console_outbox)
    wrong = "000000" if code != "000000" else "111111"
    page = client.post(reverse("optout_code"), {"code": wrong}).content.decode()
    assert "data-error-summary" in page and "That code is not right" in page
    client.post(reverse("optout_code"), {"code": wrong})
    page = client.post(reverse("optout_code"), {"code": wrong}).content.decode()
    assert "Too many wrong codes" in page
    page = client.post(reverse("optout_code"), {"code": code}).content.decode()
    assert "Too many wrong codes" in page  # the right code, too late
    assert Phone.objects.get(number=NUMBER).opted_out_at is None


@pytest.mark.django_db
def test_a_new_code_replaces_the_old_one(client, console_outbox):
    ask(client)
    old = last_code(console_outbox)
    client.post(reverse("optout_code"), {"resend": "1"})
    new = last_code(console_outbox)
    assert OptOutCode.objects.filter(used_at__isnull=True).count() == 1
    if old != new:
        page = client.post(reverse("optout_code"), {"code": old}).content.decode()
        assert "That code is not right" in page
    assert client.post(reverse("optout_code"), {"code": new}).status_code == 302


@pytest.mark.django_db
def test_codes_are_throttled_like_the_lost_form(client, settings, console_outbox):
    settings.LOST_CODES_PER_PHONE_DAY = 2
    assert ask(client).status_code == 302
    assert ask(client).status_code == 302
    answer = ask(client)
    assert answer.status_code == 429
    assert "Too many codes sent to this number today" in answer.content.decode()
    settings.LOST_CODES_PER_ADDRESS_HOUR = 3
    assert ask(client, number="9123456780").status_code == 429  # the address's fourth


@pytest.mark.django_db
def test_a_bad_number_is_refused_beside_the_field(client):
    page = ask(client, number="12345").content.decode()
    assert "data-error-summary" in page and "10-digit mobile number" in page
    assert not Phone.objects.exists()


@pytest.mark.django_db
def test_the_code_page_without_a_request_goes_back_to_the_start(client):
    assert client.get(reverse("optout_code")).url == reverse("optout")
    assert not Message.objects.exists() and not OptOutCode.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "hi", "mr", "ta"])
def test_the_page_is_in_every_shipped_language_and_linked_from_the_footer(client, lang):
    client.cookies["django_language"] = lang
    page = client.get(reverse("optout")).content.decode()
    assert f'lang="{lang}"' in page
    assert f'href="{reverse("optout")}"' in page.split("<footer", 1)[1]
    if lang != "en":
        assert "Stop or restart the pound's messages" not in page


@pytest.mark.django_db
def test_until_the_state_registers_the_codes_text_the_page_says_so(client, settings):
    settings.MESSAGING_CHANNEL = "nic"  # an SMS gateway: the text needs its DLT id
    answer = ask(client)
    assert answer.status_code == 503
    assert "We cannot send codes by SMS yet" in answer.content.decode()
    assert client.get(reverse("optout_code")).url == reverse("optout")
    assert not Message.objects.exists() and not OptOutCode.objects.exists()
