import sys

from django.core.files.storage import FileSystemStorage
from django.core.management.base import BaseCommand

from kernel.events import walk_chains


class Command(BaseCommand):
    help = (
        "Verify the hash chain of every pound's event log; name the first broken link. Walks "
        "only the links written since the last sound run, unless --full."
    )

    def add_arguments(self, parser):
        parser.add_argument("--chain", help="only this chain, e.g. pound:3")
        parser.add_argument(
            "--full",
            action="store_true",
            help="walk every link from the first, not only those since the last sound run",
        )
        parser.add_argument(
            "--checkpoints",
            metavar="DIR",
            help="hold the chains to the signed checkpoints in DIR (a backup's) instead",
        )

    def handle(self, *args, chain=None, full=False, checkpoints=None, **options):
        store = FileSystemStorage(location=checkpoints) if checkpoints else None
        walk = walk_chains(chain=chain, incremental=not full, signed_in=store)
        for name, seq, what in walk.problems:
            self.stderr.write(f"BROKEN: chain {name}, link {seq}: {what}")
        if walk.problems:
            sys.exit(1)
        mode = "full walk" if full else "incremental, from the last checkpoints"
        signed = (
            f"; every chain holds the checkpoint signed on {walk.signed_on}"
            if walk.signed_on
            else "; no signed checkpoint yet"
        )
        self.stdout.write(
            f"{walk.chains} chain(s), {walk.events} events: every link holds "
            f"({mode}: {walk.walked} links read){signed}"
        )
