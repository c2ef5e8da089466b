import subprocess

from django.core.management.base import BaseCommand, CommandError

from kernel.management.commands.db_roles import ROLE_NAME
from kernel.restoring import (
    RestoreRefused,
    check,
    put_checkpoints,
    put_files,
    restore_database,
)


class Command(BaseCommand):
    help = (
        "Put a backup (manage.py backup DIR) back into an empty database and an empty bucket, as "
        "the owner role (DATABASE_MIGRATE_URL): the tables owned by the owner, the runtime "
        "role's grants, ANALYZE, the files and the signed checkpoints; then check_ledger and "
        "verify_chain --all against the backup's own checkpoints. Exits 1 if a check fails."
    )

    def add_arguments(self, parser):
        parser.add_argument("source", help="the directory manage.py backup wrote")
        parser.add_argument("--runtime", default="poundadmin_app", help="the runtime role's name")

    def handle(self, *args, source, runtime, **options):
        if not ROLE_NAME.match(runtime):
            raise CommandError(f"{runtime!r} is not a plain PostgreSQL role name")
        try:
            owned = restore_database(source, runtime=runtime)
            self.stdout.write("restore: database restored, grants set, analysed")
            self.stdout.write(f"restore: {put_files(source)} files uploaded")
            self.stdout.write(f"restore: {put_checkpoints(source)} signed checkpoints put back")
        except RestoreRefused as refused:
            raise CommandError(f"restore: {refused}") from None
        except subprocess.CalledProcessError as exc:
            reason = (exc.stderr or b"").decode(errors="replace").strip().splitlines()
            raise CommandError(f"restore: {reason[-1] if reason else exc}") from None
        if owned:
            raise CommandError(f"restore: the runtime role {runtime} owns {', '.join(owned)}")
        if not check(source, self.stdout):
            raise CommandError("restore: restored, but its checks failed.")
        self.stdout.write(f"restore: {source} restored and its checks pass.")
