import sys

from django.core.files.storage import FileSystemStorage
from django.core.management.base import BaseCommand

from kernel.events import walk_chains


class Command(BaseCommand):
    # Run by the timers against a configuration `manage.py check --deploy` has passed: the
    # system checks (the URLs, the views and WeasyPrint imported) would add seconds to each run.
    requires_system_checks = []
    help = (
        "Verify the hash chain of every pound's event log; name the first broken link. Walks "
        "only the links written since the last sound run; --full (weekly) the last month's, "
        "from the link the latest signed checkpoint a month old holds; --all every link."
    )

    def add_arguments(self, parser):
        parser.add_argument("--chain", help="only this chain, e.g. pound:3")
        parser.add_argument(
            "--full",
            action="store_true",
            help=(
                "walk every link since the latest signed checkpoint a month old (weekly), not "
                "only those since the last sound run; from the first link when there is none"
            ),
        )
        parser.add_argument(
            "--all",
            action="store_true",
            dest="every",
            help="walk every link from the first (after a restore, or on demand)",
        )
        parser.add_argument(
            "--checkpoints",
            metavar="DIR",
            help="hold the chains to the signed checkpoints in DIR (a backup's) instead",
        )

    def handle(self, *args, chain=None, full=False, every=False, checkpoints=None, **options):
        store = FileSystemStorage(location=checkpoints) if checkpoints else None
        walk = walk_chains(
            chain=chain,
            incremental=not (full or every),
            signed_in=store,
            since_month=full and not every,
        )
        for name, seq, what in walk.problems:
            self.stderr.write(f"BROKEN: chain {name}, link {seq}: {what}")
        if walk.problems:
            sys.exit(1)
        self.stdout.write(
            f"{walk.chains} chain(s), {walk.events} events: every link holds "
            f"({_mode(walk, full, every)}: {walk.walked} links read){_signed(walk)}"
        )


def _mode(walk, full, every):
    if every or (full and walk.walked_from is None):
        return "full walk"
    if full:
        return f"full walk from the checkpoint signed at {walk.walked_from}"
    return "incremental, from the last checkpoints"


def _signed(walk):
    if walk.signed_on:
        return f"; every chain holds the checkpoint signed on {walk.signed_on}"
    return "; no signed checkpoint yet"
