"""Run by tests/kernel/test_old_code.py in a process of its own, with `python -c` in the tree of
the code it tests: the previous release's, extracted from the history, or the head's. DATABASE_URL
names a database the head's code migrated.

`write` (the previous release's code): its own demo seeding writes through its own services
(register entries with their animals, feeding, a release on payment with its receipt, a deposit,
a court's order, a complaint, deaths, escapes and a birth, the unclaimed animals' reports,
notices, an auction and a s.16 sale), then its `check_ledger --full` and `verify_chain --full`,
and its main pages of the pound and the office. `read` (the head's code, after): the same checks
and pages on what the old code wrote. Prints what it saw as one line of JSON.

Only names both releases share are used here: the demo's seeding functions, the URL names and
tests.accounts.factories, each from the tree the process runs in.
"""

import io
import json
import os
import sys

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402

QUIET_MAIL = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}


def seed():
    """The old code's writes: its demo, through its services, each step in its transactions."""
    from demo import register, staff, unclaimed

    # The demo's users sign in with a password nobody types here: a fast hash will do.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    with override_settings(MAILERS=QUIET_MAIL):
        users = len(staff.seed_all())
        register.seed_tariffs()
        entries = register.seed_register()
        unclaimed.seed_conditions()
        unclaimed_entries = unclaimed.seed_unclaimed()
    return {"users": users, "entries": entries, "unclaimed": unclaimed_entries}


def command(name, *args):
    out = io.StringIO()
    try:
        call_command(name, *args, stdout=out, stderr=out)
        code = 0
    except SystemExit as stop:
        code = stop.code
    except Exception as error:  # noqa: BLE001 - reported, the test fails on it
        out.write(f"{type(error).__name__}: {error}")
        code = 1
    return {"exit": code, "output": out.getvalue()[-2000:]}


def pages():
    """{page: status} of the main pages, for the demo's keeper, clerk and magistrate of Lucknow,
    on the first release on payment the old code recorded."""
    from accounts.models import User
    from impounding.models import Release
    from tests.accounts.factories import force_login_with_second_factor

    release = Release.objects.filter(receipt__isnull=False).order_by("pk").first()
    entry, receipt = release.impoundment, release.receipt
    seen = {}
    for username, names in (
        ("keeper", [("home", []), ("impounding:today", []), ("impounding:register", []),
                    ("impounding:entry", [entry.pk]), ("impounding:receipt_pdf", [receipt.pk]),
                    ("impounding:feeding_log", [entry.pound_id])]),
        ("clerk", [("home", []), ("office:office", []), ("office:returns", []),
                   ("office:money_trail", [entry.pk]), ("auctions:auctions", []),
                   ("auctions:reports", [])]),
        ("magistrate", [("home", []), ("office:approvals", [])]),
    ):  # fmt: skip
        client = Client()
        force_login_with_second_factor(client, User.objects.get(username=username))
        for name, args in names:
            seen[f"{username} {name}"] = client.get(reverse(name, args=args)).status_code
    return seen


def main(mode):
    import impounding

    facts = {"code": os.path.dirname(os.path.dirname(os.path.abspath(impounding.__file__)))}
    if mode == "write":
        facts["seeded"] = seed()
    facts["check_ledger"] = command("check_ledger", "--full")
    facts["verify_chain"] = command("verify_chain", "--full")
    facts["pages"] = pages()
    return facts


if __name__ == "__main__":
    try:
        facts = main(sys.argv[1])
    finally:
        connection.close()
    sys.stdout.write(json.dumps(facts) + "\n")
