"""A ledger memo names no member of the public (docs/retention.md): the ledger is append-only,
so a name written into a memo could never be erased when the retention rule erases the person
from the register. A memo names the documents (the receipt, the lot, the account), which lead
to the person while he is kept."""

import ast
from pathlib import Path

import pytest

from ledger.models import Transaction
from tests.impounding.factories import cow, make_entry, pay

ROOT = Path(__file__).resolve().parents[2]
APPS = ("impounding", "auctions", "office", "ledger", "accounts", "demo")
# The fields that hold a member of the public's name (the register's, the claims', the sales').
PERSONAL = {
    "claimant_name",
    "owner_name",
    "complainant_name",
    "seizer_name",
    "recipient",
    "name",
    "address",
    "phone",
}


def _memo_values():
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.keyword) and node.arg == "memo":
                    yield path.relative_to(ROOT), node.lineno, node.value


def test_no_memo_is_written_from_a_personal_field():
    offenders = []
    for path, line, value in _memo_values():
        for node in ast.walk(value):
            if isinstance(node, ast.Attribute) and node.attr in PERSONAL:
                offenders.append(f"{path}:{line} .{node.attr}")
            elif isinstance(node, ast.Name) and node.id in {"claimant", "buyer_name", "owner"}:
                offenders.append(f"{path}:{line} {node.id}")
    assert offenders == []


def test_the_guard_sees_memos():
    assert sum(1 for _ in _memo_values()) >= 10


@pytest.mark.django_db
def test_a_release_posts_a_memo_without_the_claimants_name(pound, pound_keeper, tariffs):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
    pay(entry, pound_keeper, claimant_name="Shyam Lal Yadav")

    memos = list(Transaction.objects.values_list("memo", flat=True))
    assert memos and not any("Shyam" in memo for memo in memos)
    assert any(entry.register_number in memo for memo in memos)
