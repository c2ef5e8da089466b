"""Two PostgreSQL roles: the owner runs the migrations, the runtime role serves the application.

Only a table's owner (or a superuser) may TRUNCATE it, ALTER it, or disable its triggers, so the
role the application connects as must own nothing: then the append-only triggers on the event
log and the books hold even against someone who has the application's password. The runtime
role gets SELECT, INSERT and UPDATE, and only where the code needs them:

- the append-only tables get SELECT and INSERT alone: the triggers refuse UPDATE and DELETE
  anyway, and without the privilege the refusal does not depend on the triggers;
- DELETE only on the few tables whose rows the code deletes (sessions on sign-out, django-axes's
  failed attempts on a good sign-in and its records past retention, the ledger's and the
  register's derived month totals when they are rebuilt, and the months `check_ledger --full`
  verified afresh, throttle windows and cache keys past their time, the leases of workers that
  stopped, prepared exports, task records and the API's Idempotency-Keys past retention,
  relatives withdrawn from a staff declaration or past retention, docs/retention.md, and the
  second factor's used recovery codes and replaced devices);
- the events' personal fields: SELECT, INSERT and DELETE (erasure), never UPDATE;
- Django's record of the migrations is read, never written;
- every other table: SELECT, INSERT and UPDATE (UPDATE is also what SELECT ... FOR UPDATE needs);
- sequences: USAGE and SELECT (nextval), never setval's UPDATE.

Table names are data here: the kernel names the upper floors' tables without importing them.
`manage.py db_roles` applies this; run it after every `migrate`, since a new table has no grants.
Its `--create`, run once as a superuser, also creates the extensions the migrations use
(`EXTENSIONS`), so that the owner's `migrate` needs no privilege on the database itself.
"""

from django.db import connections

APPEND_ONLY = frozenset({"kernel_event", "ledger_transaction", "ledger_posting"})
READ_ONLY = frozenset({"django_migrations"})
ERASED_NOT_CHANGED = frozenset({"kernel_eventpersonal"})
DELETES = frozenset(
    {
        "django_session",
        "axes_accessattempt",
        "axes_accessattemptexpiration",
        "axes_accessfailurelog",
        "axes_accesslog",  # sign-ins past RETENTION_LOGIN_DAYS (apply_retention)
        "ledger_accountmonth",
        "ledger_checkedmonth",  # the verified months, replaced by `check_ledger --full`
        "impounding_animalmonth",  # the register's month totals, when they are rebuilt (ADR 66)
        "office_preparedfile",  # exports past RETENTION_PREPARED_DAYS (apply_retention)
        "impounding_taglookup",  # the ear-tag registry's answers, a month old (ADR 78)
        # a relative withdrawn from a declaration, or past RETENTION_RELATIVES_YEARS (s.19)
        "accounts_declaredrelative",
        "accounts_ratecount",  # throttle windows, dropped once past
        "poundadmin_cache",  # Django's database cache: expired keys are culled
        "kernel_workerlease",  # a worker's lease, given up when it stops or lapses (ADR 52)
        # The second factor (ADR 53): a recovery code is deleted as it is used, the old codes as
        # new ones are made, and an authenticator when it is replaced or reset.
        "otp_static_statictoken",
        "otp_static_staticdevice",
        "otp_totp_totpdevice",
        # A passkey its user removes, or an administrator's reset removes (ADR 61).
        "accounts_passkey",
        # The background tasks' records past 14 days (docs/retention.md).
        "django_tasks_database_dbtaskresult",
        # The API's Idempotency-Keys past IDEMPOTENCY_KEEP_DAYS (prune_idempotency_keys).
        "api_idempotentrequest",
        # Lost-cattle reports (ADR 0079): drafts left a day, with their codes, matches and
        # messages; a lapsed report's messages (apply_retention).
        "impounding_lostreport",
        "impounding_phonecode",
        "impounding_lostmatch",
        "impounding_lostnotice",
        # A gateway's delivery report applied to its message once the id is saved, or never
        # matched and past MESSAGING_EARLY_REPORT_DAYS (apply_retention; ADR 0084 addendum).
        "messaging_earlyreport",
    }
)
# Every extension a migration creates (`impounding` 0003: the register's trigram search).
EXTENSIONS = ("pg_trgm",)


