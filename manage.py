#!/usr/bin/env python
import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poundadmin.settings")
    # A command (the worker, a migration, the daily run) does long work: its statements get
    # DB_WORK_STATEMENT_TIMEOUT, not the web's DB_STATEMENT_TIMEOUT (docs/decisions/0052).
    os.environ.setdefault("POUNDADMIN_LONG_WORK", "true")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018 - load settings now, to report a missing variable
    except ImproperlyConfigured as exc:
        sys.exit(f"PoundAdmin cannot start: {exc}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
