"""The owner's messages that name the dues carry the owner's pay page (ADR 0085), whole, in
each shipped language."""

import pytest

from messaging import notices
from messaging.models import Message
from payments import owner
from tests.impounding.factories import cow, make_entry


@pytest.mark.parametrize("language", ["en", "hi", "mr", "ta"])
def test_the_intake_message_carries_the_pay_link(pound, pound_keeper, tariffs, language):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    notices.record_contact(
        impoundment=entry, number="9876543210", by=pound_keeper, language=language
    )
    message = Message.objects.get(impoundment=entry)
    assert owner.short_link(entry) in message.text
