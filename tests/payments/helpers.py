import uuid

from django.urls import reverse

from impounding import services as impounding
from impounding.dues import dues
from impounding.models import Animal
from payments import services

CLAIM = dict(
    claimant_name="Shyam Lal",
    claimant_address="Samesi",
    claimant_role="owner",
    owner_name="Shyam Lal",
    payment_mode="cash",
    acknowledgement="register_page",
    register_page="12",
)


def start(entry, by):
    return services.start_payment(
        entry=entry,
        by=by,
        return_url=lambda p: f"http://testserver{reverse('payments:return', args=[p.token])}",
        callback_url=lambda p: f"http://testserver{reverse('payments:callback', args=[p.gateway])}",
    )


def release_on(payment, by, key=None):
    """The keeper's s.13 release of the animals the payment paid for, taking the payment, for
    the dues now (more than the payment when a day has accrued since: the till tops it up)."""
    animals = Animal.objects.claimable_in(payment.impoundment).filter(pk__in=payment.animal_ids)
    owed = dues(animals).total if animals else payment.amount
    return impounding.release_on_payment(
        entry=payment.impoundment,
        by=by,
        animal_ids=payment.animal_ids,
        idempotency_key=key or uuid.uuid4(),
        amount_tendered=owed,
        payment=payment,
        **CLAIM,
    )


def deliver(client, form):
    return client.post(reverse("payments:callback", args=["sbiepay"]), form)
