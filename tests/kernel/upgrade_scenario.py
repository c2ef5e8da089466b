"""Run by tests/kernel/test_upgrade.py in a process of its own, DATABASE_URL naming an empty
database: migrate it to the previous release (kernel/releases.py), fill it as that release's
code would have (register entries, a release on payment with its receipt, the ledger's postings
and month totals, the event chain), through the models of that schema and never today's, then
migrate it to the head as a deployment does (`manage.py migrate`), run `check_ledger` and
`verify_chain`, and read the main pages. Prints what it saw as one line of JSON.

`python -m tests.kernel.upgrade_scenario` from the checkout, with the environment above.
"""

import hashlib
import io
import json
import sys
from datetime import timedelta
from decimal import Decimal

import django

django.setup()

from django.contrib.auth.hashers import make_password  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.serializers.json import DjangoJSONEncoder  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.migrations.executor import MigrationExecutor  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from kernel.releases import APPS, previous  # noqa: E402

GENESIS = "0" * 64
FINES, FEEDING = Decimal("150.00"), Decimal("60.00")


def migrate_to_release():
    """The previous release's migrations of the project's apps (and every other app's, as
    installed); the models of that schema."""
    executor = MigrationExecutor(connection)
    release = previous(executor.loader.graph)
    others = [node for node in executor.loader.graph.leaf_nodes() if node[0] not in APPS]
    targets = release.nodes() + others
    executor.migrate(targets)
    return release, executor.loader.project_state(targets, at_end=True).apps


def link(chain, seq, prev, event):
    """An event's hash as every release has written it: sha256 of the canonical JSON of its
    fields. Frozen here on purpose: a release that changed it would fail this test."""
    payload = {
        "chain": chain,
        "seq": seq,
        "at": event["at"].astimezone(timezone.UTC).isoformat(timespec="microseconds"),
        "by": event["by_id"],
        "action": event["action"],
        "section": event["section"],
        "summary": event["summary"],
        "district": event["district_id"],
        "pound": event["pound_id"],
        "impoundment": event["impoundment_id"],
        "animal": None,
        "data": event["data"],
        "prev": prev,
    }
    text = json.dumps(
        payload, sort_keys=True, separators=(",", ":"), cls=DjangoJSONEncoder, ensure_ascii=False
    )
    return hashlib.sha256(text.encode()).hexdigest()


