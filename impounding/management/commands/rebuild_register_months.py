from django.core.management.base import BaseCommand

from impounding.models import AnimalMonth
from impounding.months import rebuild_months


class Command(BaseCommand):
    help = (
        "Set the register's month totals afresh from the animals: after a bulk load written"
        " past their trigger, or a disagreement check_register_months reported."
    )

    def handle(self, *args, **options):
        rebuild_months()
        self.stdout.write(f"{AnimalMonth.objects.count()} month rows of the register set afresh.")
