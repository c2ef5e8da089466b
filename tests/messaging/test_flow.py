"""An entry from intake to the auction, its owner messaged at each step in English and in Hindi,
each message delivered once through a provider's outage and the retries (issue 25, ADR 0077);
the release and the deposit name their receipt and its /verify/ link."""

from collections import Counter
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from impounding.models import Receipt
from kernel.documents import public_url
from kernel.formatting import indate
from kernel.models import Event as LogEvent
from messaging import notices, services
from messaging.models import Event, Message
from office import services as office
from tests.auctions.factories import conditions, report_and_notice, schedule, unclaimed_entry
from tests.impounding.factories import deposit, make_entry, pay
from tests.office.factories import s14_sale

Status = Message.Status
EN, HI = "9876543210", "9123456780"


@pytest.fixture
def standing_order(district, dm_clerk):
    return conditions(district, by=dm_clerk)


def deliver_everything(gateway, rounds=12):
    """The worker's sweeps, as time passes, until nothing waits."""
    for _ in range(rounds):
        services.send_due()
        waiting = Message.objects.filter(status=Status.QUEUED)
        if not waiting.exists():
            return
        waiting.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    raise AssertionError("messages still waiting")


def owners(entry, keeper):
    notices.record_contact(impoundment=entry, number=EN, by=keeper, language="en")
    notices.record_contact(impoundment=entry, number=f"+91 {HI}", by=keeper, language="hi")


def test_an_entry_from_intake_to_auction_messages_its_owner_once_at_each_step(
    nic, pound, pound_keeper, police_officer, standing_order, tariffs
):
    nic.fail, nic.drop = 3, 2  # the provider is down when the first messages go
    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=20)
    owners(entry, pound_keeper)
    deliver_everything(nic)
    report_and_notice(entry, pound_keeper, police_officer, sent_days_ago=11, posted_days_ago=9)
    nic.fail = 2
    deliver_everything(nic)
    tomorrow = timezone.localtime().replace(hour=11, minute=0) + timedelta(days=1)
    schedule(pound, police_officer, [list(entry.animals.all())], when=tomorrow)
    assert notices.remind_auctions() == 1
    assert notices.remind_auctions() == 1  # the daily job run twice: still one message each
    deliver_everything(nic)

    sent = Counter((m["to"][2:], m["template"]) for m in nic.accepted)
    assert set(sent.values()) == {1}
    by_event = Counter(Message.objects.filter(status=Status.SENT).values_list("event", flat=True))
    steps = [Event.INTAKE, Event.S14_REPORT, Event.NOTICE_POSTED, Event.AUCTION_TOMORROW]
    assert by_event == dict.fromkeys(steps, 2)
    assert Message.objects.exclude(status=Status.SENT).count() == 0
    hindi = [m["text"] for m in nic.accepted if m["to"].endswith(HI)]
    english = [m["text"] for m in nic.accepted if m["to"].endswith(EN)]
    assert all("कांजी हाउस" in text for text in hindi) and len(hindi) == 4
    assert all(pound.name in text and "Rs " in text for text in english) and len(english) == 4
    notice_text = next(t for t in english if "Notice of sale" in t)
    assert standing_order.place[:20] in notice_text
    # a replayed event sends nothing again
    for event in LogEvent.objects.filter(impoundment_id=entry.pk):
        if notices.listener.hears(event):
            notices.listener(event)
    deliver_everything(nic)
    assert len(nic.accepted) == 8


