"""Where the demo may be written: a development or demo install, on a database of its own.

`seed_demo` creates `admin`, `keeper` and the other demo users with a password printed in the
README. On a real install that would open the door to anyone who has read it, and the demo's
entries would mix with a district's register. So it refuses unless DEBUG is on or DEMO=true, and
it refuses a database that holds anything but the demo: a user other than the demo's (or the
daily run's own), or a State, district or pound the demo does not make (ADR 0049).
"""

from django.conf import settings
from django.contrib.auth import get_user_model

from accounts.models import District, Pound, State
from accounts.scoping import is_system_actor

from . import staff

SHOWN = 5  # names listed in a refusal; the rest are counted


class SeedRefused(Exception):
    """The demo may not be written to this install or this database."""


def check_install():
    if not (settings.DEBUG or getattr(settings, "DEMO", False)):
        raise SeedRefused(
            "This is a production install (DEBUG is off and DEMO is not true): the demo data "
            "and its users are never written here. On a development or demo machine, set "
            "DEBUG=true or DEMO=true."
        )


DEMO_USERNAMES = {row[0] for row in staff.USERS}


def _demo_user(user):
    # seed_users gives each its name and an address at example.invalid: a real "admin" has neither.
    return user.username in DEMO_USERNAMES and user.email == f"{user.username}@example.invalid"


def _foreign_users():
    users = get_user_model().objects.order_by("pk")
    return [u.username for u in users if not (_demo_user(u) or is_system_actor(u))]


def _foreign_places():
    demo_districts = {d["code"] for d in staff.DISTRICTS}
    demo_pounds = {p["code"] for d in staff.DISTRICTS for p in d["pounds"]}
    places = [
        (State, {staff.STATE["code"]}),
        (District, demo_districts),
        (Pound, demo_pounds),
    ]
    return [
        f"{model._meta.verbose_name} {code}"
        for model, codes in places
        for code in model.objects.exclude(code__in=codes)
        .order_by("pk")
        .values_list("code", flat=True)
    ]


def _listed(names):
    more = len(names) - SHOWN
    return ", ".join(names[:SHOWN]) + (f" and {more} more" if more > 0 else "")


def check_database():
    users, places = _foreign_users(), _foreign_places()
    if users or places:
        found = "; ".join(
            part
            for part in (
                users and f"{'user' if len(users) == 1 else 'users'} {_listed(users)}",
                places and _listed(places),
            )
            if part
        )
        raise SeedRefused(
            f"This database holds data that is not the demo's ({found}). The demo is written "
            "only to a database of its own: point DATABASE_URL at an empty database (or delete "
            "db.sqlite3) and run seed_demo again."
        )


def check():
    """Raise SeedRefused unless the demo may be written here."""
    check_install()
    check_database()
