from django.core.management.base import BaseCommand

from webhooks.services import send_due


class Command(BaseCommand):
    help = (
        "Send every webhook delivery that is due: those the worker was not given, or lost "
        "(the daily run's sweep; the worker sends the rest as they come). Safe to run twice."
    )

    def add_arguments(self, parser):
        parser.add_argument("--limit", type=int, default=500, help="at most this many (500)")

    def handle(self, *args, limit, **options):
        self.stdout.write(f"Webhook deliveries tried: {send_due(limit=limit)}")
