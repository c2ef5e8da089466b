"""Every event action has a translated label: each app declares its actions as an enum, services
pass the enum's members (never a bare string), and every member is registered and in Hindi."""

import ast
from pathlib import Path

import pytest
from django.utils import translation

from accounts.actions import Action as AccountsAction
from auctions.actions import Action as AuctionAction
from impounding.actions import Action as ImpoundingAction
from kernel.events import action_label, registered_actions
from office.actions import Action as OfficeAction

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "ledger", "impounding", "auctions", "office", "kernel")
ENUMS = (AccountsAction, ImpoundingAction, AuctionAction, OfficeAction)


def _record_event_calls():
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "record_event":
                    yield path.relative_to(ROOT), node


def _is_enum_member(value):
    """`Action.NAME`, or `Action(f"...")`, which raises unless the value is a member."""
    if isinstance(value, ast.IfExp):
        return _is_enum_member(value.body) and _is_enum_member(value.orelse)
    if isinstance(value, ast.Attribute):
        return getattr(value.value, "id", None) == "Action"
    if isinstance(value, ast.Call):
        return getattr(value.func, "id", None) == "Action"
    return False


def test_services_record_events_with_an_action_of_their_apps_enum():
    calls = list(_record_event_calls())
    assert len(calls) >= 40
    bare = [
        f"{path}:{node.lineno}"
        for path, node in calls
        for kw in node.keywords
        if kw.arg == "action" and not _is_enum_member(kw.value)
    ]
    assert bare == []


def test_every_action_of_every_app_is_registered():
    members = {member.value for enum in ENUMS for member in enum}
    assert members <= registered_actions()
    assert len(members) == sum(len(enum) for enum in ENUMS), "an action is declared twice"


@pytest.mark.parametrize("action", [m for enum in ENUMS for m in enum], ids=str)
def test_every_action_has_a_label_in_english_and_hindi(action):
    with translation.override("en"):
        english = str(action_label(action.value))
    with translation.override("hi"):
        hindi = str(action_label(action.value))
    assert english != action.value
    assert hindi != english


def test_an_unknown_action_shows_as_itself():
    assert action_label("nothing.known") == "nothing.known"
