"""Each s.15 deposit carries the state of the complaints that decide it (docs/decisions/0092):
"none", "pending", "upheld" or "dismissed", by the rule of office.dashboard.complaints_of (the
complaints naming the deposit, else the entry's complaints that name none). The office's queues
of held deposits ("to apply", "held") are then conditions on the deposit's own row: they read
every held deposit and every complaint about them into Python, and named them back to
PostgreSQL in lists of thousands of ids (1,760 held deposits at 1M entries; docs/capacity.md).

PostgreSQL keeps the column, as it keeps the deposit's pound (0023): after any change to a
complaint, a trigger works out again the state of every deposit of the complaint's entry (and of
its old entry, were a complaint moved); a new deposit takes the state of its entry's complaints
that name no deposit. So a writer that does not know the column (an app server of the previous
release during a rolling deploy, the scale seed's COPY) cannot leave a deposit in the wrong
queue. On SQLite the models' save() does it (impounding.models.complaint_states).

The column is added with its default, which PostgreSQL writes into the catalogue, not into every
row; the deposits that some complaint concerns are then worked out, one entry at a time (the
complaints are few: 7,776 at 1M entries)."""

from django.db import migrations, models

STATE = """
    CASE WHEN bool_or(c.outcome = 'pending') THEN 'pending'
         WHEN bool_or(c.outcome = 'upheld') THEN 'upheld'
         WHEN bool_or(c.outcome = 'dismissed') THEN 'dismissed'
         ELSE 'none' END
"""

FORWARD = f"""
CREATE OR REPLACE FUNCTION impounding_deposit_complaint_states(entry bigint) RETURNS void AS $$
BEGIN
    UPDATE impounding_deposit d SET complaint_state = s.state
    FROM (
        SELECT d2.id, {STATE} AS state
        FROM impounding_release r
        JOIN impounding_deposit d2 ON d2.release_id = r.id
        LEFT JOIN impounding_complaint c ON c.impoundment_id = r.impoundment_id
            AND (c.deposit_id = d2.id OR (c.deposit_id IS NULL AND NOT EXISTS (
                SELECT 1 FROM impounding_complaint l WHERE l.deposit_id = d2.id)))
        WHERE r.impoundment_id = entry
        GROUP BY d2.id
    ) s
    WHERE d.id = s.id AND d.complaint_state IS DISTINCT FROM s.state;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION impounding_complaint_states() RETURNS trigger AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM impounding_deposit_complaint_states(OLD.impoundment_id);
    END IF;
    IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.impoundment_id <> OLD.impoundment_id) THEN
        PERFORM impounding_deposit_complaint_states(NEW.impoundment_id);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS impounding_complaint_states ON impounding_complaint;
CREATE TRIGGER impounding_complaint_states
    AFTER INSERT OR DELETE OR UPDATE OF outcome, deposit_id, impoundment_id
    ON impounding_complaint
    FOR EACH ROW EXECUTE FUNCTION impounding_complaint_states();

CREATE OR REPLACE FUNCTION impounding_deposit_complaint_state() RETURNS trigger AS $$
BEGIN
    SELECT {STATE} INTO NEW.complaint_state
        FROM impounding_release r
        JOIN impounding_complaint c
            ON c.impoundment_id = r.impoundment_id AND c.deposit_id IS NULL
        WHERE r.id = NEW.release_id;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS impounding_deposit_complaint_state ON impounding_deposit;
CREATE TRIGGER impounding_deposit_complaint_state
    BEFORE INSERT ON impounding_deposit
    FOR EACH ROW EXECUTE FUNCTION impounding_deposit_complaint_state();

SELECT impounding_deposit_complaint_states(e.impoundment_id)
    FROM (SELECT DISTINCT impoundment_id FROM impounding_complaint) e;

-- The planner's statistics of the new column now, not at autovacuum's next pass: without them
-- it guessed a dozen deposits in the office's "held" list (852 at 1M) and sorted them all.
ANALYZE impounding_deposit (complaint_state);
"""
BACKWARD = """
DROP TRIGGER IF EXISTS impounding_deposit_complaint_state ON impounding_deposit;
DROP FUNCTION IF EXISTS impounding_deposit_complaint_state();
DROP TRIGGER IF EXISTS impounding_complaint_states ON impounding_complaint;
DROP FUNCTION IF EXISTS impounding_complaint_states();
DROP FUNCTION IF EXISTS impounding_deposit_complaint_states(bigint);
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)
        return
    from impounding.models.complaint_states import state_of

    db = schema_editor.connection.alias
    Deposit = apps.get_model("impounding", "Deposit")
    Complaint = apps.get_model("impounding", "Complaint")
    complaints = list(
        Complaint.objects.using(db).values_list("impoundment_id", "deposit_id", "outcome")
    )
    entries = {entry for entry, _deposit, _outcome in complaints}
    for deposit in Deposit.objects.using(db).filter(release__impoundment_id__in=entries):
        entry = deposit.release.impoundment_id
        linked = {o for e, d, o in complaints if d == deposit.pk}
        loose = {o for e, d, o in complaints if e == entry and d is None}
        deposit.complaint_state = state_of(linked or loose)
        deposit.save(using=db, update_fields=["complaint_state"])


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("impounding", "0029_animal_custody_arrival_index")]

    operations = [
        migrations.AddField(
            model_name="deposit",
            name="complaint_state",
            field=models.CharField(
                db_default="none", default="none", editable=False, max_length=10
            ),
        ),
        migrations.RunPython(forward, backward),
    ]
