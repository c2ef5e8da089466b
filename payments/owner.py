"""The owner's pay page (docs/decisions/0085): one public page per entry, `/p/<token>`, that the
owner's message and slip name. It shows the pound, the entry's animals (no one's personal
data), the dues now, the UPI QR code for them, and where a payment through the gateway stands.

The token is random and stored (as the /verify/ codes are), eight characters, so that the link
fits two 30-character SMS variables; guessing one is held back by the public pages' rate limit.
"""

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.urls import reverse

from impounding.dues import Statement, dues
from impounding.models import Animal
from impounding.tariffs import TariffMissing
from impounding.upi import DuesQr, dues_qr
from kernel.documents import public_url

from .models import IN_PROGRESS, PayLink, Payment, PaymentState


def pay_link(entry):
    """The entry's PayLink, made on first use (two at once make one)."""
    link = PayLink.objects.filter(impoundment=entry).first()
    if link is not None:
        return link
    try:
        with transaction.atomic():
            return PayLink.objects.create(impoundment=entry)
    except IntegrityError:
        return PayLink.objects.get(impoundment=entry)


def short_link(entry):
    """The pay page's address as an SMS carries it, `https://pound.example.in/p/Ab3_x9Qz`: two
    30-character variables hold it whole for any reasonable PUBLIC_BASE_URL."""
    return public_url(reverse("pay", args=[pay_link(entry).token]))


@dataclass
class PayPage:
    entry: object
    animals: list
    statement: Statement | None
    qr: DuesQr | None
    payment: Payment | None  # the latest payment through the gateway, if any

    @property
    def being_confirmed(self):
        return self.payment is not None and self.payment.state in IN_PROGRESS

    @property
    def paid(self):
        return self.payment is not None and self.payment.state == PaymentState.SUCCEEDED

    @property
    def may_pay_online(self):
        open_payment = self.being_confirmed or self.paid
        return bool(self.statement and self.statement.total > 0 and not open_payment)


def page(entry):
    """What the pay page shows of `entry`, in a fixed number of queries."""
    animals = list(Animal.objects.claimable_in(entry))
    statement = None
    if animals:
        try:
            statement = dues(animals)
        except TariffMissing:
            statement = None  # the pound tells the amount; the page says so
    payment = Payment.objects.filter(impoundment=entry).order_by("-created_at", "-pk").first()
    return PayPage(
        entry=entry,
        animals=animals,
        statement=statement,
        qr=dues_qr(entry, statement) if statement else None,
        payment=payment,
    )
