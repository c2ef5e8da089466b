import re

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from kernel import dbroles

ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class Command(BaseCommand):
    help = (
        "Set up the two PostgreSQL roles: the owner, which runs the migrations, and the runtime "
        "role the application connects as, with only the privileges the code needs "
        "(kernel/dbroles.py). Run it as the owner after every migrate; --create and "
        "--take-ownership, once, as a superuser."
    )

    def add_arguments(self, parser):
        parser.add_argument("--owner", default="poundadmin_owner", help="the owner role's name")
        parser.add_argument("--runtime", default="poundadmin_app", help="the runtime role's name")
        parser.add_argument(
            "--database",
            default=None,
            help="connection to run on (default: 'owner' when DATABASE_MIGRATE_URL is set)",
        )
        parser.add_argument(
            "--create",
            action="store_true",
            help="create both roles if missing, and the extensions the migrations use",
        )
        parser.add_argument(
            "--take-ownership",
            action="store_true",
            help="make the owner role own every table and sequence of the schema",
        )
        parser.add_argument(
            "--print", action="store_true", help="print the SQL instead of running it"
        )

    def handle(self, *args, owner, runtime, database, create, take_ownership, **options):
        for role in (owner, runtime):
            if not ROLE_NAME.match(role):
                raise CommandError(f"{role!r} is not a plain PostgreSQL role name")
        if owner == runtime:
            raise CommandError("the owner and the runtime role must be two roles")
        using = database or ("owner" if "owner" in connections.settings else DEFAULT_DB_ALIAS)
        connection = connections[using]
        if connection.vendor != "postgresql":
            raise CommandError("database roles need PostgreSQL")
        statements = []
        if create:
            statements += dbroles.create_roles_sql(
                owner=owner,
                runtime=runtime,
                database=connection.settings_dict["NAME"],
                connection=connection,
            )
        if take_ownership:
            statements += dbroles.take_ownership_sql(owner=owner, connection=connection)
        statements += dbroles.runtime_grants_sql(runtime=runtime, connection=connection)
        if options["print"]:
            self.stdout.write(";\n".join(statements) + ";")
            return
        with transaction.atomic(using=using), connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
        owned = dbroles.owned_by(runtime, using=using)
        if owned:
            raise CommandError(
                f"the runtime role {runtime} owns {', '.join(owned)}: it could truncate them or "
                f"disable their triggers. As a superuser: REASSIGN OWNED BY {runtime} TO {owner}"
            )
        self.stdout.write(f"{runtime}: privileges set on every table; it owns nothing")
