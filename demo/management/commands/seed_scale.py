from django.core.management.base import BaseCommand, CommandError

from demo import guard, scale


class Command(BaseCommand):
    help = (
        "Build a State-sized data set on PostgreSQL for benchmarks: N register entries over many "
        "pounds and years, with their releases, receipts, postings and events. The pounds, "
        "districts and years follow from the entries unless given (demo/scale: shape())."
    )

    def add_arguments(self, parser):
        parser.add_argument("--entries", type=int, required=True)
        parser.add_argument("--pounds", type=int)
        parser.add_argument("--districts", type=int)
        parser.add_argument("--years", type=int, help="how far back the entries reach")
        parser.add_argument("--seed", type=int, default=1, help="the same seed, the same rows")
        parser.add_argument(
            "--append", action="store_true", help="add to a database that has entries already"
        )
        parser.add_argument(
            "--jobs",
            type=int,
            default=1,
            help="pounds seeded at once, each in a worker process: 2 uses two cores; the rows "
            "are the same, bar their ids",
        )

    def handle(self, *args, entries, seed, append, jobs, **options):
        try:
            guard.check_install()
        except guard.SeedRefused as refused:
            raise CommandError(str(refused)) from None
        shape = scale.shape(entries)
        pounds = options["pounds"] or shape.pounds
        districts = options["districts"] or shape.districts
        years = options["years"] or shape.years
        given = [entries, jobs, *(options[k] for k in ("pounds", "districts", "years"))]
        if min(v for v in given if v is not None) < 1:
            raise CommandError(
                "--entries, --pounds, --districts, --years and --jobs must be at least 1."
            )
        try:
            summary = scale.seed(
                entries=entries,
                seed=seed,
                pounds=pounds,
                districts=districts,
                years=years,
                append=append,
                jobs=jobs,
            )
        except scale.ScaleRefused as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(summary.line())
