"""Sign-in and the signed-in session, for every request and response.

- Sign-in is required everywhere (Django's LoginRequiredMiddleware), and the login page is told
  when a session has ended rather than never begun (issue 12, item 2).
- A signed-in page shows owners' names and phones: it is never stored by the browser or a proxy
  (`Cache-Control: no-store`).
- `Permissions-Policy`: the camera for this origin only (the photo field uses it), nothing else.
- A session ends SESSION_ABSOLUTE_SECONDS (12 hours) after sign-in, however busy, beside the
  30-minute idle limit that SESSION_COOKIE_AGE sets.

Apart from kernel.middleware because these import the auth machinery, which the logging
settings (that load kernel.middleware's filter) must not.
"""

import time
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.contrib.auth import logout
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.contrib.auth.views import redirect_to_login
from django.utils.cache import add_never_cache_headers

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
