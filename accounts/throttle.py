"""Throttles beside django-axes's per-user-name lockout.

- Sign-in, per address: axes locks one user name from one address after five failures, so one
  address spraying forty user names, one try each, was never stopped. Here the failures axes
  recorded from an address, whatever the names, are added up over the cool-off; past
  AXES_ADDRESS_FAILURE_LIMIT (20: an office of several clerks behind one address still signs
  in) the address waits out the cool-off. axes's own rows are the count, so every worker sees
  the same.
- `/verify/`: VERIFY_RATE_PER_MINUTE look-ups per address a minute, counted in PostgreSQL
  (RateCount), so that the app servers share one count: a per-process cache would let each
  server allow the limit again.
"""

import time
from datetime import timedelta

from axes.helpers import get_client_ip_address
from axes.models import AccessAttempt
from django.conf import settings
from django.db import connection
from django.db.models import Sum
from django.utils import timezone

from .models import RateCount

# One statement, atomic under any number of servers: the row is created or its count raised
# (PostgreSQL's and SQLite's upsert), and the new count read back.
UPSERT = (
    'INSERT INTO {table} ("key", "count", "expires_at") VALUES (%s, 1, %s) '
    'ON CONFLICT ("key") DO UPDATE SET "count" = {table}."count" + 1 RETURNING "count"'
)


def hit(key, *, ttl):
    """Add one to the count of `key` (a window's name) and return the count. Windows past
    their `ttl` are dropped as new ones open."""
    now = timezone.now()
    table = connection.ops.quote_name(RateCount._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(UPSERT.format(table=table), [key, now + ttl])
        count = cursor.fetchone()[0]
    if count == 1:  # a new window: the first look-up in it clears the expired ones
        RateCount.objects.filter(expires_at__lt=now).delete()
    return count


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
    return hit(key, ttl=timedelta(minutes=2)) > settings.VERIFY_RATE_PER_MINUTE
