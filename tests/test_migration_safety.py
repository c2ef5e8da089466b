"""What a migration may do on a deployed database (docs/operations.md):

- a data step queries through the connection it is given (`schema_editor.connection.alias`),
  never `Model.objects` bare, which is the runtime role's connection;
- an index on a big table (1 million register entries, their animals, events and postings) is
  built CONCURRENTLY, outside a transaction: only the initial migrations, which create empty
  tables, build theirs inside one;
- every extension a migration creates is created by the superuser's step first
  (`kernel.dbroles.EXTENSIONS`, `manage.py db_roles --create`)."""

import inspect
import re
import sys
from types import SimpleNamespace

from django.contrib.postgres.operations import AddIndexConcurrently, CreateExtension
from django.db import connection, migrations, models
from django.db.migrations.loader import MigrationLoader

from kernel import operations
from kernel.dbroles import EXTENSIONS, create_roles_sql
from tests.test_migrations import OURS

BIG = {
    ("impounding", "impoundment"),
    ("impounding", "animal"),
    ("ledger", "transaction"),
    ("ledger", "posting"),
    ("kernel", "event"),
    ("kernel", "eventpersonal"),
}
BIG_TABLES = {f"{app}_{model}" for app, model in BIG}
PLAIN_INDEX_SQL = re.compile(
    r"CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?!CONCURRENTLY)[^;]*?\bON\s+(?:ONLY\s+)?\"?(\w+)", re.I
)
BARE_MANAGER = re.compile(r"\.objects\.(?!using\()")
CREATE_EXTENSION = re.compile(r"CREATE\s+EXTENSION\s+(?:IF\s+NOT\s+EXISTS\s+)?\"?(\w+)", re.I)


def _loader():
    return MigrationLoader(None, ignore_no_migrations=True)


def _ours(loader):
    return {key: m for key, m in loader.disk_migrations.items() if key[0] in OURS}


def _source(migration):
    return inspect.getsource(sys.modules[migration.__module__])


def _builds_index(operation, app, state):
    """Whether `operation`, applied to `state`, builds an index on a big table in place."""
    model = getattr(operation, "model_name_lower", None)
    if (app, model) not in BIG or isinstance(operation, AddIndexConcurrently):
        return False
    if isinstance(operation, migrations.AddIndex):
        return True
    if isinstance(operation, migrations.AddConstraint):
        return isinstance(operation.constraint, models.UniqueConstraint)
    field = getattr(operation, "field", None)
    if isinstance(operation, migrations.AddField):
        return bool(field.db_index or field.unique)
    if isinstance(operation, migrations.AlterField):
        old = state.models[app, model].fields[operation.name]
        return (field.db_index and not old.db_index) or (field.unique and not old.unique)
    return False


def _sql(migration):
    """The SQL a migration may run: its RunSQL, and for a RunPython its module's source (the code
    and the SQL constants it executes)."""
    texts = [str(op.sql) for op in migration.operations if isinstance(op, migrations.RunSQL)]
    if any(isinstance(op, migrations.RunPython) for op in migration.operations):
        texts.append(_source(migration))
    return "\n".join(texts)


def plain_index_builds(migration, state):
    """What `migration` (from `state`, the project before it) builds on a big table without
    CONCURRENTLY: its operations and the big tables its SQL indexes."""
    state = state.clone()
    found = []
    for operation in migration.operations:
        # SeparateDatabaseAndState: what reaches the database is its database_operations.
        for step in getattr(operation, "database_operations", [operation]):
            if _builds_index(step, migration.app_label, state):
                found.append(f"{migration.app_label}.{migration.name}: {step.describe()}")
        operation.state_forwards(migration.app_label, state)
    tables = PLAIN_INDEX_SQL.findall(_sql(migration))
    found += [
        f"{migration.app_label}.{migration.name}: index on {t}" for t in tables if t in BIG_TABLES
    ]
    return found


def test_indexes_on_the_big_tables_are_built_concurrently_after_the_initial_migrations():
    loader = _loader()
    found = []
    for key, migration in sorted(_ours(loader).items()):
        if migration.initial or key[1].startswith("0001_"):
            continue  # creates empty tables: concurrency would buy nothing
        found += plain_index_builds(migration, loader.project_state(key, at_end=False))
        if any(isinstance(op, AddIndexConcurrently) for op in migration.operations):
            assert migration.atomic is False, key
    assert found == []


def test_the_rule_catches_a_plain_index_on_the_register():
    state = _loader().project_state()
    index = models.Index(fields=["state"], name="animal_state_idx")
    flagged = models.CharField(max_length=9, db_index=True)

    class Plain(migrations.Migration):
        operations = [
            migrations.AddIndex("animal", index),
            migrations.AddField("impoundment", "note", flagged),
            migrations.RunSQL("CREATE INDEX event_at ON kernel_event (at)"),
        ]

    class Concurrent(migrations.Migration):
        atomic = False
        operations = [
            AddIndexConcurrently("animal", index),
            operations.AddIndexConcurrently("impoundment", index),
            migrations.RunSQL("CREATE INDEX CONCURRENTLY event_at ON kernel_event (at)"),
        ]

    class Separate(migrations.Migration):
        operations = [
            migrations.SeparateDatabaseAndState(
                database_operations=[migrations.AddIndex("animal", index)]
            )
        ]

    assert len(plain_index_builds(Plain("0099_plain", "impounding"), state)) == 3
    assert len(plain_index_builds(Separate("0099_separate", "impounding"), state)) == 1
    assert plain_index_builds(Concurrent("0099_concurrent", "impounding"), state) == []


def test_a_concurrent_index_is_a_plain_one_on_sqlite():
    """The development and demo database has no CONCURRENTLY; our operation builds it plainly."""
    built = []
    editor = SimpleNamespace(
        connection=SimpleNamespace(vendor="sqlite", alias="default"),
        add_index=lambda model, index: built.append((model._meta.db_table, index.name)),
    )
    index = models.Index(fields=["state"], name="animal_state_idx")
    state = _loader().project_state()
    operation = operations.AddIndexConcurrently("animal", index)
    operation.database_forwards("impounding", editor, state, state)
    assert built == [("impounding_animal", "animal_state_idx")]


def test_data_steps_use_the_connection_they_are_given():
    bare = [
        f"{app}.{name}"
        for (app, name), migration in _ours(_loader()).items()
        if any(isinstance(op, migrations.RunPython) for op in migration.operations)
        and BARE_MANAGER.search(_source(migration))
    ]
    assert bare == []


def test_the_superusers_step_creates_every_extension_the_migrations_use():
    ours = _ours(_loader()).values()
    used = {name for migration in ours for name in CREATE_EXTENSION.findall(_sql(migration))}
    used |= {op.name for m in ours for op in m.operations if isinstance(op, CreateExtension)}
    assert "pg_trgm" in used
    assert used <= set(EXTENSIONS)
    created = " ".join(
        create_roles_sql(owner="o", runtime="r", database="d", connection=connection)
    )
    assert all(f'CREATE EXTENSION IF NOT EXISTS "{name}"' in created for name in EXTENSIONS)
