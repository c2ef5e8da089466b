"""Load the rule packs the repository ships (or one file) into the database: `manage.py
load_rulepacks [--code up] [path ...]`. A file the schema refuses stops the run with what is wrong;
a version already loaded from the same text is left as it is."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from rulepacks import services
from rulepacks.schema import PackInvalid


class Command(BaseCommand):
    help = "Load the shipped rule packs, or the files named, into the database."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", help="pack files (default: every shipped pack)")
        parser.add_argument("--code", help="only the shipped packs of this code")

    def handle(self, *args, paths, code, **options):
        files = paths or services.shipped_files(code)
        try:
            with transaction.atomic():
                results = [services.load_file(path) for path in files]
        except (PackInvalid, OSError) as e:
            raise CommandError(str(e)) from None
        new = [str(row) for row, created in results if created]
        self.stdout.write(
            f"{len(new)} pack version(s) loaded, {len(results) - len(new)} already in: "
            + (", ".join(new) or "none new")
        )
