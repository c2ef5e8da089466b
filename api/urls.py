"""/api/v1/: the API (django-ninja, ADR 40). Every route is public to the login middleware: the
data routes ask for a bearer token themselves (api.auth), the schema and the reference page
hold no data. A path under /api/ that matches nothing is a problem 404, not the HTML page."""

from django.contrib.auth.decorators import login_not_required
from django.http import Http404
from django.urls import path, re_path
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError

from . import custody, entries, public
from .auth import InvalidToken, TokenAuth
from .docs import VendoredSwagger
from .problems import not_found, problem

api = NinjaAPI(
    title="PoundAdmin API",
    version="1",
    description="District cattle pounds under the Cattle-Trespass Act, 1871.",
    auth=TokenAuth(),
    docs=VendoredSwagger(),
    urls_namespace="api",
)
api.add_router("", entries.router)
api.add_router("", public.router)
api.add_router("", custody.router)

BEARER = {"WWW-Authenticate": "Bearer"}


@api.exception_handler(AuthenticationError)
def _no_token(request, exc):
    return problem(
        401,
        _("Authentication required."),
        _("Send a token as Authorization: Bearer."),
        headers=BEARER,
    )


@api.exception_handler(InvalidToken)
def _bad_token(request, exc):
    return problem(
        401,
        _("The token is not valid."),
        _("It is unknown or revoked. Make a new one on your tokens page."),
        headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
    )


@api.exception_handler(NinjaValidationError)
def _invalid(request, exc):
    fields = [
        (".".join(str(p) for p in e["loc"][1:]) or "request", _("This value is not valid."))
        for e in exc.errors
    ]
    return problem(400, _("The request has errors."), _("Correct the fields named."), fields)


@api.exception_handler(HttpError)
def _http_error(request, exc):
    return problem(exc.status_code, exc.message)


@api.exception_handler(Http404)
def _not_found(request, exc):
    return not_found()


def _public(patterns):
    for p in patterns:
        login_not_required(p.callback)
    return patterns


_patterns, _app, _namespace = api.urls
urlpatterns = [
    path(
        "v1/",
        (
            _public(
                [
                    path("", not_found, name="index"),  # before ninja's, which is an HTML 404
                    *_patterns,
                    re_path(r"^.*$", not_found, name="not_found"),
                ]
            ),
            _app,
            _namespace,
        ),
    ),
]
