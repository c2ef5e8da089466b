"""The PostgreSQL trigger that keeps the register's month totals (impounding.AnimalMonth,
docs/decisions/0066), as SQL for migration 0012. Kept in a module of its own so that a later
migration that replaces the trigger can import the same text."""

# docs/domain.md decision 1: periods are Asia/Kolkata calendar days and months.
ZONE = "Asia/Kolkata"


def _month(column):
    return f"date_trunc('month', {column} AT TIME ZONE '{ZONE}')::date"


def _moves(rows, sign):
    """What the animals in `rows` add to the totals (times `sign`): each came in once, in the
    month of its birth or of its entry's arrival, and left once if its custody has ended."""
    return f"""
        SELECT a.pound_id, a.species, {_month("COALESCE(a.born_at, e.arrived_at)")} AS month,
               CASE WHEN a.born_at IS NULL THEN 'impounded' ELSE 'born' END AS movement,
               {sign} AS n
          FROM {rows} AS a JOIN impounding_impoundment AS e ON e.id = a.impoundment_id
        UNION ALL
        SELECT a.pound_id, a.species, {_month("a.custody_ended_at")}, 'left:' || a.state, {sign}
          FROM {rows} AS a WHERE a.custody_ended_at IS NOT NULL"""


def _add(moves):
    # One row per key (ON CONFLICT may touch a row once a statement), taken in key order so
    # that two writers lock the rows they share alike.
    return f"""
    INSERT INTO impounding_animalmonth (pound_id, species, month, movement, animals)
    SELECT pound_id, species, month, movement, SUM(n) FROM ({moves}) AS moves
     GROUP BY pound_id, species, month, movement HAVING SUM(n) <> 0
     ORDER BY pound_id, month, species, movement
    ON CONFLICT (pound_id, month, species, movement)
    DO UPDATE SET animals = impounding_animalmonth.animals + EXCLUDED.animals;"""


# The rows of an update whose figures may have moved: an update that changes none of these
# columns (a photo, a colour) adds nothing.
_CHANGED = """(SELECT * FROM {rows} WHERE id IN (
    SELECT o.id FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id
     WHERE (o.pound_id, o.species, o.state, o.born_at, o.custody_ended_at, o.impoundment_id)
           IS DISTINCT FROM
           (n.pound_id, n.species, n.state, n.born_at, n.custody_ended_at, n.impoundment_id)))"""

_ENTRY = """
        SELECT a.pound_id, a.species, {month} AS month, 'impounded' AS movement, {sign} AS n
          FROM impounding_animal AS a
         WHERE a.impoundment_id = NEW.id AND a.born_at IS NULL"""

FORWARD = f"""
CREATE OR REPLACE FUNCTION impounding_animal_months() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        {_add(_moves("new_rows", 1))}
    ELSIF TG_OP = 'DELETE' THEN
        {_add(_moves("old_rows", -1))}
    ELSE
        {
    _add(
        _moves(_CHANGED.format(rows="new_rows"), 1)
        + " UNION ALL "
        + _moves(_CHANGED.format(rows="old_rows"), -1)
    )
}
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER impounding_animal_months_insert AFTER INSERT ON impounding_animal
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION impounding_animal_months();
CREATE TRIGGER impounding_animal_months_update AFTER UPDATE ON impounding_animal
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION impounding_animal_months();
CREATE TRIGGER impounding_animal_months_delete AFTER DELETE ON impounding_animal
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION impounding_animal_months();

-- An entry's arrival is never amended (a wrong arrival is a new entry); a repair that moves it
-- all the same moves its animals' month.
CREATE OR REPLACE FUNCTION impounding_entry_arrival_months() RETURNS trigger AS $$
BEGIN
    {
    _add(
        _ENTRY.format(month=_month("NEW.arrived_at"), sign=1)
        + " UNION ALL "
        + _ENTRY.format(month=_month("OLD.arrived_at"), sign=-1)
    )
}
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER impounding_entry_arrival_months AFTER UPDATE OF arrived_at
    ON impounding_impoundment FOR EACH ROW
    WHEN (OLD.arrived_at IS DISTINCT FROM NEW.arrived_at)
    EXECUTE FUNCTION impounding_entry_arrival_months();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS impounding_entry_arrival_months ON impounding_impoundment;
DROP FUNCTION IF EXISTS impounding_entry_arrival_months();
DROP TRIGGER IF EXISTS impounding_animal_months_insert ON impounding_animal;
DROP TRIGGER IF EXISTS impounding_animal_months_update ON impounding_animal;
DROP TRIGGER IF EXISTS impounding_animal_months_delete ON impounding_animal;
DROP FUNCTION IF EXISTS impounding_animal_months();
"""
