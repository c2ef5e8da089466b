"""A form's single-use key (kernel.idempotency): the row it made is found again, for the same
record and person only."""

import uuid

import pytest
from django.core.exceptions import ValidationError
from django.test import RequestFactory

from impounding.models import ReceiptCancellation
from impounding.services import ask_receipt_cancellation
from kernel.idempotency import made_with_key, replayed_row
from tests.impounding.factories import make_entry, pay

KEY = uuid.UUID("3c9d6e2a-7b41-4f08-8e5d-1a2b3c4d5e6f")


@pytest.fixture
def asked(pound, pound_keeper, tariffs):
    receipt = pay(make_entry(pound=pound, by=pound_keeper), pound_keeper).receipt
    return ask_receipt_cancellation(
        receipt=receipt, by=pound_keeper, reason="Wrong name", idempotency_key=KEY
    )


def test_the_row_of_a_key_is_found_again_marked_replayed(asked, pound_keeper):
    found = made_with_key(ReceiptCancellation, KEY, requested_by_id=pound_keeper.pk)
    assert found == asked and found.replayed
    assert made_with_key(ReceiptCancellation, None) is None
    assert made_with_key(ReceiptCancellation, uuid.uuid4()) is None


def test_a_key_presented_by_another_person_is_refused_not_replayed(asked, dm_clerk):
    with pytest.raises(ValidationError, match="already been used"):
        made_with_key(ReceiptCancellation, KEY, requested_by_id=dm_clerk.pk)


def test_a_view_finds_the_row_its_posted_key_made_for_the_same_person(asked, dm_clerk):
    posted = RequestFactory().post("/", {"idempotency_key": str(KEY)})
    assert replayed_row(posted, ReceiptCancellation, requested_by=asked.requested_by) == asked
    assert replayed_row(posted, ReceiptCancellation, requested_by=dm_clerk) is None
    assert replayed_row(RequestFactory().post("/", {}), ReceiptCancellation) is None
