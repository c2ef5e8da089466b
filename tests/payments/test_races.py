"""Two screens starting a payment of the same dues at the same moment: one payment, one refusal.
Needs PostgreSQL's row locks; each thread has its own connection and commits for real."""

import pytest
from django.core.exceptions import ValidationError

from impounding.models import Impoundment
from payments.models import Payment
from tests.impounding.test_concurrency import race
from tests.payments.helpers import start

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_payments_of_the_same_dues_started_together_make_one(entry, pound_keeper, fake_gateway):
    def call():
        return start(Impoundment.objects.get(pk=entry.pk), pound_keeper)

    results, errors = race(call, call)
    assert sum(r is not None for r in results) == 1
    assert sum(isinstance(e, ValidationError) for e in errors) == 1
    assert Payment.objects.filter(impoundment=entry).count() == 1
