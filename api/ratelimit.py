"""Requests a minute per API token: `settings.API_RATE_PER_MINUTE`, or the token's own
`rate_per_minute`. Counted in PostgreSQL by `accounts.throttle.hit` in fixed one-minute windows,
so that every app server adds to the same count (docs/decisions/0041). Past the limit the
answer is a 429 problem with `Retry-After` and the IETF RateLimit fields
(draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` and `RateLimit`). Every other answer to
a token carries the same two fields, with what is left of the minute, so that a client can slow
down before it is refused.

A retry of a write already answered (the same Idempotency-Key, operation and body) does not use
up the minute, so that a client recovering from a crash is not locked out by its own retries:
api.idempotency gives its count back as it replays the answer (`refund`), and one that comes
past the limit is let through to its replay here. Replays are counted apart instead, in a window
of their own with the same limit, so that they cannot be sent without end."""

import math
import time
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils.translation import gettext as _

from accounts.models import RateCount
from accounts.throttle import hit
from kernel.middleware import current

from .common import problem

WINDOW_SECONDS = 60
POLICY = "token"


class RateLimited(Exception):
    def __init__(self, limit, retry_after):
        super().__init__(limit, retry_after)
        self.limit = limit
        self.retry_after = retry_after


def limit_of(token):
    return token.rate_per_minute or settings.API_RATE_PER_MINUTE


def count_request(token):
    """Count one request of `token`; raise RateLimited past its limit for this minute (a replay
    is let through, counted among the replays). Returns the fields for the answer's headers
    (`rate_headers`)."""
    now = time.time()
    window = int(now // WINDOW_SECONDS)
    limit = limit_of(token)
    key = f"api-rate:{token.pk}:{window}"
    count = hit(key, ttl=timedelta(seconds=2 * WINDOW_SECONDS))
    reset = max(1, math.ceil((window + 1) * WINDOW_SECONDS - now))
    context = current()
    request = context["request"] if context is not None else None
    if count > limit:
        if request is None or not _is_replay(request, token):
            raise RateLimited(limit, reset)
        _uncount(key)
        _count_replay(token, window, limit, reset)
        return rate_headers(limit, remaining=0, reset=reset)
    if request is not None:
        request.api_rate_key = key  # given back by `refund` if the request is a replay
    return rate_headers(limit, remaining=limit - count, reset=reset)


def _is_replay(request, token):
    from .idempotency import is_replay  # idempotency imports this module: a cycle

    return is_replay(request, token.user)


def _uncount(key):
    table = connection.ops.quote_name(RateCount._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE {table} SET "count" = "count" - 1 WHERE "key" = %s AND "count" > 0 '
            'RETURNING "count"',
            [key],
        )
        row = cursor.fetchone()
    return row[0] if row else 0


def _count_replay(token, window, limit, reset):
    replays = hit(f"api-replay:{token.pk}:{window}", ttl=timedelta(seconds=2 * WINDOW_SECONDS))
    if replays > limit:
        raise RateLimited(limit, reset)


def refund(request):
    """The request was a replay: give its count back to the token's minute, count it among the
    replays (RateLimited past their limit) and correct the answer's RateLimit field."""
    key = getattr(request, "api_rate_key", None)
    token = getattr(request, "api_token", None)
    if key is None or token is None:
        return
    request.api_rate_key = None
    window = int(key.rsplit(":", 1)[1])
    limit = limit_of(token)
    reset = max(1, math.ceil((window + 1) * WINDOW_SECONDS - time.time()))
    count = _uncount(key)
    _count_replay(token, window, limit, reset)
    request.api_rate_headers = rate_headers(limit, remaining=limit - count, reset=reset)


def rate_headers(limit, *, remaining, reset):
    return {
        "RateLimit-Policy": f'"{POLICY}";q={limit};w={WINDOW_SECONDS}',
        "RateLimit": f'"{POLICY}";r={remaining};t={reset}',
    }


def too_many(exc):
    return problem(
        429,
        _("Too many requests."),
        _("This token may make %(limit)s requests a minute. Try again in %(seconds)s seconds.")
        % {"limit": exc.limit, "seconds": exc.retry_after},
        headers={
            "Retry-After": str(exc.retry_after),
            **rate_headers(exc.limit, remaining=0, reset=exc.retry_after),
        },
    )
