"""Tasks for tests/kernel/test_worker_leases.py, run by a real worker process: a module of its
own, so that the worker imports nothing of the tests but this."""

from django.db import connection
from django.tasks import task


@task(takes_context=True)
def hold_then_finish(context, seconds):
    """The first try holds a query on PostgreSQL for `seconds` (the worker is killed meanwhile);
    a later try returns its number at once."""
    if context.attempt == 1:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(%s)", [seconds])
    return context.attempt
