"""Django's `migrate`, run as the one migration of its database (kernel/migrating.py)."""

from django.core.management.commands import migrate

from kernel.migrating import migrating


class Command(migrate.Command):
    help = (
        migrate.Command.help
        + " One at a time per database (a second waits, then finds nothing to do), every query "
        "on the database given, with MIGRATION_LOCK_TIMEOUT on PostgreSQL."
    )

    def handle(self, *args, **options):
        database = options["database"]
        with migrating(database, on_wait=lambda: self._waiting(database)):
            return super().handle(*args, **options)

    def _waiting(self, database):
        self.stdout.write(f"Another migrate is running on database '{database}'; waiting for it.")
