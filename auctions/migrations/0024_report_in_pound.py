"""How many of a report's animals are still in the pound (`Report.in_pound`, ADR 0094).

The officer's s.14 lists show only the reports with cattle still in the pound. They found those
by reading every animal in the pound with the reports naming it into a list of ids: at 1M entries,
a scan of all 262,000 report-animal links on each view (27 ms) and a list of 1,000 ids sent back.
Each report now carries its count, filled here for the reports already sent. The register's table
cannot point up at the sales' tables, so the database keeps the count, as migration 0023 keeps
the animals' notice day: a trigger on the report's links (a report sent) and one on the animals'
state (an animal released, sold, disposed of, escaped or back), whatever the writer: an app server
of the previous release during a rolling deploy, the seed, the admin or a service. Each adds or
takes one under the report row's lock, so two animals of one report released at once leave it
right. SQLite, the zero-setup default of `make run`, gets the same triggers in its own dialect.
"""

from django.db import migrations, models

IMPOUNDED = "impounded"

BACKFILL = f"""
UPDATE auctions_report AS r SET in_pound = counted.n
    FROM (
        SELECT m.report_id, count(*) AS n
        FROM auctions_report_animals m JOIN impounding_animal a ON a.id = m.animal_id
        WHERE a.state = '{IMPOUNDED}'
        GROUP BY m.report_id
    ) AS counted
    WHERE r.id = counted.report_id AND r.in_pound <> counted.n
"""

POSTGRESQL = f"""
CREATE OR REPLACE FUNCTION auctions_report_link_counts() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE auctions_report SET in_pound = in_pound - 1
            WHERE id = OLD.report_id
            AND EXISTS (
                SELECT 1 FROM impounding_animal WHERE id = OLD.animal_id AND state = '{IMPOUNDED}'
            );
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE auctions_report SET in_pound = in_pound + 1
            WHERE id = NEW.report_id
            AND EXISTS (
                SELECT 1 FROM impounding_animal WHERE id = NEW.animal_id AND state = '{IMPOUNDED}'
            );
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER auctions_report_link_counts
    AFTER INSERT OR DELETE OR UPDATE OF report_id, animal_id ON auctions_report_animals
    FOR EACH ROW EXECUTE FUNCTION auctions_report_link_counts();

CREATE OR REPLACE FUNCTION auctions_animal_state_counts() RETURNS trigger AS $$
BEGIN
    UPDATE auctions_report
        SET in_pound = in_pound + CASE WHEN NEW.state = '{IMPOUNDED}' THEN 1 ELSE -1 END
        WHERE id IN (SELECT report_id FROM auctions_report_animals WHERE animal_id = NEW.id);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER auctions_animal_state_counts
    AFTER UPDATE OF state ON impounding_animal
    FOR EACH ROW
    WHEN ((OLD.state = '{IMPOUNDED}') IS DISTINCT FROM (NEW.state = '{IMPOUNDED}'))
    EXECUTE FUNCTION auctions_animal_state_counts();
"""

POSTGRESQL_BACKWARD = """
DROP TRIGGER IF EXISTS auctions_animal_state_counts ON impounding_animal;
DROP FUNCTION IF EXISTS auctions_animal_state_counts();
DROP TRIGGER IF EXISTS auctions_report_link_counts ON auctions_report_animals;
DROP FUNCTION IF EXISTS auctions_report_link_counts();
"""


def _sqlite_is_impounded(row):
    """1 when the link's animal is in the pound, else 0 (SQLite's triggers have no IF)."""
    return (
        f"(SELECT count(*) FROM impounding_animal"
        f" WHERE id = {row}.animal_id AND state = '{IMPOUNDED}')"
    )


SQLITE = [
    f"""
    CREATE TRIGGER auctions_report_link_added AFTER INSERT ON auctions_report_animals
    BEGIN
        UPDATE auctions_report SET in_pound = in_pound + {_sqlite_is_impounded("NEW")}
            WHERE id = NEW.report_id;
    END
    """,
    f"""
    CREATE TRIGGER auctions_report_link_removed AFTER DELETE ON auctions_report_animals
    BEGIN
        UPDATE auctions_report SET in_pound = in_pound - {_sqlite_is_impounded("OLD")}
            WHERE id = OLD.report_id;
    END
    """,
    f"""
    CREATE TRIGGER auctions_animal_state_counts AFTER UPDATE OF state ON impounding_animal
    WHEN (OLD.state = '{IMPOUNDED}') IS NOT (NEW.state = '{IMPOUNDED}')
    BEGIN
        UPDATE auctions_report
            SET in_pound = in_pound + CASE WHEN NEW.state = '{IMPOUNDED}' THEN 1 ELSE -1 END
            WHERE id IN (SELECT report_id FROM auctions_report_animals WHERE animal_id = NEW.id);
    END
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS auctions_report_link_added",
    "DROP TRIGGER IF EXISTS auctions_report_link_removed",
    "DROP TRIGGER IF EXISTS auctions_animal_state_counts",
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRESQL, params=None)
    else:
        for statement in SQLITE:
            schema_editor.execute(statement, params=None)
    schema_editor.execute(BACKFILL, params=None)


def backward(apps, schema_editor):
    statements = [POSTGRESQL_BACKWARD] if schema_editor.connection.vendor == "postgresql" else []
    for statement in statements or SQLITE_BACKWARD:
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("auctions", "0023_animals_under_notice"),
        ("impounding", "0031_complaint_pending_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="report",
            name="in_pound",
            field=models.IntegerField(db_default=0, default=0, verbose_name="animals in the pound"),
        ),
        migrations.RunPython(forward, backward),
    ]