def test_the_release_names_its_receipt_and_the_verify_link(nic, pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    owners(entry, pound_keeper)
    pay(entry, pound_keeper)
    deliver_everything(nic)
    receipt = Receipt.objects.get(pound=pound)
    link = public_url(receipt.document.get_absolute_url())
    released = Message.objects.filter(event=Event.RELEASED)
    assert sorted(m.language for m in released) == ["en", "hi"]
    for message in released:
        assert message.status == Status.SENT
        assert receipt.number in message.text and link in message.text
        assert message.text in nic.texts()


def test_a_deposit_release_tells_the_owner(nic, pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    owners(entry, pound_keeper)
    deposit(entry, pound_keeper)
    deliver_everything(nic)
    events = Counter(Message.objects.values_list("event", flat=True))
    assert events[Event.DEPOSIT] == 2


def test_an_entry_with_no_phone_sends_nothing(nic, pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    pay(entry, pound_keeper)
    assert Message.objects.count() == 0


def test_the_entry_page_shows_what_was_sent_to_whom_and_whether_it_arrived(
    client, nic, pound, pound_keeper, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper)
    owners(entry, pound_keeper)
    deliver_everything(nic)
    english = Message.objects.get(recipient=EN)
    services.report_delivery(provider_id=english.provider_id, delivered=True)
    client.force_login(pound_keeper)
    page = client.get(f"/pound/entries/{entry.pk}/").content.decode()
    assert "Messages to the owner" in page
    assert "******3210" in page and "******6780" in page
    assert EN not in page and HI not in page
    assert "Delivered" in page and "Sent" in page


def test_the_daily_job_reminds_and_sweeps(nic, pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper)
    owners(entry, pound_keeper)
    out = StringIO()
    call_command("send_owner_messages", stdout=out)
    assert "0 entr(y/ies) reminded" in out.getvalue() and "2 message(s) tried" in out.getvalue()
    assert len(nic.accepted) == 2


def test_a_surplus_received_tells_the_owner_to_claim_it_by_its_last_day(
    nic, pound, pound_keeper, police_officer, dm_clerk, standing_order, tariffs
):
    sale = s14_sale(pound, pound_keeper, police_officer)
    entry = sale.lot.animals.get().impoundment
    owners(entry, pound_keeper)
    deposit = office.receive_surplus(
        deposit=sale.surplus_deposit, by=dm_clerk, received_on=timezone.localdate()
    )
    deliver_everything(nic)
    surplus = Message.objects.filter(event=Event.SURPLUS)
    assert sorted(m.language for m in surplus) == ["en", "hi"]
    english = surplus.get(language="en")
    assert "9,500.00" in english.text and indate(deposit.expires_on) in english.text
    assert english.status == Status.SENT


def test_a_fault_in_the_messages_never_stops_the_release(
    nic, pound, pound_keeper, tariffs, monkeypatch
):
    entry = make_entry(pound=pound, by=pound_keeper)
    owners(entry, pound_keeper)

    def broken(*args, **kwargs):
        raise RuntimeError("the template registry is broken")

    monkeypatch.setattr(services, "queue", broken)
    release = pay(entry, pound_keeper)
    assert release.pk and Receipt.objects.filter(pound=pound).count() == 1
    assert not Message.objects.filter(event=Event.RELEASED).exists()


def test_the_keeper_records_the_owners_phone_and_the_intake_message_goes(
    client, nic, pound, pound_keeper, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(pound_keeper)
    url = f"/messages/entries/{entry.pk}/phone/"
    refused = client.post(url, {"phone": "12345", "language": "hi"})
    assert (
        refused.status_code == 200 and "Enter a 10-digit mobile number" in refused.content.decode()
    )
    for _ in range(2):  # sent twice: one contact, one message
        answer = client.post(url, {"phone": "+91 98765 43210", "language": "hi"})
        assert answer.status_code == 302
    deliver_everything(nic)
    (message,) = Message.objects.filter(impoundment=entry)
    assert (message.event, message.language, message.status) == (Event.INTAKE, "hi", Status.SENT)
    assert "******3210" in client.get(url).content.decode()


def test_another_pounds_keeper_cannot_record_a_phone(client, pound, pound_keeper, outsider):
    entry = make_entry(pound=pound, by=pound_keeper)
    client.force_login(outsider)
    assert client.post(f"/messages/entries/{entry.pk}/phone/", {"phone": EN}).status_code == 404
    assert not Message.objects.exists()


def test_an_owners_phone_known_at_intake_gets_the_intake_message_in_the_districts_language(
    pound, pound_keeper, tariffs
):
    entry = make_entry(pound=pound, by=pound_keeper, owner_phone="+91 98765 43210")
    (message,) = Message.objects.filter(impoundment=entry)
    assert message.event == Event.INTAKE and message.recipient == EN
    assert message.language == "hi"  # the central pack's second language
    assert entry.register_number in message.text
    not_a_mobile = make_entry(pound=pound, by=pound_keeper, owner_phone="0522-234")
    assert not Message.objects.filter(impoundment=not_a_mobile).exists()  # kept, not messaged
