import sys

from django.core.management.base import BaseCommand

from impounding.months import months_disagree


class Command(BaseCommand):
    help = (
        "Hold the register's month totals, which the periodic returns read, against the animals"
        " (a walk over every animal: for the weekly run)."
    )

    def handle(self, *args, **options):
        problems = months_disagree()
        for problem in problems:
            self.stderr.write(f"REGISTER MONTHS: {problem}")
        if problems:
            self.stderr.write(
                f"{len(problems)} month total(s) disagree: `manage.py rebuild_register_months`"
                " sets them afresh."
            )
            sys.exit(1)
        self.stdout.write("The register's month totals agree with the animals.")
