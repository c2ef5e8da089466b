"""The tries of what is sent out and may fail: an outbound webhook's delivery, a message to an
owner. Each row counts its `attempts` and waits for `next_attempt_at`; a sender takes a due row
for one try under a lease, so that no other sender takes it meanwhile, and a sender that died
gives it back when the lease runs out."""

from django.db import transaction
from django.utils import timezone


def backoff(attempts, *, first, longest):
    """How long to wait after the `attempts`-th try failed: `first`, four times as long after
    each later try, never longer than `longest`."""
    return min(first * 4 ** (attempts - 1), longest)


def claim_due(waiting, pk, *, lease, now=None):
    """Take row `pk` of `waiting` (the rows still to send) for one try if it is due: count the
    try and hold it for `lease`. None if it is not due, or another sender has it."""
    now = now or timezone.now()
    with transaction.atomic():
        row = (
            waiting.select_for_update(of=("self",), skip_locked=True)
            .filter(pk=pk, next_attempt_at__lte=now)
            .first()
        )
        if row is None:
            return None
        row.attempts += 1
        row.next_attempt_at = now + lease
        row.save(update_fields=["attempts", "next_attempt_at"])
    return row
