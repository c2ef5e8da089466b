import subprocess

from django.core.management.base import BaseCommand, CommandError

from kernel.backups import restore_check


class Command(BaseCommand):
    help = (
        "Restore DUMP (from manage.py backup) into a scratch database, as the owner role "
        "(DATABASE_MIGRATE_URL) when set, run check_ledger and verify_chain --all on it "
        "against the backup's own signed checkpoints, then drop it. Exits 1 if either fails."
    )

    def add_arguments(self, parser):
        parser.add_argument("dump", help="the database.dump written by manage.py backup")
        parser.add_argument("--keep", action="store_true", help="keep the scratch database")

    def handle(self, *args, dump, keep=False, **options):
        try:
            ok, scratch, outputs = restore_check(dump, keep=keep)
        except subprocess.CalledProcessError as exc:
            reason = (exc.stderr or b"").decode(errors="replace").strip().splitlines()
            raise CommandError(
                f"restore_check: {dump} does not restore: {reason[-1] if reason else exc}"
            ) from None
        for name, output in outputs.items():
            self.stdout.write(f"{name}: {output.splitlines()[-1] if output else ''}")
        if not ok:
            raise CommandError(f"restore_check: {dump} restored, but its checks failed.")
        kept = f", kept as {scratch}" if keep else ""
        self.stdout.write(f"restore_check: {dump} restores and its checks pass{kept}.")
