"""`manage.py seed_scale --jobs 2`: the pounds seeded at once in worker processes give the data
set one process gives, bar its ids, and the books, the chain and the bodies' capacity agree.

The workers open their own connections, so they see only what is committed: these tests run
outside the test's transaction, and the one-process run they compare with is rolled back."""

import re
from collections import Counter as Counter_
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import models, transaction
from django.utils import timezone

from accounts.models import IssuedDocument
from accounts.scoping import system_actor
from auctions.models import Gaushala
from auctions.services import gaushala
from demo import scale
from demo.scale import gaushalas, master, plan, sales
from impounding.models import Animal
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from tests.demo.test_seed_scale import _receipts_are_gapless

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(300),
]

# Columns whose values come from ids, and the scan's stored name (the second run's upload is
# renamed beside the first's).
FROM_IDS = {
    "accounts.IssuedDocument": {"subject_id"},
    "impounding.CourtOrder": {"scan"},
    "ledger.Transaction": {"source", "impoundment_id", "memo"},
}


def _seed(jobs, now):
    return scale.seed(entries=500, seed=7, pounds=4, districts=3, now=now, jobs=jobs)


def _rows():
    """Every row the pounds wrote, its ids and foreign keys left out, and the event log's
    actions on each kind of chain (its links hash ids)."""
    found = {}
    for model in [*scale.TABLES, IssuedDocument, Animal]:
        label = model._meta.label
        fields = [
            f.attname
            for f in model._meta.concrete_fields
            if not f.primary_key
            and not isinstance(f, models.ForeignKey)
            and f.attname not in FROM_IDS.get(label, ())
        ]
        found[label] = Counter_(
            tuple(_comparable(v) for v in row) for row in model.objects.values_list(*fields)
        )
    found["events"] = Counter_(
        (chain.split(":")[0], action)
        for chain, action in Event.objects.values_list("chain", "action")
    )
    return found


def _comparable(value):
    if isinstance(value, list | dict):
        return repr(value)
    if isinstance(value, str):
        # A payment's reference, a challan, an s.16 account: numbered by their rows' ids.
        return re.sub(r"\d{9,}", "#", re.sub(r"^ACC/(.*)/\d+$", r"ACC/\1", value))
    return value


def test_two_workers_write_the_rows_one_process_writes(monkeypatch):
    """More cattle handed to the bodies than they have room for, so that each pound's part of
    the room fills: where the pounds took the room in turn, the rows would depend on the order
    the workers happened to finish in."""
    monkeypatch.setattr(plan, "UNCLAIMED", 0.3)
    monkeypatch.setattr(sales, "SOLD", 0.1)
    monkeypatch.setattr(gaushalas, "CAPACITY", 12)
    now = timezone.now().replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
    # The master rows once, kept: a body's days of claiming follow its id.
    master.build(districts=3, pounds=4)
    system_actor()
    with transaction.atomic():
        one = _seed(1, now)
        rows = _rows()
        transaction.set_rollback(True)
    two = _seed(2, now)
    assert two.counts == one.counts and one.counts["entries"] == 500
    got = _rows()
    assert got.keys() == rows.keys()
    for table in rows:
        assert got[table] == rows[table], table
    held = [gaushala.held_by(body, pending=True) for body in Gaushala.objects.all()]
    assert max(held) == 12 and all(head <= 12 for head in held)  # full, never beyond
    assert run_checks() == []
    assert verify_chain() == []
    _receipts_are_gapless()
    assert "every balance agrees" in _command("check_ledger", "--full")
    assert "every link holds" in _command("verify_chain", "--full")


def _command(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_a_failing_worker_fails_the_seed_with_its_traceback(monkeypatch):
    def broken(rows, entries):
        raise ValueError("a broken pound")

    monkeypatch.setattr(sales, "unclaimed", broken)
    with pytest.raises(scale.WorkerFailed, match="(?s)pound .*ValueError: a broken pound"):
        call_command("seed_scale", entries=40, pounds=3, districts=1, jobs=2, stdout=StringIO())


def test_workers_refused_inside_a_transaction():
    with transaction.atomic(), pytest.raises(CommandError, match="jobs=1"):
        call_command("seed_scale", entries=10, pounds=2, districts=1, jobs=2, stdout=StringIO())
