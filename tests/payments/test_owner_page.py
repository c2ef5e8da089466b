"""The owner's pay page (docs/decisions/0085): a short unguessable link per entry, the dues now
and their UPI code, "Pay online" with one payment per attempt, a payment being confirmed never
shown as unpaid, and a second payment refused while one is open."""

import uuid

import pytest
from django.test import Client
from django.urls import reverse

from impounding.dues import dues
from impounding.models import Animal
from kernel.formatting import inr
from messaging.dlt import VAR_MAX
from payments import owner
from payments.models import PayLink, Payment, PaymentState
from tests.impounding.factories import cow, make_entry
from tests.payments.helpers import deliver


def _page(entry):
    return reverse("pay", args=[owner.pay_link(entry).token])


def _paid_online(client, entry, fake_gateway):
    page = client.get(_page(entry))
    key = page.context["form"]["idempotency_key"].value()
    answer = client.post(_page(entry), {"idempotency_key": key})
    payment = Payment.objects.get(impoundment=entry)
    return answer, payment, key


def test_the_link_fits_the_messages_two_variables_and_is_the_same_each_time(entry):
    link = owner.short_link(entry)
    assert len(link) <= 2 * VAR_MAX
    assert link == owner.short_link(entry) and link.startswith("http://127.0.0.1:8000/p/")
    assert Client().get(link.removeprefix("http://127.0.0.1:8000")).status_code == 200
    assert PayLink.objects.filter(impoundment=entry).count() == 1


def test_the_page_shows_the_dues_now_and_the_upi_code_without_signing_in(entry, pound, settings):
    pound.upi_vpa, pound.upi_payee_name = "keeper.lko@sbi", "Pound Keeper Lucknow"
    pound.save()
    answer = Client().get(_page(entry))
    assert answer.status_code == 200
    total = dues(Animal.objects.claimable_in(entry)).total
    text = answer.content.decode()
    assert inr(total) in text and entry.register_number in text
    assert f"am={total:.2f}" in text and "upi://pay?" in text
    assert "Shyam Lal" not in text  # the owner's name, like anyone's, is not on a public page


def test_an_unknown_token_is_a_404_and_the_rate_limit_holds(entry, settings):
    client = Client()
    assert client.get(reverse("pay", args=["A" * 8])).status_code == 404
    settings.VERIFY_RATE_PER_MINUTE = 2
    codes = [client.get(_page(entry)).status_code for _ in range(3)]
    assert codes[-1] == 429


def test_pay_online_makes_one_payment_per_attempt_and_shows_it_being_confirmed(entry, fake_gateway):
    client = Client()
    answer, payment, key = _paid_online(client, entry, fake_gateway)
    assert answer.status_code == 200 and fake_gateway.url in answer.content.decode()
    assert payment.state == PaymentState.PENDING and payment.idempotency_key == uuid.UUID(key)
    assert payment.events.filter(source="owner", by__isnull=True).count() == 2
    # The same form again (a double click): the same payment, shown, not a second order.
    again = client.post(_page(entry), {"idempotency_key": key})
    assert again.status_code == 302 and str(payment.token) in again["Location"]
    assert Payment.objects.filter(impoundment=entry).count() == 1
    shown = client.get(again["Location"]).content.decode()
    assert "Payment being confirmed" in shown
    page = client.get(_page(entry)).content.decode()
    assert "Payment being confirmed" in page and 'data-testid="pay-online"' not in page
    # A new attempt while it is open is refused, plainly.
    refused = client.post(_page(entry), {"idempotency_key": str(uuid.uuid4())})
    assert "already in progress" in refused.content.decode()
    assert Payment.objects.filter(impoundment=entry).count() == 1


def test_the_gateway_confirms_and_the_page_says_paid(entry, fake_gateway):
    client = Client()
    answer, payment, _key = _paid_online(client, entry, fake_gateway)
    fake_gateway.take_order(answer.context["order"])
    fake_gateway.pay(payment.reference)
    deliver(Client(), fake_gateway.callback(payment.reference))
    page = client.get(_page(entry)).content.decode()
    assert "Paid online" in page and payment.reference in page


@pytest.mark.parametrize("language", ["hi", "mr", "ta"])
def test_the_page_speaks_each_shipped_language(entry, language):
    client = Client(headers={"accept-language": language})
    client.cookies["django_language"] = language
    text = client.get(_page(entry)).content.decode()
    assert "Pay the pound's dues" not in text


def test_the_short_link_names_no_other_entry(entry, pound, pound_keeper, tariffs):
    other = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    assert owner.pay_link(other).token != owner.pay_link(entry).token
    text = Client().get(_page(other)).content.decode()
    assert entry.register_number not in text
