"""Throttles beside django-axes's per-user-name lockout.

- Sign-in, per address: axes locks one user name from one address after five failures, so one
  address spraying forty user names, one try each, was never stopped. Here the failures axes
  recorded from an address, whatever the names, are added up over the cool-off; past
  AXES_ADDRESS_FAILURE_LIMIT (20: an office of several clerks behind one address still signs
  in) the address waits out the cool-off. axes's own rows are the count, so every worker sees
  the same.
- `/verify/`: VERIFY_RATE_PER_MINUTE look-ups per address a minute, counted in the default
  cache (shared between workers when the cache is; per worker otherwise).
"""

import time

from axes.helpers import get_client_ip_address
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.db.models import Sum
from django.utils import timezone


def address_locked_out(request):
    address = get_client_ip_address(request)
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    failures = AccessAttempt.objects.filter(ip_address=address, attempt_time__gte=since).aggregate(
        n=Sum("failures_since_start")
    )["n"]
    return (failures or 0) >= settings.AXES_ADDRESS_FAILURE_LIMIT


def verify_rate_exceeded(request):
    minute = int(time.time() // 60)
    key = f"verify-rate:{get_client_ip_address(request)}:{minute}"
    cache.add(key, 0, timeout=120)
    try:
        count = cache.incr(key)
    except ValueError:  # evicted between add and incr
        cache.set(key, 1, timeout=120)
        count = 1
    return count > settings.VERIFY_RATE_PER_MINUTE
