from django.core.management.base import BaseCommand

from accounts.scoping import system_actor
from kernel.locks import advisory_lock
from office.retention import apply_retention


class Command(BaseCommand):
    help = (
        "Erase the personal data the retention rule no longer allows to keep (docs/retention.md)."
        " Idempotent: run it daily after run_deadlines."
    )

    def handle(self, *args, **options):
        with advisory_lock("apply_retention") as held:
            if not held:
                # Another run is erasing the same records; this one would only repeat its work.
                self.stdout.write("Another retention run is in progress; this one did nothing.")
                return
            done = apply_retention(by=system_actor())
        self.stdout.write(
            "apply_retention: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in done.items())
        )
