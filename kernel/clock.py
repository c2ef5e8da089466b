"""The business clock (ADR 0080).

A training district's clock runs ahead of the real one by an offset that a trainer moves
forward ("advance 7 days", "to the auction's hour"); every other district's clock is the real
one. The offset is a column of the district's row (`clock_offset`), so every process reads the
same clock; the kernel reads it off the object it is given and never imports the district.

Business time (deadlines, the s.14, s.16 and s.17 clocks, the auction's hour, a document's
printed date, a district's daily run) asks `now(district)` or `today(district)`. Infrastructure
time (tokens, leases, idempotency keys, sessions, webhooks, logs, the chain's own link times,
checkpoints) stays on `django.utils.timezone.now()`.
"""

from datetime import date, datetime, timedelta

from django.utils import timezone

ZERO = timedelta(0)


def offset(of=None) -> timedelta:
    """How far `of`'s clock runs ahead of real time: a district, or anything with a `district`
    (a pound, a register entry, an auction's pound); zero for None or a real district."""
    district = of
    for _hop in range(3):
        if district is None or hasattr(district, "clock_offset"):
            break
        district = getattr(district, "district", None) or getattr(district, "pound", None)
    if district is None or not getattr(district, "training", False):
        return ZERO  # a real district: no query (the mark is never taken off)
    # Read from the row, not the object, which another process may have moved meanwhile.
    stored = (
        type(district)
        ._default_manager.filter(pk=district.pk)
        .values_list("clock_offset", flat=True)
    )
    return stored.first() or ZERO


def now(of=None) -> datetime:
    """The moment it is in `of`'s district: real time, plus its training offset if any."""
    return timezone.now() + offset(of)


def today(of=None) -> date:
    """The Asia/Kolkata calendar day it is in `of`'s district."""
    return timezone.localtime(now(of)).date()
