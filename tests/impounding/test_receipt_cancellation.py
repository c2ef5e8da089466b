"""Receipt cancellation (docs/domain.md decision 11): the keeper asks with the reason, the office
approves; the receipt keeps its number and shows CANCELLED, the payment is reversed, the animals
are back in custody with their dues running on, and the corrected receipt takes the next serial
and names the one it replaces. The books and the chain agree afterwards."""

import uuid
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from accounts.models import SlipPaper, ToDo
from impounding import services
from impounding.documents import receipt_pdf
from impounding.dues import dues
from impounding.models import AnimalState, Receipt, ReceiptCancellation
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Transaction, TransactionKind
from office.deadlines import run
from tests.impounding.factories import cow, make_entry, pay
from tests.readpdf import text as pdf_text

REASON = "Paid for the wrong entry: the owner of P/17 paid for P/18"


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])


@pytest.fixture
def paid(entry, pound_keeper):
    return pay(entry, pound_keeper)


@pytest.fixture
def cancelled(paid, pound_keeper, dm_clerk):
    asked = services.ask_receipt_cancellation(receipt=paid.receipt, by=pound_keeper, reason=REASON)
    services.decide_receipt_cancellation(cancellation=asked, by=dm_clerk, approve=True)
    paid.receipt.refresh_from_db()
    return paid.receipt


def test_a_cancelled_receipt_keeps_its_number_and_says_cancelled(paid, cancelled):
    assert (cancelled.pk, cancelled.serial, cancelled.number) == (
        paid.receipt.pk,
        1,
        paid.receipt.number,
    )
    assert cancelled.cancelled_reason == REASON and cancelled.cancelled_at is not None
    text = pdf_text(receipt_pdf(cancelled))
    assert "CANCELLED" in text and cancelled.number in text


def test_the_verification_page_says_cancelled(client, cancelled):
    response = client.get(cancelled.document.get_absolute_url())

    assert response.status_code == 200
    assert "Cancelled." in response.text and "Valid." not in response.text


def test_cancelling_reverses_the_payment(paid, cancelled):
    payment = Transaction.objects.get(kind=TransactionKind.PAYMENT_S13)
    reversal = Transaction.objects.get(kind=TransactionKind.REVERSAL)

    assert reversal.reverses == payment
    assert sorted(p.amount for p in reversal.postings.all()) == sorted(
        -p.amount for p in payment.postings.all()
    )


def test_the_animals_are_back_in_custody_with_their_dues_running_on(entry, paid, cancelled):
    animals = list(entry.animals.order_by("number"))

    assert {a.state for a in animals} == {AnimalState.IMPOUNDED}
    assert all(a.release_id is None and a.custody_ended_at is None for a in animals)
    later = dues(animals, as_of=timezone.now() + timedelta(days=3))
    assert later.total > paid.amount  # three more days of feeding on top of what was paid


def test_the_event_names_who_asked_and_who_approved(cancelled, pound_keeper, dm_clerk):
    event = Event.objects.get(action="receipt.cancelled")

    assert (event.data["asked_by"], event.data["decided_by"]) == (pound_keeper.pk, dm_clerk.pk)
    assert event.data["receipt"] == cancelled.number
    assert Event.objects.filter(action="receipt.cancellation_asked").count() == 1


def test_the_corrected_receipt_takes_the_next_serial_and_names_the_one_replaced(
    entry, cancelled, pound_keeper
):
    corrected = pay(entry, pound_keeper, replaces=cancelled).receipt

    assert corrected.serial == cancelled.serial + 1
    assert corrected.replaces == cancelled
    text = " ".join(pdf_text(receipt_pdf(corrected)).split())
    assert f"Replaces receipt {cancelled.number}, cancelled." in text
    assert "CANCELLED" not in text.replace(f"{cancelled.number}, cancelled", "")
    assert run_checks() == []  # the cancelled payment reversed, the corrected one posted


def test_a_receipt_standing_is_not_replaced(entry, paid, pound_keeper, pound):
    other = make_entry(pound=pound, by=pound_keeper)

    with pytest.raises(ValidationError, match="Only a cancelled receipt"):
        pay(other, pound_keeper, replaces=paid.receipt)


def test_the_keeper_who_asked_does_not_approve_and_the_police_do_not_ask(
    paid, pound_keeper, police_officer, magistrate
):
    with pytest.raises(PermissionDenied):
        services.ask_receipt_cancellation(receipt=paid.receipt, by=police_officer, reason=REASON)
    asked = services.ask_receipt_cancellation(receipt=paid.receipt, by=pound_keeper, reason=REASON)
    with pytest.raises(PermissionDenied):
        services.decide_receipt_cancellation(cancellation=asked, by=pound_keeper, approve=True)
    with pytest.raises(ValidationError, match="before it already"):
        services.ask_receipt_cancellation(receipt=paid.receipt, by=pound_keeper, reason=REASON)

    services.decide_receipt_cancellation(cancellation=asked, by=magistrate, approve=False)

    paid.receipt.refresh_from_db()
    assert paid.receipt.cancelled_at is None
    assert ReceiptCancellation.objects.get().status == ReceiptCancellation.Status.REJECTED


