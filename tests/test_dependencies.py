"""What the product imports is installed in production: every third-party module that an app,
the project package or the shipped gunicorn configuration imports comes from a distribution
pinned in requirements.lock (the image and `scripts/bootstrap run` install that file alone).
A library added to the dev extra only would pass every test and fail on the first request."""

import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

from tests.test_layout import APPS

ROOT = Path(__file__).resolve().parents[1]


def _product_files():
    yield ROOT / "gunicorn.conf.py"
    yield ROOT / "manage.py"
    for app in APPS:
        if app == "demo":  # installed only with DEBUG or DEMO (ADR 0049)
            continue
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" not in path.parts:
                yield path


def _top_level_imports(path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module.split(".")[0]


def _normal(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _pinned():
    text = (ROOT / "requirements.lock").read_text()
    return {_normal(m) for m in re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", text, re.M)}


def third_party_imports():
    first_party = {*APPS, "tests"}
    return {
        name
        for path in _product_files()
        for name in _top_level_imports(path)
        if name not in sys.stdlib_module_names and name not in first_party
    }


def test_every_module_the_product_imports_is_pinned_for_production():
    distributions = packages_distributions()
    pinned = _pinned()
    missing = {
        module: distributions.get(module, ["(no distribution installed)"])
        for module in third_party_imports()
        if not any(_normal(d) in pinned for d in distributions.get(module, []))
    }
    assert missing == {}, "add these to [project] dependencies and to requirements.lock"


def test_the_check_sees_a_dev_only_library():
    assert "pytest" not in _pinned()
    assert "pypdf" in _pinned()  # read by kernel/uploads.py on every scan
