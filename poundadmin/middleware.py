"""The middleware of the kernel, for every request and response.

The request's context for logs and links: its id, the user's id, the path, and its origin, kept
in a context variable so that a log record or a QR code drawn deep inside a service can read it
without the request being passed down. It holds no personal data: the user is an id.

Headers and the session's absolute lifetime:
- A signed-in page shows owners' names and phones: it is never stored by the browser or a proxy
  (`Cache-Control: no-store`).
- `Permissions-Policy`: the camera for this origin only (the photo field uses it), nothing else.
- A session ends SESSION_ABSOLUTE_SECONDS (12 hours) after sign-in, however busy, beside the
  30-minute idle limit that SESSION_COOKIE_AGE sets.

Sign-in is required everywhere (Django's LoginRequiredMiddleware), and the login page is told
when a session has ended rather than never begun (issue 12, item 2).
"""

import contextvars
import logging
import re
import time
import uuid
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.contrib.auth import logout
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.contrib.auth.views import redirect_to_login
from django.core.signals import request_finished
from django.dispatch import receiver
from django.utils.cache import add_never_cache_headers

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


PERMISSIONS_POLICY = (
    "camera=(self), microphone=(), geolocation=(), payment=(), usb=(), "
    "accelerometer=(), gyroscope=(), magnetometer=(), interest-cohort=()"
)
SIGNED_IN_AT = "signed_in_at"


class TrustMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        signed_in = user is not None and user.is_authenticated
        if signed_in:
            started = request.session.setdefault(SIGNED_IN_AT, int(time.time()))
            if time.time() - started > settings.SESSION_ABSOLUTE_SECONDS:
                logout(request)
                return redirect_to_login(request.get_full_path())
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        if signed_in:
            add_never_cache_headers(response)
        return response


EXPIRED = "expired"


class LoginRequiredMiddleware(DjangoLoginRequired):
    def handle_no_permission(self, request, view_func):
        response = super().handle_no_permission(request, view_func)
        # The browser still sends the cookie of a session the server has ended (idle for
        # SESSION_IDLE_SECONDS): the login page then says why the user must sign in again.
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            parts = urlsplit(response["Location"])
            query = urlencode([*parse_qsl(parts.query), (EXPIRED, "1")], safe="/")
            response["Location"] = urlunsplit(parts._replace(query=query))
        return response
