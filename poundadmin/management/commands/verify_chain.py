import sys

from django.core.management.base import BaseCommand

from poundadmin.events import verify_chain
from poundadmin.models import ChainHead, Event


class Command(BaseCommand):
    help = "Verify the hash chain of every pound's event log; name the first broken link."

    def add_arguments(self, parser):
        parser.add_argument("--chain", help="only this chain, e.g. pound:3")

    def handle(self, *args, chain=None, **options):
        problems = verify_chain(chain)
        for name, seq, what in problems:
            self.stderr.write(f"BROKEN: chain {name}, link {seq}: {what}")
        chains = 1 if chain else ChainHead.objects.count()
        events = Event.objects.filter(chain=chain).count() if chain else Event.objects.count()
        if problems:
            sys.exit(1)
        self.stdout.write(f"{chains} chain(s), {events} events: every link holds")
