"""The impounding app's work on the worker (Django's tasks framework, ADR 0079 addendum)."""

from django.db import transaction
from django.tasks import task


@task()
def match_lost_reports(animal_ids):
    """Score the open lost-cattle reports against animals entered or corrected after them; the
    number of candidates found is the task's result. Run twice, recorded once."""
    from .services.lost import match_animals

    return match_animals(animal_ids)


def match_later(animal_ids):
    """Hand the animals to the worker once the transaction that entered or corrected them
    commits: never on the request's path, and nothing queued if it rolls back."""
    ids = [int(pk) for pk in animal_ids]
    if ids:
        transaction.on_commit(lambda: match_lost_reports.enqueue(ids), robust=True)