def table_privileges(table):
    """The privileges the runtime role holds on `table`."""
    if table in READ_ONLY:
        return ("SELECT",)
    if table in APPEND_ONLY:
        return ("SELECT", "INSERT")
    if table in ERASED_NOT_CHANGED:
        return ("SELECT", "INSERT", "DELETE")
    if table in DELETES:
        return ("SELECT", "INSERT", "UPDATE", "DELETE")
    return ("SELECT", "INSERT", "UPDATE")


def quote(connection, name):
    return connection.ops.quote_name(name)


def create_roles_sql(*, owner, runtime, database, connection):
    """Statements that create both roles (when missing), give the owner the schema and create
    the extensions the migrations use."""
    q = lambda name: quote(connection, name)  # noqa: E731
    statements = []
    for role in (owner, runtime):
        statements.append(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
            f"'{role}') THEN CREATE ROLE {q(role)} LOGIN NOSUPERUSER NOCREATEDB "
            "NOCREATEROLE NOREPLICATION NOBYPASSRLS; END IF; END $$"
        )
    statements += [
        f"ALTER ROLE {q(runtime)} NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS",
        # The owner makes restore_check's scratch database (kernel/backups.py); the runtime
        # role never may.
        f"ALTER ROLE {q(owner)} CREATEDB",
        f"GRANT CONNECT ON DATABASE {q(database)} TO {q(owner)}, {q(runtime)}",
        f"GRANT USAGE, CREATE ON SCHEMA public TO {q(owner)}",
        f"REVOKE CREATE ON SCHEMA public FROM PUBLIC, {q(runtime)}",
        f"GRANT USAGE ON SCHEMA public TO {q(runtime)}",
    ]
    statements += [f"CREATE EXTENSION IF NOT EXISTS {q(name)}" for name in EXTENSIONS]
    return statements


def take_ownership_sql(*, owner, connection):
    """Statements that give every table and sequence of the schema to the owner role."""
    q = lambda name: quote(connection, name)  # noqa: E731
    tables, sequences = _relations(connection)
    return [f"ALTER TABLE {q(t)} OWNER TO {q(owner)}" for t in tables] + [
        f"ALTER SEQUENCE {q(s)} OWNER TO {q(owner)}" for s in sequences if s not in tables
    ]


def runtime_grants_sql(*, runtime, connection):
    """Statements that set the runtime role's privileges on every table and sequence afresh."""
    q = lambda name: quote(connection, name)  # noqa: E731
    tables, sequences = _relations(connection)
    statements = []
    for table in tables:
        statements.append(f"REVOKE ALL ON TABLE {q(table)} FROM {q(runtime)}")
        privileges = ", ".join(table_privileges(table))
        statements.append(f"GRANT {privileges} ON TABLE {q(table)} TO {q(runtime)}")
    for sequence in sequences:
        statements.append(f"REVOKE ALL ON SEQUENCE {q(sequence)} FROM {q(runtime)}")
        statements.append(f"GRANT USAGE, SELECT ON SEQUENCE {q(sequence)} TO {q(runtime)}")
    return statements


def owned_by(role, *, using="default"):
    """The tables and sequences of the public schema that `role` owns (it should own none)."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S') "
            "AND pg_get_userbyid(c.relowner) = %s ORDER BY 1",
            [role],
        )
        return [row[0] for row in cursor.fetchall()]


def _relations(connection):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, c.relkind FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S') ORDER BY 1"
        )
        rows = cursor.fetchall()
    tables = [name for name, kind in rows if kind in ("r", "p")]
    sequences = [name for name, kind in rows if kind == "S"]
    return tables, sequences
