"""Two database roles: the runtime role the application connects as owns nothing and holds only
the privileges the code needs, so it can neither TRUNCATE the evidence nor ALTER a table to
switch its triggers off. These tests run those statements as that role (SET ROLE inside the
test's transaction, which rolls the roles and grants back with it)."""

import contextlib
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from accounts import ceremonies, twofactor
from kernel.dbroles import owned_by, table_privileges
from kernel.events import verify_chain
from ledger.checks import run_checks
from tests.accounts.factories import confirmed_authenticator
from tests.accounts.softkey import SoftPasskey
from tests.impounding.factories import cow, make_entry, pay

pytestmark = pytest.mark.postgres


def _role(suffix):
    # Roles are cluster-wide: name them after this test database, so parallel runs never meet.
    return f"{connection.settings_dict['NAME']}_{suffix}"[:63]


@pytest.fixture
def roles():
    owner, runtime = _role("owner"), _role("rt")
    call_command("db_roles", "--create", owner=owner, runtime=runtime, stdout=StringIO())
    return owner, runtime


@contextlib.contextmanager
def acting_as(role):
    """Run the block as `role`, inside a savepoint (an error rolls the SET ROLE back too)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f'SET ROLE "{role}"')
        yield cursor
        cursor.execute("RESET ROLE")


def refused(role, sql):
    with pytest.raises(DatabaseError) as caught:
        with acting_as(role) as cursor:
            cursor.execute(sql)
    return str(caught.value)


@pytest.mark.parametrize("table", ["kernel_event", "ledger_posting", "ledger_transaction"])
def test_the_runtime_role_may_not_truncate_the_evidence(roles, table):
    assert "permission denied" in refused(roles[1], f"TRUNCATE {table} CASCADE")


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE kernel_event DISABLE TRIGGER kernel_event_append_only",
        "ALTER TABLE ledger_posting DISABLE TRIGGER ALL",
        "ALTER TABLE kernel_chainhead DISABLE TRIGGER ALL",
    ],
)
def test_the_runtime_role_may_not_disable_a_trigger(roles, sql):
    assert "must be owner" in refused(roles[1], sql)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE kernel_event SET summary = 'x'",
        "DELETE FROM kernel_event",
        "DELETE FROM ledger_posting",
        "UPDATE ledger_transaction SET memo = 'x'",
        "DELETE FROM impounding_impoundment",
        "INSERT INTO django_migrations (app, name, applied) VALUES ('x', 'y', now())",
        "CREATE TABLE poundadmin_shadow (id int)",
        "SELECT setval('kernel_event_id_seq', 1)",
    ],
)
def test_the_runtime_role_holds_only_what_the_code_needs(roles, sql):
    assert "permission denied" in refused(roles[1], sql)


def test_the_runtime_role_owns_nothing(roles):
    assert owned_by(roles[1]) == []
    assert table_privileges("kernel_event") == ("SELECT", "INSERT")


def test_the_application_works_as_the_runtime_role(roles, pound, pound_keeper, tariffs):
    """The grants are enough: an entry, a cash release with its postings, the chain walk that
    moves its checkpoints, and the books check, all as the runtime role."""
    with acting_as(roles[1]) as cursor:
        entry = make_entry(pound=pound, by=pound_keeper, animals=[cow()])
        pay(entry, pound_keeper)
        assert verify_chain() == []
        assert run_checks() == []
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] == roles[1]


def test_the_second_factor_works_as_the_runtime_role(roles, magistrate, administrator):
    """A recovery code is deleted as it is used, the old codes as new ones are made, and the
    devices when an administrator resets a lost factor: the grants allow each."""
    with acting_as(roles[1]):
        confirmed_authenticator(magistrate)
        twofactor.new_recovery_codes(user=magistrate)
        code = twofactor.new_recovery_codes(user=magistrate)[0]
        assert twofactor.check_code(user=magistrate, code=code) is not None
        twofactor.reset_second_factor(user=magistrate, by=administrator)
        assert not twofactor.has_second_factor(magistrate)


def test_passkeys_work_as_the_runtime_role(roles, magistrate, administrator, settings):
    """A passkey is added, signs in (its counter updated), is removed by its user, and is
    removed by an administrator's reset (ADR 61): the grants allow each."""
    settings.PUBLIC_BASE_URL = "https://pounds.example.gov.in"
    with acting_as(roles[1]):
        confirmed_authenticator(magistrate)
        for name in ("phone", "laptop"):
            key, session = SoftPasskey(), {}
            options = ceremonies.registration_options(user=magistrate, session=session)
            passkey = ceremonies.add_passkey(
                user=magistrate, session=session, credential=key.register(options), name=name
            )
        options = ceremonies.authentication_options(user=magistrate, session=session)
        ceremonies.check_passkey(user=magistrate, session=session, credential=key.sign(options))
        assert ceremonies.remove_passkey(passkey=passkey, by=magistrate) is not None
        twofactor.reset_second_factor(user=magistrate, by=administrator)
        assert not ceremonies.has_passkey(magistrate)


def test_truncate_is_refused_to_the_owner_role_too(roles):
    """The statement trigger: row triggers do not fire on TRUNCATE. A role that has the
    privilege (as the owner has) is still refused; only a superuser passes."""
    owner = roles[0]
    with connection.cursor() as cursor:
        cursor.execute(
            "GRANT TRUNCATE ON kernel_event, kernel_eventpersonal, ledger_posting, "
            f'api_webhookdelivery, api_webhookattempt TO "{owner}"'
        )
    for table in ("kernel_event", "ledger_posting"):
        # CASCADE: the events' personal fields and their webhook deliveries point at the events.
        assert f"TRUNCATE on {table} refused" in refused(owner, f"TRUNCATE {table} CASCADE")


def test_db_roles_refuses_one_role_for_both():
    with pytest.raises(CommandError, match="two roles"):
        call_command("db_roles", owner="same_role", runtime="same_role")
    with pytest.raises(CommandError, match="plain PostgreSQL role name"):
        call_command("db_roles", runtime="x; DROP TABLE y")
