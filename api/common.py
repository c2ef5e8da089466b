"""What every resource of the API shares: the problems it answers with (RFC 9457: one JSON
shape, in the reader's language through LocaleMiddleware, with field errors a client can show
beside its own fields), the reading of a write's JSON body, the mapping of a service's refusals,
answers with an ETag, and the one keyset list endpoint."""

import json
import re
from datetime import date, datetime, timedelta
from decimal import Decimal

from django import forms
from django.core.exceptions import (
    NON_FIELD_ERRORS,
    FieldDoesNotExist,
    ObjectDoesNotExist,
    PermissionDenied,
    RequestDataTooBig,
    ValidationError,
)
from django.db.models import DateTimeField
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.cache import get_conditional_response, set_response_etag
from django.utils.translation import gettext as _
from pydantic import ValidationError as SchemaError

from accounts.scoping import has_permission
from kernel.views import keyset_page
from office.returns import day_start

CONTENT_TYPE = "application/problem+json"
CENT = Decimal("0.01")
MONEY = "An exact amount in rupees, two decimals, as a string: 1234.50."
# Keyset cursors: the sort key of the page's last row, then its id. A moment is written as
# keyset_page writes it (str() of the UTC datetime the database gives).
DAY_CURSOR = re.compile(r"\d{4}-\d{2}-\d{2}\|\d{1,18}")
MOMENT_CURSOR = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?\+00:00\|\d{1,18}")


# --- Values as the answers write them ----------------------------------------------------------


def iso(moment):
    return timezone.localtime(moment).isoformat()


def money(amount):
    return str(Decimal(amount).quantize(CENT))


def day(value):
    return value.isoformat() if value else None


def dump(schema, record, **given):
    """The fields `schema` declares, in its order, read from `record`: the values `given` first,
    else the record's own of the same name, a related record as its id (without reading it), a
    moment or a day in ISO 8601, an amount (a Decimal) as `money`. So a resource declares its
    fields once, in its schema."""
    return {
        name: given[name] if name in given else _value(record, name) for name in schema.model_fields
    }


def _value(record, name):
    value = getattr(record, _attname(record, name))
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, date):
        return value.isoformat()
    return money(value) if isinstance(value, Decimal) else value


def _attname(record, name):
    try:
        return record._meta.get_field(name).attname  # a foreign key's is its id's
    except (AttributeError, FieldDoesNotExist):
        return name


# --- Problems ----------------------------------------------------------------------------------


def problem(status, title, detail="", errors=None, headers=None):
    body = {"type": "about:blank", "title": str(title), "status": status, "detail": str(detail)}
    if errors:
        body["errors"] = [{"field": f, "message": str(m)} for f, m in errors]
    response = HttpResponse(json.dumps(body, ensure_ascii=False), status=status)
    response["Content-Type"] = CONTENT_TYPE
    for key, value in (headers or {}).items():
        response[key] = value
    return response


def invalid(errors):
    """The 400 of a request with errors, each (field, message)."""
    return problem(400, _("The request has errors."), _("Correct the fields named."), errors)


def bad(field, message):
    return invalid([(field, message)])


def bad_cursor():
    return bad("after", _("This is not a page cursor this list gave."))


def form_errors(form, where=""):
    """A Django form's errors (the screens' own validation and messages), each (field, message);
    its errors of no field go under `where`, or "request"."""
    errors = []
    for name, messages in form.errors.items():
        field = (where.rstrip(".") or "request") if name == NON_FIELD_ERRORS else where + name
        errors += [(field, m) for m in messages]
    return errors


def form_problem(form):
    errors = [(field, m) for field, messages in form.errors.items() for m in messages]
    return invalid(errors)


def filters(form_class, params, **kwargs):
    """(a list's filters, cleaned by `form_class` as its screen cleans them, None), or (None, the
    form's errors as a 400). A parameter not sent is left out, as a screen's empty field."""
    form = form_class({k: v for k, v in params.items() if v}, **kwargs)
    return (form.cleaned_data, None) if form.is_valid() else (None, form_problem(form))


class PoundFilters(forms.Form):
    """A list's own filters: a pound of `pounds` (the caller's), and what a subclass adds."""

    pound = forms.ModelChoiceField(queryset=None, required=False)

    def __init__(self, data, *, pounds):
        super().__init__(data)
        self.fields["pound"].queryset = pounds


def one_of(scoped, raw, field, message):
    """(the record of `scoped` numbered `raw`, a query parameter, None), or (None, a 400 naming
    `field` with `message` when `raw` is not a number); a number not in `scoped` is a 404."""
    if not raw or not raw.isdigit() or len(raw) > 18:
        return None, bad(field, message)
    return get_object_or_404(scoped, pk=int(raw)), None


class DatedFilters(PoundFilters):
    """A pound's list between two IST days, both included (`in_days`)."""

    date_from = forms.DateField(required=False)
    date_to = forms.DateField(required=False)

    def clean(self):
        data = super().clean()
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and end < start:
            self.add_error("date_to", _("The end date cannot be before the start date."))
        return data


def _is_moment(qs, field):
    return isinstance(qs.model._meta.get_field(field), DateTimeField)


