"""The floors hold for models too: a model points only at models on its own floor or below,
whether its relation is written as an import or as a string. import-linter checks the imports;
this checks the relations Django resolved, which a string such as "auctions.Lot" would hide."""

import tomllib
from pathlib import Path

from django.apps import apps

# Bottom to top; the domain's three apps share a floor (ADR 0044), and the API and the webhooks
# share the top one, independent of each other (ADR 0051).
FLOORS = [
    ("kernel",),
    ("accounts",),
    ("ledger", "rulepacks"),
    ("impounding", "auctions", "office", "payments", "messaging"),
    ("api", "webhooks"),
]
INDEPENDENT = [{"api", "webhooks"}, {"ledger", "rulepacks"}]
APPS = [app for floor in FLOORS for app in floor]


def _floor(label):
    """The floor of an app; Django's own apps and libraries sit below the kernel."""
    return next((i for i, floor in enumerate(FLOORS) if label in floor), -1)


def _relations():
    for model in apps.get_models(include_auto_created=True):
        if model._meta.app_label not in APPS:
            continue  # Django's own apps (the admin's log points at the user model, by design)
        for field in model._meta.get_fields(include_hidden=True):
            if field.is_relation and field.concrete and field.related_model is not None:
                yield model, field


def _allowed(source, target):
    """May a model of app `source` point at one of app `target`?"""
    if source != target and any({source, target} <= pair for pair in INDEPENDENT):
        return False
    return _floor(target) <= _floor(source)


def test_every_relation_points_down_or_sideways():
    upward = [
        f"{model._meta.label}.{field.name} -> {field.related_model._meta.label}"
        for model, field in _relations()
        if not _allowed(model._meta.app_label, field.related_model._meta.app_label)
    ]
    assert upward == []


def test_the_api_and_the_webhooks_may_not_point_at_each_other():
    assert not _allowed("api", "webhooks") and not _allowed("webhooks", "api")
    assert _allowed("webhooks", "kernel") and _allowed("auctions", "office")


def test_the_kernel_event_log_points_at_nothing_of_ours():
    """The log names the records it is about by kind and id; its only relation is the kernel's
    own table of an event's personal fields (kept apart from the chain, ADR 0010)."""
    event = apps.get_model("kernel", "Event")
    related = {
        f.name: f.related_model._meta.label for f in event._meta.get_fields() if f.is_relation
    }
    assert related == {"personal_fields": "kernel.EventPersonal"}


def test_the_floors_are_the_installed_apps_in_order():
    ours = [c.label for c in apps.get_app_configs() if c.label in APPS]
    assert ours == APPS


def test_every_app_of_ours_is_held_by_the_floor_contract():
    """An app the contract's root packages do not list is not checked at all."""
    root = Path(__file__).resolve().parents[1]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    roots = set(pyproject["tool"]["importlinter"]["root_packages"])
    ours = {c.name for c in apps.get_app_configs() if Path(c.path).parent == root}
    assert "kernel" in ours and ours <= roots
