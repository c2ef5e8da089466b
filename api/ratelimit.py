"""Requests a minute per API token: `settings.API_RATE_PER_MINUTE`, or the token's own
`rate_per_minute`. Counted in PostgreSQL by `accounts.throttle.hit` in fixed one-minute windows,
so that every app server adds to the same count (docs/decisions/0041). Past the limit the
answer is a 429 problem with `Retry-After` and the IETF RateLimit fields
(draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` and `RateLimit`). Every other answer to
a token carries the same two fields, with what is left of the minute, so that a client can slow
down before it is refused."""

import math
import time
from datetime import timedelta

from django.conf import settings
from django.utils.translation import gettext as _

from accounts.throttle import hit

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
    """Count one request of `token`; raise RateLimited past its limit for this minute.
    Returns the fields for the answer's headers (`rate_headers`)."""
    now = time.time()
    window = int(now // WINDOW_SECONDS)
    limit = limit_of(token)
    count = hit(f"api-rate:{token.pk}:{window}", ttl=timedelta(seconds=2 * WINDOW_SECONDS))
    reset = max(1, math.ceil((window + 1) * WINDOW_SECONDS - now))
    if count > limit:
        raise RateLimited(limit, reset)
    return rate_headers(limit, remaining=limit - count, reset=reset)


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
