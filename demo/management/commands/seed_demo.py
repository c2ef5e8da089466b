from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from demo import guard
from demo import history as demo_history
from demo import register as register_demo
from demo import staff as demo
from demo import unclaimed as auction_demo


class Command(BaseCommand):
    help = (
        "Load the demo State, districts, pounds and one user per role. Safe to run twice. "
        "Refused unless DEBUG is on or DEMO=true, and on a database holding anything else."
    )

    def handle(self, *args, **options):
        try:
            guard.check()
        except guard.SeedRefused as refused:
            raise CommandError(str(refused)) from None
        # The demo's to-dos would mail the demo users (at example.invalid): keep that out of
        # the console, which should end with the logins.
        quiet = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
        with override_settings(MAILERS=quiet):
            created = self.seed()
        self.stdout.write(
            f"Demo data ready ({len(created)} new users). Sign in at /login/ with any of these "
            f"user names and the password {demo.DEMO_PASSWORD!r}:"
        )
        for username, _first, _last, _hi, _phone, role, _kind, code in demo.USERS:
            where = code or "whole system"
            self.stdout.write(f"  {username:<15} {role.label:<38} {where}")

    def seed(self):
        created = demo.seed_all()
        register_demo.seed_tariffs()
        entries = register_demo.seed_register()
        if entries:
            self.stdout.write(f"Demo pound register: {entries} entries, animals in every state.")
        auction_demo.seed_conditions()
        if auction_demo.seed_unclaimed():
            self.stdout.write("Demo unclaimed cattle: reports, notices, an auction, a s.16 sale.")
        entries = demo_history.seed_history("bbk")
        if entries:
            self.stdout.write(f"Demo history: a year of Barabanki ({entries} reported entries).")
        return created
