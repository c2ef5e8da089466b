"""One log format for the app and its web server: a JSON object a line (README, "Health and logs").

The app's records (`settings.LOGGING`) and gunicorn's own, its error log and its access log
(`gunicorn.conf.py` builds its `logconfig_dict` with `gunicorn_logging`), go through the same
`JsonFormatter`: the time in ISO 8601 with its UTC offset, the level, the logger, the message,
and the request's id, the user's id and the path (kernel/middleware.py). An access line also
carries its method, path, status, size and duration as fields, and the id the app gave the
request, read from the `X-Request-ID` response header, so that the access line and the app's
lines of one request share it even when no proxy set one. Never a name, a phone, an address or
a query string (a search may be for an owner's name).

Nothing here imports Django: gunicorn loads this module before the app.
"""

from collections.abc import Mapping
from datetime import datetime

from pythonjsonlogger.json import JsonFormatter as _JsonFormatter

FIELDS = ("asctime", "levelname", "name", "message", "request_id", "user_id", "path")
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}
# gunicorn's access line, as text in the message; `{x-request-id}o` is the app's response header.
ACCESS_FORMAT = '%(h)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(M)sms rid=%({x-request-id}o)s'
# gunicorn's atoms of an access record, as the fields of the JSON line.
_ACCESS_FIELDS = {"m": "method", "U": "path", "s": "status", "b": "bytes", "M": "duration_ms"}


def _atom(atoms, key):
    value = dict.get(atoms, key)  # not SafeAtoms.__getitem__, which makes "-" of a missing one
    return None if value in (None, "-") else value


class JsonFormatter(_JsonFormatter):
    """python-json-logger's formatter with the house's fields and times with their offset."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("fmt", list(FIELDS))
        kwargs.setdefault("rename_fields", RENAMED)
        super().__init__(*args, **kwargs)

    def formatTime(self, record, datefmt=None):  # noqa: N802 (logging's name)
        moment = datetime.fromtimestamp(record.created).astimezone()
        return moment.isoformat(timespec="milliseconds")

    def add_fields(self, log_data, record, message_dict):
        super().add_fields(log_data, record, message_dict)
        atoms = record.args
        if record.name != "gunicorn.access" or not isinstance(atoms, Mapping):
            return
        for atom, field in _ACCESS_FIELDS.items():
            log_data[field] = _atom(atoms, atom)
        log_data["request_id"] = _atom(atoms, "{x-request-id}o") or _atom(atoms, "{x-request-id}i")


def gunicorn_logging(*, text=False, level="INFO"):
    """gunicorn's `logconfig_dict`: its error and access logs to standard output through the
    app's formatter (or plain lines with `text`, as LOG_FORMAT=text gives the app)."""
    formatter = (
        {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"}
        if text
        else {"()": "kernel.logs.JsonFormatter"}
    )
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "house",
        "filters": ["request"],
        "stream": "ext://sys.stdout",
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request": {"()": "kernel.middleware.RequestContextFilter"}},
        "formatters": {"house": formatter},
        "handlers": {"console": handler},
        "root": {"level": "WARNING", "handlers": ["console"]},
        "loggers": {
            "gunicorn.error": {"level": level, "handlers": ["console"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
        },
    }
