from contextlib import contextmanager

from asgiref.local import Local
from django.core.management.base import BaseCommand, CommandError
from django.tasks import task_backends
from django.test.utils import override_settings

from demo import guard
from demo import history as demo_history
from demo import register as register_demo
from demo import staff as demo
from demo import unclaimed as auction_demo

# While seeding, background work is put aside rather than run: the s.14 report and notice are
# drawn when first opened (auctions.tasks: a download draws and keeps what the worker has not),
# and the demo's to-dos mail no one. Drawing every document inline made the first run slow.
PUT_ASIDE = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}


def _reload_task_backends():
    # django.tasks reads TASKS once: forget the backends so the next task reads it again.
    task_backends.__dict__.pop("settings", None)
    task_backends._connections = Local(task_backends.thread_critical)


@contextmanager
def tasks_put_aside():
    with override_settings(TASKS=PUT_ASIDE):
        _reload_task_backends()
        try:
            yield
        finally:
            _reload_task_backends()
    _reload_task_backends()


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
        with override_settings(MAILERS=quiet), tasks_put_aside():
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
