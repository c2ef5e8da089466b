from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections

from kernel import dbsettings


class Command(BaseCommand):
    help = (
        "Give the database production's PostgreSQL settings (deploy/postgresql/poundadmin.conf: "
        "planner costs, JIT, work memory, statistics) with ALTER DATABASE ... SET, as its owner "
        "or a superuser; new connections take them. --check lists those a connection lacks."
    )

    def add_arguments(self, parser):
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, help="connection to use")
        what = parser.add_mutually_exclusive_group()
        what.add_argument("--check", action="store_true", help="exit 1 when any differs")
        what.add_argument(
            "--reset", action="store_true", help="back to the cluster's values (the bench)"
        )
        what.add_argument("--print", action="store_true", help="print the SQL, run nothing")

    def handle(self, *args, database, check, reset, **options):
        connection = connections[database]
        if connection.vendor != "postgresql":
            raise CommandError("the database settings are PostgreSQL's")
        if check:
            return self._check(connection)
        name = connection.settings_dict["NAME"]
        sql = dbsettings.reset_sql(name) if reset else dbsettings.apply_sql(name)
        if options["print"]:
            self.stdout.write(";\n".join(sql) + ";")
            return
        with connection.cursor() as cursor:
            for statement in sql:
                cursor.execute(statement)
        done = "reset to the cluster's values" if reset else "set for new connections"
        self.stdout.write(f"{name}: {', '.join(dbsettings.wanted())} {done}")

    def _check(self, connection):
        with connection.cursor() as cursor:
            differ = dbsettings.differences(cursor)
        for name, (want, have) in differ.items():
            self.stdout.write(f"{name} is {have}, not {want}")
        if differ:
            raise CommandError(
                f"{len(differ)} setting(s) differ from deploy/postgresql/poundadmin.conf: "
                "run manage.py db_settings as the database's owner, then reconnect"
            )
        self.stdout.write("the database has production's settings")
