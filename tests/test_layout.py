"""The layout the floor contracts cannot see (ADR 0044): no module imports another app's views,
and no private name (`_name`) is imported from another module."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = (
    "poundadmin",
    "kernel",
    "accounts",
    "ledger",
    "rulepacks",
    "impounding",
    "auctions",
    "office",
    "payments",
    "messaging",
    "api",
    "webhooks",
    "demo",
)

# Known crossings, each to be removed as its code moves to a selector or a service. Shrink only.
PRIVATE_ALLOWED: set[tuple[str, str, str]] = set()
VIEWS_ALLOWED: set[tuple[str, str]] = set()
# The kernel's helpers for views (keyset paging, service errors on a form), not a screen's view.
KERNEL_HELPERS = {"kernel.views"}


def _modules():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            yield ".".join(parts), is_package, path


def _imports(module, is_package, path):
    """(imported module, name or None) for every import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield base, alias.name


def _is_view(module):
    if any(module == m or module.startswith(f"{m}.") for m in KERNEL_HELPERS):
        return False
    parts = module.split(".")
    return len(parts) >= 2 and parts[0] in APPS and parts[1] == "views"


def _app(module):
    return module.split(".")[0]


def crossings():
    private, views = set(), set()
    for module, is_package, path in _modules():
        for target, name in _imports(module, is_package, path):
            if _app(target) not in APPS:
                continue
            full = f"{target}.{name}" if name else target
            if name and name.startswith("_") and not name.startswith("__") and target != module:
                private.add((module, target, name))
            for imported in {target, full}:
                if not _is_view(imported) or module == f"{_app(imported)}.urls":
                    continue
                if _app(module) == "poundadmin":  # the project's URLs wire every app's views
                    continue
                if not _is_view(module) or _app(imported) != _app(module):
                    views.add((module, target))
    return private, views


def test_no_private_name_crosses_modules():
    private, _views = crossings()
    assert private <= PRIVATE_ALLOWED, sorted(private - PRIVATE_ALLOWED)


def test_no_module_imports_another_apps_views():
    _private, views = crossings()
    assert views <= VIEWS_ALLOWED, sorted(views - VIEWS_ALLOWED)


def test_the_checks_see_a_crossing(tmp_path):
    # The walker resolves a relative import and finds the private name in it.
    source = tmp_path / "views.py"
    source.write_text("from ..services.releases import _cash_account\n")
    found = set(_imports("impounding.views.x", False, source))
    assert ("impounding.services.releases", "_cash_account") in found
