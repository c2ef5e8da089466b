import logging

from django.core.management.base import BaseCommand

from api.idempotency import PRUNE_BATCH, prune
from kernel.locks import advisory_lock

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Delete the API's Idempotency-Key records older than IDEMPOTENCY_KEEP_DAYS, in batches."
        " Idempotent: run it daily after apply_retention."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=PRUNE_BATCH, help="Rows per delete.")

    def handle(self, *args, **options):
        with advisory_lock("prune_idempotency_keys") as held:
            if not held:
                self.stdout.write("Another pruning run is in progress; this one did nothing.")
                return
            removed = prune(batch=max(1, options["batch"]))
        logger.info("prune_idempotency_keys: %d keys deleted", removed)
        self.stdout.write(f"prune_idempotency_keys: keys {removed}")
