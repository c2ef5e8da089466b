"""Production's PostgreSQL settings (deploy/postgresql/poundadmin.conf, ADR 0064): read, applied
to a database with ALTER DATABASE ... SET, and compared with what a connection has.

The figures of docs/capacity.md rely on them (planner costs, JIT, work memory, statistics), so
they are part of the product: `manage.py db_settings` applies them, `/healthz/ready` names any a
database lacks (a warning, never a failure: readiness must not flap on a setting), and the bench
runs once at PostgreSQL's defaults and once with them.
"""

import re
from pathlib import Path

from django.conf import settings

LINE = re.compile(r"^\s*([a-z_]+)\s*=\s*'?([^'#]*?)'?\s*(?:#.*)?$")


def conf_path():
    return Path(settings.BASE_DIR) / "deploy" / "postgresql" / "poundadmin.conf"


def wanted(path=None):
    """{name: value} of the file's settings, in its order (comment lines skipped)."""
    found = {}
    for line in (path or conf_path()).read_text().splitlines():
        match = LINE.match(line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def apply_sql(database, values=None):
    """The statements that give `database` the settings, for its new connections."""
    values = values if values is not None else wanted()
    quoted = database.replace('"', '""')
    return [f"ALTER DATABASE \"{quoted}\" SET {name} = '{value}'" for name, value in values.items()]


def reset_sql(database, values=None):
    """The statements that put `database` back on the cluster's values (the bench's defaults)."""
    values = values if values is not None else wanted()
    quoted = database.replace('"', '""')
    return [f'ALTER DATABASE "{quoted}" RESET {name}' for name in values]


def differences(cursor, values=None):
    """{name: (wanted, what this connection has)} for each setting that is not as wanted."""
    values = values if values is not None else wanted()
    cursor.execute(
        "SELECT name, current_setting(name) FROM unnest(%s::text[]) AS name", [list(values)]
    )
    have = dict(cursor.fetchall())
    return {
        name: (value, have.get(name))
        for name, value in values.items()
        if have.get(name, "").lower() != value.lower()
    }
