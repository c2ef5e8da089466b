from datetime import date

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from kernel.locks import advisory_lock
from office.deadlines import run, summary


class Command(BaseCommand):
    help = "Do the day's date-driven work of the Act. Idempotent: safe to run twice, from cron."

    def add_arguments(self, parser):
        parser.add_argument(
            "--date", type=date.fromisoformat, help="run as if today were DATE (not later)"
        )

    def handle(self, *args, date=None, **options):
        if date is not None and date > timezone.localdate():
            # A day that has not come would lift surplus and apply deposits before their time.
            raise CommandError(f"--date {date.isoformat()} has not come yet.")
        with advisory_lock("run_deadlines") as held:
            if not held:
                # Another run is at work: it does today's work; this one has nothing to add.
                self.stdout.write("Another daily run is in progress; this one did nothing.")
                return
            self.stdout.write(summary(run(today=date)))
