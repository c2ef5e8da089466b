from django.core.management.base import BaseCommand

from kernel.backups import backup


class Command(BaseCommand):
    help = "Write a consistent PostgreSQL dump and a copy of every stored file into DIR."

    def add_arguments(self, parser):
        parser.add_argument("target", help="a directory (made if missing)")

    def handle(self, *args, target, **options):
        manifest = backup(target)
        self.stdout.write(
            f"backup: database {manifest['database']} and {len(manifest['files'])} files "
            f"written to {target}"
        )
