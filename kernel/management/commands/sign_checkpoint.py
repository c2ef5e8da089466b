import sys

from django.core.management.base import BaseCommand
from django.utils import timezone

from kernel.anchors import write_checkpoint


class Command(BaseCommand):
    help = (
        "Sign today's checkpoint of every chain's head and store it outside the database, as "
        "the daily run does. Walks each chain from the last signed link, or else from the link "
        "verify_chain last found sound, unless --full."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--full",
            action="store_true",
            help="walk every chain from its first link before signing",
        )

    def handle(self, *args, full=False, **options):
        checkpoint, problems = write_checkpoint(on=timezone.localdate(), full=full)
        for name, seq, what in problems:
            self.stderr.write(f"NOT SIGNED: chain {name}, link {seq}: {what}")
        if problems:
            sys.exit(1)
        if checkpoint is None:
            self.stderr.write("No signing key: set CHECKPOINT_SIGNING_KEY or its _FILE.")
            sys.exit(1)
        self.stdout.write(
            f"Checkpoint of {checkpoint.day:%Y-%m-%d}: {len(checkpoint.heads)} chain(s), "
            f"digest {checkpoint.digest}"
        )
