"""What the entry's page shows of the messages to its owner (ADR 0077): to whom (the phone
masked), what, when, and whether it arrived. One query, whatever the number of messages."""

from .models import Message


def masked(recipient):
    """All but the last four characters hidden: ******3210."""
    recipient = str(recipient)
    return "*" * max(len(recipient) - 4, 0) + recipient[-4:]


def messages_of(entry):
    messages = list(
        Message.objects.filter(impoundment=entry)
        .order_by("created_at", "pk")
        .only(
            "event",
            "recipient",
            "language",
            "status",
            "reason",
            "segments",
            "created_at",
            "sent_at",
            "delivered_at",
            "reported_at",
        )
    )
    for message in messages:
        message.masked_recipient = masked(message.recipient)
    return messages
