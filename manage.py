#!/usr/bin/env python
import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poundadmin.settings")
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
