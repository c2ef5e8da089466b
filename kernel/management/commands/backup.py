from django.core.management.base import BaseCommand

from kernel.backups import backup


class Command(BaseCommand):
    help = "Write a consistent PostgreSQL dump and a copy of every stored file into DIR."

    def add_arguments(self, parser):
        parser.add_argument("target", help="a directory (made if missing)")
        parser.add_argument(
            "--previous",
            help="an earlier backup: files it holds unchanged are linked, not read again "
            "(default: TARGET's own, when it holds one)",
        )

    def handle(self, *args, target, previous=None, **options):
        manifest = backup(target, previous=previous)
        self.stdout.write(
            f"backup: database {manifest['database']} and {len(manifest['files'])} files "
            f"({manifest['copied']} copied, the rest unchanged) written to {target}"
        )
