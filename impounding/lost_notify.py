"""The one seam between lost-cattle reports and the messages component (ADR 0079).

Two functions, and nothing else of the reports' code sends anything:

- `send_verification_code(*, report, phone, code, language)`: the one-time code for the form.
- `notify_owner_of_match(*, report, entry, language)`: "your animal may be at pound X", with the
  pound, its address and the dues today.

Each message is recorded on the report as a LostNotice row (the code's own digits are never
stored there: the row says a code was sent) and handed to the messages component (`messaging`,
ADR 0077), which sends it by the State's SMS gateway on its registered DLT template: the code at
once, the match in the day's hours. A template missing or a number that is not a mobile's is
logged and does not stop the report; tests read the rows or replace the functions.
"""

import logging
import uuid

from django.utils import translation
from django.utils.translation import gettext as _

from kernel.formatting import inr, lakh
from messaging import services as messages
from messaging.models import Event

from .models import LostNotice

logger = logging.getLogger(__name__)


def send_verification_code(*, report, phone, code, language):
    with translation.override(language):
        text = _(
            "PoundAdmin: your code for the lost-cattle report is %(code)s. "
            "It is good for 10 minutes."
        )
    logger.info("lost-report code sent", extra={"report": report.reference})
    LostNotice.objects.create(
        report=report,
        kind=LostNotice.Kind.CODE,
        phone=phone,
        language=language,
        text=text % {"code": "******"},
    )
    _hand_over(
        messages.send_one_time_code,
        phone=phone,
        code=code,
        key=f"lost-code:{report.pk}:{uuid.uuid4().hex}",  # each code sent is a message of its own
        language=language,
    )


def _hand_over(send, **kwargs):
    """Hand a message to the messages component; its failure never fails the report."""
    try:
        send(**kwargs)
    except (messages.NoTemplate, ValueError) as error:
        logger.warning("lost-report message not queued: %s", error)


def notify_owner_of_match(*, report, entry, dues, language):
    pound = entry.pound
    with translation.override(language):
        address = (pound.address_hi if language != "en" else "") or pound.address
        where = f"{pound.label}, {address}" if address else pound.label
        text = _(
            "PoundAdmin: an animal that may be yours (report %(reference)s) is at "
            "%(pound)s. Dues today: %(dues)s. Bring proof of ownership."
        ) % {
            "reference": report.reference,
            "pound": where,
            "dues": inr(dues) if dues is not None else _("ask at the pound"),
        }
    logger.info("lost-report owner notified", extra={"report": report.reference})
    _hand_over(
        messages.queue,
        event=Event.LOST_MATCH,
        recipient=report.phone,
        language=language,
        variables={
            "reference": report.reference,
            "pound": (pound.name_hi or pound.name) if language != "en" else pound.name,
            "amount": lakh(dues) if dues is not None else "-",
            "phone": pound.phone or "-",
        },
        key=f"lost-match:{report.pk}:{entry.pk}",
        impoundment=entry,
    )
    return LostNotice.objects.create(
        report=report,
        kind=LostNotice.Kind.MATCH,
        phone=report.phone,
        language=language,
        text=text,
    )
