"""RFC 9457 problem details: every error of the API is one JSON shape, in the reader's language
(Accept-Language, through LocaleMiddleware), with field errors a client can show beside its own
fields."""

import json

from django.http import HttpResponse
from django.utils.translation import gettext as _

CONTENT_TYPE = "application/problem+json"


def problem(status, title, detail="", errors=None, headers=None):
    body = {"type": "about:blank", "title": str(title), "status": status, "detail": str(detail)}
    if errors:
        body["errors"] = [{"field": f, "message": str(m)} for f, m in errors]
    response = HttpResponse(json.dumps(body, ensure_ascii=False), status=status)
    response["Content-Type"] = CONTENT_TYPE
    for key, value in (headers or {}).items():
        response[key] = value
    return response


def form_problem(form):
    """A Django form's errors (the screens' own validation and messages) as a 400."""
    errors = [(field, m) for field, messages in form.errors.items() for m in messages]
    return problem(400, _("The request has errors."), _("Correct the fields named."), errors)


def not_found(request=None, exception=None, **kwargs):
    return problem(404, _("Not found."), _("There is no such record, or it is not yours to see."))
