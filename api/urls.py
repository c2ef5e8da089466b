"""/api/v1/: the API (django-ninja, ADR 40). Every route is public to the login middleware: the
data routes ask for a bearer token themselves (api.auth), the schema and the reference page
hold no data. A path under /api/ that matches nothing is a problem 404, not the HTML page, and a
method a path does not answer is a problem 405 with its `Allow` header, not Django's plain one."""

from functools import wraps

from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpResponseNotAllowed
from django.urls import path, re_path
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError

from . import (
    custody,
    entries,
    field,
    intake,
    office,
    public,
    tariffs,
    unclaimed,
    unclaimed_sales,
    writes,
)
from .auth import InvalidToken, TokenAuth
from .common import CONTENT_TYPE, invalid, not_found, problem
from .docs import VendoredSwagger
from .ratelimit import RateLimited, too_many

PROBLEM_REF = "#/components/schemas/Problem"
TOO_MANY = {
    "description": "Too many requests from this token this minute (see Retry-After)",
    "content": {"application/json": {"schema": {"$ref": PROBLEM_REF}}},
}


class PoundAdminAPI(NinjaAPI):
    """Ninja documents every response as application/json; a problem is application/problem+json
    (RFC 9457), as api.common sends it."""

    def get_openapi_schema(self, **kwargs):
        schema = super().get_openapi_schema(**kwargs)
        for operations in schema["paths"].values():
            for operation in operations.values():
                # Status codes as the JSON has them: ninja's are numbers, openapi_extra's strings.
                operation["responses"] = {str(k): v for k, v in operation["responses"].items()}
                if operation.get("security"):  # a token's requests a minute are limited
                    operation["responses"].setdefault("429", TOO_MANY)
                for response in operation.get("responses", {}).values():
                    content = response.get("content", {})
                    body = content.get("application/json", {})
                    if body.get("schema", {}).get("$ref") == PROBLEM_REF:
                        content[CONTENT_TYPE] = content.pop("application/json")
        return schema


api = PoundAdminAPI(
    title="PoundAdmin API",
    version="1",
    description="District cattle pounds under the Cattle-Trespass Act, 1871.",
    auth=TokenAuth(),
    docs=VendoredSwagger(),
    urls_namespace="api",
)
# One path is served by one router in django-ninja: a write to a list's own path joins its router.
entries.router.post("/entries/", **intake.CREATE_ENTRY)(intake.create_entry)
unclaimed.router.post("/reports/", **writes.SEND_REPORT)(writes.send_report)
api.add_router("", entries.router)
api.add_router("", public.router)
api.add_router("", unclaimed.router)
api.add_router("", unclaimed_sales.router)
api.add_router("", intake.router)
api.add_router("", writes.router)
api.add_router("", office.router)
api.add_router("", tariffs.router)
api.add_router("", custody.router)
api.add_router("", field.router)

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


@api.exception_handler(RateLimited)
def _rate_limited(request, exc):
    return too_many(exc)


@api.exception_handler(NinjaValidationError)
def _invalid(request, exc):
    fields = [
        (".".join(str(p) for p in e["loc"][1:]) or "request", _("This value is not valid."))
        for e in exc.errors
    ]
    return invalid(fields)


@api.exception_handler(HttpError)
def _http_error(request, exc):
    return problem(exc.status_code, exc.message)


@api.exception_handler(Http404)
def _not_found(request, exc):
    return not_found()


def _method_problem(view):
    """Ninja answers a method a path lacks with Django's plain 405: make it a problem."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if isinstance(response, HttpResponseNotAllowed):
            # Ninja joins the methods from a set: sort them, so the header is the same every time.
            allow = ", ".join(sorted(m.strip() for m in response["Allow"].split(",")))
            return problem(
                405,
                _("Method not allowed."),
                _("This address answers %(methods)s only.") % {"methods": allow},
                headers={"Allow": allow},
            )
        for name, value in getattr(request, "api_rate_headers", {}).items():
            response.headers.setdefault(name, value)  # a 429 has its own
        return response

    return wrapped


def _public(patterns):
    for p in patterns:
        # No CSRF check: the API takes no session cookie, only a bearer token, so a page in a
        # browser cannot send a request in the user's name (Django's check answered HTML 403).
        p.callback = csrf_exempt(login_not_required(_method_problem(p.callback)))
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