def test_a_reason_is_required(paid, pound_keeper):
    with pytest.raises(ValidationError, match="issued in error"):
        services.ask_receipt_cancellation(receipt=paid.receipt, by=pound_keeper, reason="  ")


def test_the_keeper_asks_and_the_office_approves_through_the_pages(
    client, paid, pound_keeper, dm_clerk
):
    receipt = paid.receipt
    client.force_login(pound_keeper)
    url = reverse("impounding:receipt_cancel", args=[receipt.pk])
    assert client.get(url).status_code == 200
    response = client.post(url, {"reason": REASON, "idempotency_key": str(uuid.uuid4())})
    assert response.status_code == 302
    asked = ReceiptCancellation.objects.get()

    client.force_login(dm_clerk)
    decide = reverse("impounding:receipt_cancellation_decide", args=[asked.pk])
    assert client.get(decide).status_code == 200
    assert client.post(decide, {"approve": "true"}).status_code == 302

    receipt.refresh_from_db()
    assert receipt.cancelled_at is not None
    assert Receipt.objects.count() == 1


def test_an_asked_cancellation_is_the_offices_to_do_until_decided(paid, pound_keeper, dm_clerk):
    asked = services.ask_receipt_cancellation(receipt=paid.receipt, by=pound_keeper, reason=REASON)
    run()
    todo = ToDo.objects.get(key=f"receipt_cancel:{asked.pk}")
    assert paid.receipt.number in todo.title and todo.role == "dm_clerk"

    services.decide_receipt_cancellation(cancellation=asked, by=dm_clerk, approve=False)
    run()

    todo.refresh_from_db()
    assert todo.done_at is not None


def _corrected_through_the_pages(client, entry, cancelled):
    """From the entry page's link beside the cancelled receipt, the release again on payment."""
    page = client.get(entry.get_absolute_url()).text
    link = reverse("impounding:release", args=[entry.pk]) + f"?replaces={cancelled.pk}"
    assert link in page
    form = client.get(link).context["form"]
    assert form["replaces"].value() == str(cancelled.pk)
    data = {
        "animals": [a.pk for a in entry.animals.all()],
        "claimant_name": "Shyam Lal",
        "claimant_address": "Samesi",
        "claimant_role": "owner",
        "payment_mode": "cash",
        "acknowledgement": "register_page",
        "register_page": "14",
        "replaces": str(cancelled.pk),
    }
    check = client.post(link, data)
    assert f"Replaces receipt No. {cancelled.number}" in check.text
    confirm = check.context["confirm"]
    data |= {
        "idempotency_key": str(confirm.initial["idempotency_key"]),
        "amount": str(confirm.initial["amount"]),
        "confirm": "1",
    }
    assert client.post(link, data).status_code == 302
    return Receipt.objects.get(replaces=cancelled)


def test_the_keeper_issues_the_corrected_receipt_from_the_cancelled_one(
    client, entry, cancelled, pound_keeper
):
    client.force_login(pound_keeper)
    corrected = _corrected_through_the_pages(client, entry, cancelled)

    assert corrected.serial == cancelled.serial + 1
    assert {a.state for a in entry.animals.all()} == {AnimalState.RELEASED_PAID}
    text = " ".join(pdf_text(receipt_pdf(corrected)).split())
    assert f"Replaces receipt {cancelled.number}, cancelled." in text
    # Each verification page names the other, by number.
    client.logout()
    new_page = client.get(corrected.document.get_absolute_url()).text
    assert f"Replaces receipt No. {cancelled.number}" in new_page and "Valid." in new_page
    old_page = client.get(cancelled.document.get_absolute_url()).text
    assert f"Replaced by No. {corrected.number}" in old_page and "Cancelled." in old_page
    # The entry page names the replacement beside the cancelled receipt, and offers no second.
    client.force_login(pound_keeper)
    page = client.get(entry.get_absolute_url()).text
    assert f"Replaced by No. {corrected.number}" in page
    assert f"?replaces={cancelled.pk}" not in page
    assert run_checks() == []


def test_the_corrected_receipt_on_the_roll_names_the_one_replaced(entry, cancelled, pound_keeper):
    corrected = pay(entry, pound_keeper, replaces=cancelled).receipt
    text = " ".join(pdf_text(receipt_pdf(corrected, paper=SlipPaper.ROLL_80)).split())
    assert f"Replaces receipt {cancelled.number}, cancelled." in text


def test_a_payment_of_its_own_after_a_cancellation_names_nothing(
    client, entry, cancelled, pound_keeper
):
    client.force_login(pound_keeper)
    url = reverse("impounding:release", args=[entry.pk])
    form = client.get(url).context["form"]
    assert form["replaces"].value() in (None, "")
    assert "None: this is a payment of its own" in client.get(url).text
