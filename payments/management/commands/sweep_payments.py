from django.core.management.base import BaseCommand

from kernel.locks import advisory_lock
from payments import refunds, services


class Command(BaseCommand):
    requires_system_checks = []
    help = (
        "Ask the payment gateway about every payment that has heard nothing for a few minutes,"
        " and settle it (docs/decisions/0075)."
    )

    def handle(self, *args, **options):
        with advisory_lock("sweep_payments") as held:
            if not held:
                # Started on every app server: one sweeps, the others say so.
                self.stdout.write("sweep_payments: another server is sweeping")
                return
            asked, settled = services.sweep()
            refunds_asked, refunds_settled = refunds.sweep_refunds()
        self.stdout.write(f"sweep_payments: {asked} payment(s) asked about, {settled} settled")
        self.stdout.write(
            f"sweep_payments: {refunds_asked} refund(s) asked about, {refunds_settled} settled"
        )
