"""The request's context for logs and links: its id, the user's id, the path, and its origin.

Kept in a context variable so that a log record or a QR code drawn deep inside a service can
read it without the request being passed down. It holds no personal data: the user is an id.
"""

import contextvars
import logging
import re
import uuid

from django.core.signals import request_finished
from django.dispatch import receiver

_current = contextvars.ContextVar("poundadmin_request", default=None)
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


def current():
    """{"request_id", "user_id", "path"} of the request being served, or None."""
    return _current.get()


def request_origin():
    """The scheme, host and port the request being served came to, or None outside one."""
    context = _current.get()
    if context is None:
        return None
    request = context["request"]
    return f"{request.scheme}://{request.get_host()}"


class RequestContextMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # The proxy's id (nginx sets X-Request-ID) ties its access log to ours.
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex
        context = {
            "request_id": request_id,
            "user_id": None,
            "path": request.path,
            "request": request,
        }
        # Cleared when the response is closed (request_finished), not here: Django logs a 4xx or
        # 5xx after the middleware has returned, and that line should carry the id too.
        _current.set(context)
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        # Authentication has run by now: later log lines of this request carry the user's id.
        context = _current.get()
        user = getattr(request, "user", None)
        if context is not None and user is not None and user.is_authenticated:
            context["user_id"] = user.pk


@receiver(request_finished)
def _forget_request(**kwargs):
    _current.set(None)


class RequestContextFilter(logging.Filter):
    """Adds request_id, user_id and path to every log record (None outside a request)."""

    def filter(self, record):
        context = _current.get() or {}
        record.request_id = context.get("request_id")
        record.user_id = context.get("user_id")
        record.path = context.get("path")
        return True
