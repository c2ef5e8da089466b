import sys

from django.core.management.base import BaseCommand

from kernel.anchors import write_checkpoint


class Command(BaseCommand):
    help = (
        "Sign every chain's head and store the checkpoint outside the database (the storage and "
        "the lock bucket), as the hourly timer and the end of the daily run do; nothing new when "
        "no head has moved since the latest. Walks each chain from the last signed link, or else "
        "from the link verify_chain last found sound, unless --full. Without a signing key it "
        "signs nothing, says so, and succeeds: the readiness check names a missing key."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--full",
            action="store_true",
            help="walk every chain from its first link before signing",
        )

    def handle(self, *args, full=False, **options):
        checkpoint, problems = write_checkpoint(full=full)
        for name, seq, what in problems:
            self.stderr.write(f"NOT SIGNED: chain {name}, link {seq}: {what}")
        if problems:
            sys.exit(1)
        if checkpoint is None:
            self.stderr.write("No signing key: nothing signed (set CHECKPOINT_SIGNING_KEY_FILE).")
            return
        self.stdout.write(
            f"Checkpoint signed at {checkpoint.when}: {len(checkpoint.heads)} chain(s), "
            f"digest {checkpoint.digest}"
        )
