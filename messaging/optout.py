"""The owner's opting out, from the public page (ADR 0084): a phone's holder proves the phone with
a one-time code and stops the messages to it, or starts them again.

The code is the lost-cattle form's (ADR 0079): six digits, kept hashed, good for
`CODE_MINUTES` and `CODE_TRIES` tries, one live code a phone, and sent no more often than that
form's limits allow, from one address an hour and to one phone a day (counted in PostgreSQL, so
that every app server shares the count). It goes at once, to the holder who asked for it, even
to a phone that has opted out.
"""

import secrets
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.throttle import hit
from impounding.services.lost import (
    CODE_MINUTES,
    CodeRefused,
    Throttled,
    spend_live_code,
)

from . import services
from .models import Event, Message, OptOutCode, Phone

__all__ = ["CodeRefused", "NotSendable", "Throttled", "check_code", "choose", "send_code"]


class NotSendable(Exception):
    """The code cannot go: its template waits for the State's DLT registration."""


def _hash(phone, code):
    return salted_hmac(f"opt-out-code:{phone.pk}", code, algorithm="sha256").hexdigest()


def send_code(number, *, address, language):
    """Send a new code to `number`; Throttled past the address's hourly or the phone's daily
    limit. The phone is the same whether or not a message was ever sent to it: the page tells
    nobody which numbers PoundAdmin knows."""
    now = timezone.now()
    hour, day = int(now.timestamp() // 3600), now.date().isoformat()
    if hit(f"optout-code-ip:{address}:{hour}", ttl=timedelta(hours=2)) > (
        settings.LOST_CODES_PER_ADDRESS_HOUR
    ):
        raise Throttled("address")
    phone = services.phone(number)
    if hit(f"optout-code-phone:{phone.number}:{day}", ttl=timedelta(days=2)) > (
        settings.LOST_CODES_PER_PHONE_DAY
    ):
        raise Throttled("phone")
    code = f"{secrets.randbelow(10**6):06d}"
    with transaction.atomic():
        phone.codes.filter(used_at__isnull=True).update(used_at=now)  # one live code at a time
        OptOutCode.objects.create(
            phone=phone,
            code_hash=_hash(phone, code),
            expires_at=now + timedelta(minutes=CODE_MINUTES),
        )
        message = services.send_now(
            event=Event.OPT_OUT_CODE,
            recipient=phone.number,
            variables={"code": code},
            key=f"optout-code:{phone.pk}:{uuid.uuid4().hex}",  # each code a message of its own
            language=language,
        )
        if message.status == Message.Status.HELD:  # its text waits for the State's DLT id:
            raise NotSendable(message.reason)  # nothing kept, not a code sent hours later
    return phone


def check_code(number, code):
    """The phone, if `code` is its live code; CodeRefused otherwise (a wrong try is counted:
    the refusal is raised once the count is committed)."""
    phone = Phone.objects.filter(number=number).first()
    reason = _try_code(phone, code) if phone is not None else "expired"
    if reason is not None:
        raise CodeRefused(reason)
    return phone


@transaction.atomic
def _try_code(phone, code):
    return spend_live_code(OptOutCode.objects.filter(phone=phone), _hash(phone, code))


def choose(phone, *, stop):
    """The proved holder's choice: no more messages (and none of those waiting), or messages
    again from now on. Chosen twice, the same."""
    if stop:
        if phone.opted_out_at is None:
            return services.opt_out(phone.number)
        return phone
    return services.opt_in(phone.number)
