import sys

from django.core.management.base import BaseCommand

from ledger.checks import run_checks
from ledger.models import Account, Transaction


class Command(BaseCommand):
    help = "Verify every ledger balance against the postings and the business records."

    def handle(self, *args, **options):
        problems = run_checks()
        for problem in problems:
            self.stderr.write(f"LEDGER: {problem}")
        summary = (
            f"{Transaction.objects.count()} transactions, {Account.objects.count()} accounts: "
        )
        if problems:
            self.stderr.write(summary + f"{len(problems)} problem(s)")
            sys.exit(1)
        self.stdout.write(summary + "every balance agrees")