class Old:
    """The release's models, filled as its services would have."""

    def __init__(self, apps):
        self.apps = apps
        self.now = timezone.now().replace(microsecond=0) - timedelta(days=3)
        self.events = []

    def model(self, label):
        return self.apps.get_model(label)

    def places(self):
        state = self.model("accounts.State").objects.create(name="Uttar Pradesh", code="up")
        self.district = self.model("accounts.District").objects.create(
            state=state, name="Lucknow", code="lko", dm_office_name="Office of the DM, Lucknow"
        )
        station = self.model("accounts.PoliceStation").objects.create(
            district=self.district, name="Mohanlalganj", code="mlg"
        )
        self.pound = self.model("accounts.Pound").objects.create(
            district=self.district, nearest_police_station=station, name="Samesi Pound",
            code="sms", establishment_order="DM/12/2024", establishment_order_date="2024-01-02",
            active_from="2024-01-02",
        )  # fmt: skip

    def people(self):
        User, Assignment = self.model("accounts.User"), self.model("accounts.StaffAssignment")
        made = {}
        for username, role, where in (
            ("old_keeper", "pound_keeper", {"pound": self.pound}),
            ("old_clerk", "dm_clerk", {"district": self.district}),
        ):
            user = User.objects.create(
                username=username, password=make_password("unused"), preferred_language="en"
            )
            Assignment.objects.create(
                user=user, role=role, valid_from="2024-01-02", created_at=self.now, **where
            )
            made[username] = user
        self.keeper, self.clerk = made["old_keeper"], made["old_clerk"]

    def entry(self, serial, owner):
        at = self.now + timedelta(hours=serial)
        entry = self.model("impounding.Impoundment").objects.create(
            pound=self.pound, recorded_by=self.keeper, register_year=at.year,
            register_serial=serial, register_number=f"SMS/{at.year}/{serial:05d}", arrived_at=at,
            seized_at=at - timedelta(hours=1), seizure_place="Field by the canal", basis="s10",
            seizer_name="Ram Prasad", seizer_residence="Samesi", seizer_capacity="cultivator",
            owner_name=owner, recorded_at=at,
        )  # fmt: skip
        for number in (1, 2):
            self.model("impounding.Animal").objects.create(
                impoundment=entry, pound=self.pound, number=number, species="cattle",
                sex="female", age_class="adult", colour="white", photo="animals/old.jpg",
            )  # fmt: skip
        self.event(at, "register.entered", "s.8", f"{entry.register_number}: 2 animal(s)", entry)
        return entry

    def event(self, at, action, section, summary, entry):
        self.events.append(
            {"at": at, "by_id": self.keeper.pk, "action": action, "section": section,
             "summary": summary, "district_id": self.district.pk, "pound_id": self.pound.pk,
             "impoundment_id": entry.pk, "data": {"register_number": entry.register_number}}
        )  # fmt: skip

    def release(self, entry):
        at = entry.arrived_at + timedelta(days=1)
        document = self.model("accounts.IssuedDocument").objects.create(
            kind="receipt", number="SMS/2026-27/R/00001", issuing_office="Samesi Pound",
            issuing_office_hi="", subject_type="receipt", subject_id=0, sha256="", drawn_from="",
            pound=self.pound, issued_by=self.keeper, amount=FINES + FEEDING, issued_at=at,
        )  # fmt: skip
        receipt = self.model("impounding.Receipt").objects.create(
            pound=self.pound, financial_year="2026-27", serial=1, number=document.number,
            kind="payment", payer_name=entry.owner_name, amount=FINES + FEEDING,
            payment_mode="cash", document=document, issued_by=self.keeper, issued_at=at,
        )  # fmt: skip
        release = self.model("impounding.Release").objects.create(
            impoundment=entry, receipt=receipt, released_by=self.keeper, kind="s13",
            idempotency_key="0b3f7d52-4c1e-4f7a-9e55-3d2a1c0b9e8f", claimant_name=entry.owner_name,
            claimant_address="Samesi", claimant_role="owner", owner_name=entry.owner_name,
            fines=FINES, feeding=FEEDING, amount=FINES + FEEDING, payment_mode="cash",
            acknowledgement="register_page", register_page="12", signature="", released_at=at,
        )  # fmt: skip
        entry.animals.update(state="released_paid", release=release, custody_ended_at=at)
        self.post(at, entry)
        self.event(at, "release.paid", "s.13", f"2 animal(s) released ({receipt.number})", entry)

    def post(self, at, entry):
        """s.13's transaction: the till debited, the fines and the feeding money credited, and
        the month totals the release's `post()` kept beside the postings."""
        Account = self.model("ledger.Account")
        lines = [
            (Account.objects.create(district=self.district, pound=self.pound, kind="pound_cash"),
             FINES + FEEDING),
            (Account.objects.create(district=self.district, kind="fines_due_dm"), -FINES),
            (Account.objects.create(district=self.district, pound=self.pound, kind="feeding_pk"),
             -FEEDING),
        ]  # fmt: skip
        txn = self.model("ledger.Transaction").objects.create(
            district=self.district, pound=self.pound, kind="payment_s13", at=at, by=self.keeper,
            memo="Fines and feeding charges", section="s.13", source="impounding",
            impoundment_id=entry.pk,
        )  # fmt: skip
        month = timezone.localtime(at).date().replace(day=1)
        for account, amount in lines:
            self.model("ledger.Posting").objects.create(
                transaction=txn, account=account, amount=amount
            )
            self.model("ledger.AccountMonth").objects.create(
                account=account, pound=self.pound, kind=txn.kind, month=month, postings=1,
                debit=max(amount, Decimal("0.00")), credit=max(-amount, Decimal("0.00")),
            )  # fmt: skip

    def chain(self):
        Event, chain = self.model("kernel.Event"), f"pound:{self.pound.pk}"
        prev = GENESIS
        for seq, event in enumerate(sorted(self.events, key=lambda e: e["at"]), start=1):
            digest = link(chain, seq, prev, event)
            Event.objects.create(chain=chain, seq=seq, prev_hash=prev, hash=digest, **event)
            prev = digest
        self.model("kernel.ChainHead").objects.create(chain=chain, seq=len(self.events), hash=prev)

    def fill(self):
        with transaction.atomic():
            self.places()
            self.people()
            entries = [self.entry(n, owner) for n, owner in enumerate(("Shyam", "Mohan", ""), 1)]
            self.release(entries[0])
            self.chain()
        return entries


def command(name, *args):
    out = io.StringIO()
    try:
        call_command(name, *args, stdout=out, stderr=out)
        code = 0
    except SystemExit as stop:
        code = stop.code
    return {"exit": code, "output": out.getvalue()[-2000:]}


def pages(entries):
    """{page: (status, whether it shows the first entry's register number)}."""
    from accounts.models import User
    from tests.accounts.factories import force_login_with_second_factor

    number, seen = entries[0].register_number, {}
    for username, names in (
        ("old_keeper", [("home", []), ("impounding:register", []),
                        ("impounding:entry", [entries[0].pk]), ("impounding:today", [])]),
        ("old_clerk", [("office:office", []), ("office:returns", []),
                       ("office:money_trail", [entries[0].pk])]),
    ):  # fmt: skip
        client = Client()
        force_login_with_second_factor(client, User.objects.get(username=username))
        for name, args in names:
            page = client.get(reverse(name, args=args))
            seen[name] = [page.status_code, number in page.content.decode()]
    return seen


def main():
    release, apps = migrate_to_release()
    entries = Old(apps).fill()
    call_command("migrate", interactive=False, verbosity=0)
    return {
        "release": release.number,
        "entries": len(entries),
        "check_ledger": command("check_ledger", "--full"),
        "verify_chain": command("verify_chain", "--full"),
        "pages": pages(entries),
    }


if __name__ == "__main__":
    try:
        facts = main()
    finally:
        connection.close()
    sys.stdout.write(json.dumps(facts) + "\n")
