from django.core.management.base import BaseCommand, CommandError

from demo import guard, scale


class Command(BaseCommand):
    help = (
        "Build a State-sized data set on PostgreSQL for benchmarks: N register entries over many "
        "pounds and three years, with their releases, receipts, postings and events."
    )

    def add_arguments(self, parser):
        parser.add_argument("--entries", type=int, required=True)
        parser.add_argument("--pounds", type=int, default=40)
        parser.add_argument("--districts", type=int, default=4)
        parser.add_argument("--seed", type=int, default=1, help="the same seed, the same rows")
        parser.add_argument(
            "--append", action="store_true", help="add to a database that has entries already"
        )

    def handle(self, *args, entries, pounds, districts, seed, append, **options):
        try:
            guard.check_install()
        except guard.SeedRefused as refused:
            raise CommandError(str(refused)) from None
        if entries < 1 or pounds < 1 or districts < 1:
            raise CommandError("--entries, --pounds and --districts must be at least 1.")
        try:
            summary = scale.seed(
                entries=entries, seed=seed, pounds=pounds, districts=districts, append=append
            )
        except scale.ScaleRefused as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(summary.line())
