"""The public board lists the animals in the pound that a s.14 notice names. Reading that from the
notices meant joining every report ever made to its animals and notices (262,000 rows at 1M
entries, 70 ms on each view of the board). Each animal now carries the day of its latest notice
(`Animal.notice_posted_on`), filled here for the notices already posted. The register's table
cannot point up at the sales' tables, so PostgreSQL keeps the column from here: a trigger marks
the report's animals as each notice is posted, whatever the writer (an app server of the
previous release during a rolling deploy included). The notice's service sets it too, for
SQLite.
"""

from django.db import migrations
from django.db.models import Max

FORWARD = """
UPDATE impounding_animal a SET notice_posted_on = latest.posted_on
    FROM (
        SELECT m.animal_id, max(n.posted_on) AS posted_on
        FROM auctions_report_animals m JOIN auctions_notice n ON n.report_id = m.report_id
        GROUP BY m.animal_id
    ) latest
    WHERE a.id = latest.animal_id
        AND a.notice_posted_on IS DISTINCT FROM latest.posted_on;

-- The planner's statistics of the new column now, not at autovacuum's next pass: without them
-- it guesses that most animals carry a notice and joins every report to find the few that do.
ANALYZE impounding_animal (notice_posted_on);

CREATE OR REPLACE FUNCTION auctions_notice_marks_animals() RETURNS trigger AS $$
BEGIN
    UPDATE impounding_animal SET notice_posted_on = NEW.posted_on
        WHERE id IN (
            SELECT animal_id FROM auctions_report_animals WHERE report_id = NEW.report_id
        )
        AND (notice_posted_on IS NULL OR notice_posted_on < NEW.posted_on);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER auctions_notice_marks_animals
    AFTER INSERT OR UPDATE OF posted_on, report_id ON auctions_notice
    FOR EACH ROW EXECUTE FUNCTION auctions_notice_marks_animals();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS auctions_notice_marks_animals ON auctions_notice;
DROP FUNCTION IF EXISTS auctions_notice_marks_animals();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)
        return
    Animal = apps.get_model("impounding", "Animal")
    db = schema_editor.connection.alias
    noticed = (
        Animal.objects.using(db)
        .filter(reports__notice__isnull=False)
        .annotate(latest=Max("reports__notice__posted_on"))
    )
    for animal in noticed:
        animal.notice_posted_on = animal.latest
        animal.save(using=db, update_fields=["notice_posted_on"])


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("auctions", "0022_sale_and_notice_list_indexes"),
        ("impounding", "0025_animal_notice_posted_on"),
    ]

    operations = [migrations.RunPython(forward, backward)]
