"""Migration operations of our own (docs/operations.md).

An index on a big table is built CONCURRENTLY by a migration that sets `atomic = False`
(`tests/test_migration_safety.py` holds every migration after the initial ones to it). Django's
`AddIndexConcurrently` works on PostgreSQL alone; these fall back to a plain CREATE or DROP INDEX
on SQLite, the development and demo database, where nothing else waits on the table."""

from django.contrib.postgres import operations as postgres
from django.db import migrations


class AddIndexConcurrently(postgres.AddIndexConcurrently):
    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
        else:
            migrations.AddIndex.database_forwards(
                self, app_label, schema_editor, from_state, to_state
            )

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
        else:
            migrations.AddIndex.database_backwards(
                self, app_label, schema_editor, from_state, to_state
            )


class RemoveIndexConcurrently(postgres.RemoveIndexConcurrently):
    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
        else:
            migrations.RemoveIndex.database_forwards(
                self, app_label, schema_editor, from_state, to_state
            )

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
        else:
            migrations.RemoveIndex.database_backwards(
                self, app_label, schema_editor, from_state, to_state
            )
