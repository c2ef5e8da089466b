import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poundadmin.settings")

application = get_wsgi_application()

# Drawn documents' library, imported here so that no first request pays about a second for it:
# gunicorn preloads this module (gunicorn.conf.py), and kernel.documents imports it only where a
# document is drawn, so that the commands that draw none do not.
import weasyprint  # noqa: E402, F401
