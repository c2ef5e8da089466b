import sys

from django.core.management.base import BaseCommand

from kernel.locks import advisory_lock
from ledger.checkpoint import check
from ledger.models import Account, Transaction


class Command(BaseCommand):
    # Run by the timers against a configuration `manage.py check --deploy` has passed: the
    # system checks (the URLs, the views and WeasyPrint imported) would add seconds to each run.
    requires_system_checks = []
    help = (
        "Verify every ledger balance against the postings and the business records: the"
        " postings written since the last checkpoint, or all of them with --full."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--full",
            action="store_true",
            help="walk every posting, not only those after the checkpoint (say, once a week)",
        )

    def handle(self, *args, full=False, **options):
        with advisory_lock("check_ledger") as held:
            if not held:
                # The daily timer starts it on every app server: one checks, and moves the
                # checkpoint; the others would only repeat it.
                self.stdout.write(
                    "Another check of the ledger is in progress; this one did nothing."
                )
                return
            self._check(full)

    def _check(self, full):
        outcome = check(full=full)
        for problem in outcome.problems:
            self.stderr.write(f"LEDGER: {problem}")
        summary = (
            f"{Transaction.objects.count()} transactions, {Account.objects.count()} accounts: "
        )
        walked = (
            f" (postings after transaction #{outcome.after}; checkpoint now #{outcome.checkpoint})"
            if outcome.after
            else f" (every posting; checkpoint now #{outcome.checkpoint})"
        )
        if outcome.problems:
            self.stderr.write(summary + f"{len(outcome.problems)} problem(s)" + walked)
            sys.exit(1)
        self.stdout.write(summary + "every balance agrees" + walked)
