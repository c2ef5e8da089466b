"""Sign-in and the signed-in session, for every request and response.

- Sign-in is required everywhere (Django's LoginRequiredMiddleware), and the login page is told
  when a session has ended rather than never begun (ADR 0031).
- A signed-in page shows owners' names and phones: it is never stored by the browser or a proxy
  (`Cache-Control: no-store`).
- `Permissions-Policy`: the camera for this origin only (the photo field uses it), nothing else.
- A session ends SESSION_ABSOLUTE_SECONDS (12 hours) after sign-in, however busy, beside the
  30-minute idle limit that SESSION_COOKIE_AGE sets.
- The idle limit without a write per request: a signed-in request saves the session (and so
  moves its end on by SESSION_COOKIE_AGE) only when it was last saved SESSION_SAVE_SLACK_SECONDS
  ago or more. A session therefore ends between SESSION_COOKIE_AGE less the slack and
  SESSION_COOKIE_AGE after its last request, never later (ADR 0067).

Apart from kernel.middleware because these import the auth machinery, which the logging
settings (that load kernel.middleware's filter) must not.
"""

import time
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.contrib.auth import SESSION_KEY, logout
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.contrib.auth.views import redirect_to_login
from django.utils.cache import add_never_cache_headers

PERMISSIONS_POLICY = (
    "camera=(self), microphone=(), geolocation=(), payment=(), usb=(), "
    "accelerometer=(), gyroscope=(), magnetometer=(), interest-cohort=()"
)
SIGNED_IN_AT = "signed_in_at"
SAVED_AT = "saved_at"


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
        keep_alive(request)
        return response


def stamp_sign_in(sender, request, user, **kwargs):
    """At sign-in, which saves the session anyway: when it began, and that it was just saved, so
    that the next request has nothing to write (keep_alive)."""
    session = getattr(request, "session", None)
    if session is not None:
        now = int(time.time())
        session[SIGNED_IN_AT] = now
        session[SAVED_AT] = now


def keep_alive(request):
    """Mark a signed-in session to be saved, which moves its end on, when its last save is the
    slack old or more, or when the request changed it anyway (then it is saved regardless, and
    the mark costs nothing). Nothing is marked for a request whose session holds no sign-in:
    signed out by it (logout), or an API call whose bearer token set the user (a mark would
    store a new, empty session for every call)."""
    session = getattr(request, "session", None)
    if session is None or SESSION_KEY not in session:
        return
    now = int(time.time())
    saved = session.get(SAVED_AT)
    if session.modified or saved is None or now - saved >= settings.SESSION_SAVE_SLACK_SECONDS:
        session[SAVED_AT] = now


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
