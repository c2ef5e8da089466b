"""A database of a test's own, beside the test database, for the scenarios that run the code in
a process of its own (tests/kernel/test_upgrade.py, tests/kernel/test_old_code.py)."""

import re

import psycopg
import pytest
from django.db import connection


def _superuser():
    s = connection.settings_dict
    return psycopg.connect(
        dbname="postgres",
        user=s["USER"],
        password=s["PASSWORD"] or None,
        host=s["HOST"] or None,
        port=s["PORT"] or None,
        autocommit=True,
    )


@pytest.fixture
def empty_database():
    """The URL of an empty database of the test's own, dropped after."""
    s = connection.settings_dict
    name = re.sub(r"[^a-z0-9_]", "_", s["NAME"].lower())[:40] + "_upgrade"
    with _superuser() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    secret = f":{s['PASSWORD']}" if s["PASSWORD"] else ""
    host, port = s["HOST"] or "127.0.0.1", s["PORT"] or 5432
    try:
        yield f"postgres://{s['USER'] or 'postgres'}{secret}@{host}:{port}/{name}"
    finally:
        with _superuser() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
