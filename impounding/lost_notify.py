"""The one seam between lost-cattle reports and the messages component (ADR 0079).

Two functions, and nothing else of the reports' code sends anything:

- `send_verification_code(*, report, phone, code, language)`: the one-time code for the form.
- `notify_owner_of_match(*, report, entry, language)`: "your animal may be at pound X", with the
  pound, its address and the dues today.

Until the messages component (SMS through the State's gateway, DLT templates) is wired in, each
message is recorded as a LostNotice row (the code's own digits are never stored: the row says a
code was sent) and written to the `impounding.lost_notify` log; tests read the rows or replace
the functions. Wiring the component replaces the bodies of these two functions only.
"""

import logging

from django.utils import translation
from django.utils.translation import gettext as _

from kernel.formatting import inr

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
    return LostNotice.objects.create(
        report=report,
        kind=LostNotice.Kind.MATCH,
        phone=report.phone,
        language=language,
        text=text,
    )
