"""Sign-in is required everywhere (Django's LoginRequiredMiddleware), and the login page is told
when a session has ended rather than never begun (issue 12, item 2)."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired

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
