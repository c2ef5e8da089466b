"""WeasyPrint (about a second of import) is imported where a document is drawn: a command that
draws none, with every URL resolvable, does not import it; the app servers do as gunicorn
preloads the application, so that no first request pays for it (kernel/documents.py)."""

import os
import subprocess
import sys
from pathlib import Path

from tests.test_settings import PROD

ROOT = Path(__file__).resolve().parent.parent.parent
ENV = {
    **os.environ,
    **PROD,
    "DJANGO_SETTINGS_MODULE": "poundadmin.settings",
    "DEBUG": "false",
    "POUNDADMIN_READ_DOT_ENV": "false",
}


def _imports_weasyprint(code):
    script = f"import sys\n{code}\nprint('weasyprint' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1] == "True"


def test_the_daily_run_and_the_url_map_do_not_import_weasyprint():
    assert not _imports_weasyprint(
        "import django; django.setup()\n"
        "import office.management.commands.run_deadlines\n"
        "import ledger.management.commands.check_ledger\n"
        "from django.urls import reverse; reverse('office:office')"
    )


def test_the_app_servers_import_it_as_they_start():
    assert _imports_weasyprint("import poundadmin.wsgi")