def in_days(qs, field, data):
    """The rows of `qs` whose `field`, a day or a moment, falls on the IST days from
    `data`'s date_from to its date_to (DatedFilters), both included."""
    start, end, last = data.get("date_from"), data.get("date_to"), "lte"
    if _is_moment(qs, field):  # from the first day's start to the start of the day after the last
        start = start and day_start(start)
        end, last = end and day_start(end + timedelta(days=1)), "lt"
    if start:
        qs = qs.filter(**{f"{field}__gte": start})
    if end:
        qs = qs.filter(**{f"{field}__{last}": end})
    return qs


def not_found(request=None, exception=None, **kwargs):
    return problem(404, _("Not found."), _("There is no such record, or it is not yours to see."))


def not_allowed(exc=None):
    """The screens' 403, with the service's or the view's own reason when it gives one."""
    reason = (
        exc.args[0] if exc is not None and exc.args else _("Your role does not allow this action.")
    )
    return problem(403, _("Not allowed"), reason)


def refused(status, title, exc):
    """A service's ValidationError: its messages, beside the fields they name."""
    if hasattr(exc, "error_dict"):
        errors = [
            ("request" if field == NON_FIELD_ERRORS else field, message)
            for field, messages in exc.message_dict.items()
            for message in messages
        ]
    else:
        errors = [("request", message) for message in exc.messages]
    return problem(status, title, " ".join(str(m) for _f, m in errors), errors)


def call_service(service, *, title, status=422, **kwargs):
    """(what `service` returns, None), or (None, its refusal as a problem): a ValidationError is
    `status` with its messages, a PermissionDenied the screens' 403, a record gone a 404."""
    try:
        return service(**kwargs), None
    except ValidationError as exc:
        return None, refused(status, title, exc)
    except PermissionDenied as exc:
        return None, not_allowed(exc)
    except ObjectDoesNotExist:
        return None, not_found()


def require(user, *permissions):
    """A 404 unless `user` holds one of `permissions` somewhere: where a screen refuses with a 403,
    nothing of it is the caller's."""
    if not any(has_permission(user, p) for p in permissions):
        raise Http404


# --- A write's body ----------------------------------------------------------------------------


def json_body(request, schema=None):
    """(the JSON body, None), or (None, the problem that says why it cannot be read).

    Without `schema`, the body must be a JSON object, given as a dict. With one, it is read as
    that schema, and no body at all is every field unset (for the screen's form to name what is
    missing). Read by the view rather than by ninja, which would read it first: as on the
    screens, a caller whose role or jurisdiction refuses the action is told so whatever he sent."""
    try:
        raw = request.body
    except RequestDataTooBig:
        return None, problem(413, _("The request is too large."), _("Send at most 10 MB."))
    if schema is not None and not raw:
        raw = b"{}"
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested beyond reading
        data = None
    if not isinstance(data, dict):
        what = _("This value is not valid.") if schema else _("Send a JSON object.")
        return None, bad("request", what)
    if schema is None:
        return data, None
    try:
        return schema.model_validate(data), None
    except SchemaError as exc:
        named = {".".join(str(p) for p in e["loc"]) or "request": e for e in exc.errors()}
        return None, invalid([(name, _schema_message(named[name])) for name in sorted(named)])


def _schema_message(error):
    """A schema's error in the screens' words: a value missing or null is a field left empty."""
    if error["type"] == "missing" or error.get("input", "") is None:
        return forms.Field.default_error_messages["required"]
    if error["type"] == "extra_forbidden":
        return _("There is no such field.")
    return _("This value is not valid.")


# --- Answers -----------------------------------------------------------------------------------


def with_etag(request, body):
    """The answer with an ETag over its bytes: a client that sends If-None-Match with the tag it
    holds gets 304 and no body when nothing changed."""
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False), content_type="application/json; charset=utf-8"
    )
    # Per user (the scope differs) and never stored by a shared cache; a client revalidates.
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Authorization, Accept-Language"
    set_response_etag(response)
    return get_conditional_response(request, etag=response["ETag"], response=response)


def next_link(request, cursor):
    if not cursor:
        return None
    query = request.GET.copy()
    query["after"] = cursor
    return f"{request.path}?{query.urlencode()}"


def keyset_list(request, qs, order, cursor, after, row, size, parse=None):
    """A list endpoint's answer: one keyset page of `qs` in `order` from `after`, each row through
    `row`, and the next page's link. A cursor that does not match the list's pattern `cursor`
    (or whose first value `parse` refuses) is a 400."""
    if after and not _cursor_ok(after, cursor, parse):
        return bad_cursor()
    rows, next_cursor = keyset_page(qs, order, after=after, size=size)
    body = {"results": [row(r) for r in rows], "next": next_link(request, next_cursor)}
    return with_etag(request, body)


def cursor_of(qs, order):
    """The pattern of `qs`'s cursors in `order` whose first field is a day or a moment."""
    return MOMENT_CURSOR if _is_moment(qs, order[0].lstrip("-")) else DAY_CURSOR


def _cursor_ok(after, pattern, parse):
    if not pattern.fullmatch(after):
        return False
    try:
        parse and parse(after.split("|")[0])
    except ValueError:
        return False
    return True
