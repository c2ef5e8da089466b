"""The request's context for logs and links: its id, the user's id, the path, and its origin.

Kept in a context variable so that a log record or a QR code drawn deep inside a service can
read it without the request being passed down. It holds no personal data: the user is an id.
"""

import contextvars
import logging
import re
import uuid

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
        token = _current.set(context)
        try:
            response = self.get_response(request)
        finally:
            user = getattr(request, "user", None)
            context["user_id"] = user.pk if user is not None and user.is_authenticated else None
            _current.reset(token)
        response["X-Request-ID"] = request_id
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        # Authentication has run by now: later log lines of this request carry the user's id.
        context = _current.get()
        user = getattr(request, "user", None)
        if context is not None and user is not None and user.is_authenticated:
            context["user_id"] = user.pk


class RequestContextFilter(logging.Filter):
    """Adds request_id, user_id and path to every log record (None outside a request)."""

    def filter(self, record):
        context = _current.get() or {}
        record.request_id = context.get("request_id")
        record.user_id = context.get("user_id")
        record.path = context.get("path")
        return True
