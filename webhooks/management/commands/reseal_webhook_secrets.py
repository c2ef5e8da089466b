from django.core.management.base import BaseCommand
from django.db import transaction

from webhooks.models import WebhookSubscription
from webhooks.secrets import new_key, resealed


class Command(BaseCommand):
    help = (
        "Seal every webhook's signing secret again with the newest key of WEBHOOK_SECRET_KEYS "
        "(ADR 0060): after a new key is put first, before the old one is dropped. "
        "With --new-key, print a fresh key and change nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--new-key", action="store_true", help="print a fresh key only")

    def handle(self, *args, **options):
        if options.get("new_key"):
            self.stdout.write(new_key())
            return
        count = 0
        with transaction.atomic():
            for subscription in WebhookSubscription.objects.select_for_update(
                of=("self",)
            ).order_by("pk"):
                subscription.secret = resealed(subscription.secret)
                subscription.save(update_fields=["secret"])
                count += 1
        self.stdout.write(f"Webhook secrets sealed with the newest key: {count}")
