from django.core.management.base import BaseCommand

from kernel.locks import advisory_lock
from messaging import notices, services


class Command(BaseCommand):
    requires_system_checks = []
    help = (
        "Queue the day-before-auction messages to owners, release the messages held for a "
        "template the State has since registered on DLT, and send whatever is due that the "
        "worker was not given or lost (docs/decisions/0077). Safe to run twice."
    )

    def handle(self, *args, **options):
        with advisory_lock("send_owner_messages") as held:
            if not held:
                self.stdout.write("send_owner_messages: another server is sending")
                return
            reminded = notices.remind_auctions()
            tried = services.send_due()
        self.stdout.write(
            f"send_owner_messages: {reminded} entr(y/ies) reminded of tomorrow's auction, "
            f"{tried} message(s) tried"
        )
