"""`Idempotency-Key` on every write of the API (the IETF httpapi draft's header).

A write operation is decorated with `@idempotent` and returns an HttpResponse (`json_response`).
- No key, or a key that is not 8-255 visible characters: a 400 problem naming the header.
- The first request with a key runs inside one transaction with the record of its answer: the
  work and the record commit together or not at all. Only a success (2xx) is kept, so a refused
  request can be corrected and sent again with the same key.
- The same key again, with the same operation and body: the first answer, byte for byte, with
  `Idempotent-Replayed: true`. Two at once: the key's row is written before the work, so the
  second waits on the key's unique index before doing anything, then replays the first's answer
  (were the row written after the work, the second would meet the first's row locks inside the
  service and be refused, "already reported", instead of getting the first answer).
- The same key with another operation or body: 422.
The key is the caller's own: another user's same key is another request. A replay does not
count against the token's requests a minute (api.ratelimit: `refund`, `is_replay`).
"""

import functools
import hashlib
import json
import re
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from . import ratelimit
from .common import bad, problem
from .models import IdempotentRequest

HEADER = "Idempotency-Key"
KEY = re.compile(r"[\x21-\x7e]{8,255}")
# The header in the schema, for each write's `openapi_extra`.
OPENAPI = {
    "parameters": [
        {
            "in": "header",
            "name": HEADER,
            "required": True,
            "description": "A new value (a UUID, say) for each new request; the same value to "
            "retry it. A retried request gets the first answer.",
            "schema": {"type": "string", "minLength": 8, "maxLength": 255},
        }
    ]
}


def _inline(node, defs):
    """The schema with pydantic's local $refs put in place."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def documented(body):
    """A write's `openapi_extra`: the Idempotency-Key header and its JSON body as `body`."""
    schema = body.model_json_schema()
    content = {"application/json": {"schema": _inline(schema, schema.get("$defs", {}))}}
    return OPENAPI | {"requestBody": {"required": True, "content": content}}


def json_response(body, status=200, location=""):
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False, default=str),
        status=status,
        content_type="application/json; charset=utf-8",
    )
    if location:
        response["Location"] = location
    return response


DEVICE_TIME = "Device-Time"


def device_time(request):
    """The caller's clock when it sent the request (the field app's `Device-Time` header, ISO
    8601 with its offset), or None when it sent none that reads."""
    raw = request.headers.get(DEVICE_TIME, "")
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00")) if raw else None
    except ValueError:
        return None
    return moment if moment is not None and moment.tzinfo is not None else None


def request_digest(request):
    """What makes two requests with one key the same request: the body's bytes, or for a form
    with files (whose boundary a browser draws afresh for each try) its fields and files."""
    if request.content_type != "multipart/form-data":
        return hashlib.sha256(request.body).hexdigest()
    digest = hashlib.sha256()
    for name, values in sorted(request.POST.lists()):
        for value in values:
            digest.update(f"{name}={value}\0".encode())
    for name, files in sorted(request.FILES.lists()):
        for upload in files:
            digest.update(f"{name}:{upload.name}\0".encode())
            for chunk in upload.chunks():
                digest.update(chunk)
            upload.seek(0)
    return digest.hexdigest()


def service_key(user, key):
    """A UUID for the services' own idempotency keys, fixed by (caller, header value)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"poundadmin-api:{user.pk}:{key}")


def _replay(row):
    response = HttpResponse(bytes(row.body), status=row.status, content_type=row.content_type)
    if row.location:
        response["Location"] = row.location
    response["Idempotent-Replayed"] = "true"
    return response


def _reused():
    return problem(
        422,
        _("This Idempotency-Key was used for another request."),
        _("Send a new key for a new request; the same key only to retry the same request."),
        [(HEADER, _("Use a new key."))],
    )


def _operation(request):
    operation = f"{request.method} {request.resolver_match.view_name}"
    return operation + "".join(
        f" {k}={v}" for k, v in sorted(request.resolver_match.kwargs.items())
    )


def is_replay(request, user):
    """Whether `request` retries a write of `user` already answered: the same key, operation
    and body (api.ratelimit lets it through past the limit)."""
    key = request.headers.get(HEADER, "")
    if not KEY.fullmatch(key) or request.resolver_match is None:
        return False
    digest = request_digest(request)
    earlier = IdempotentRequest.objects.filter(user=user, key=key, request_digest=digest)
    return earlier.filter(operation=_operation(request)).exclude(status=0).exists()


def _replayed(request, answer):
    if answer.get("Idempotent-Replayed") == "true":
        ratelimit.refund(request)
    return answer


def _answer_of_earlier(user, key, operation, digest):
    row = IdempotentRequest.objects.filter(user=user, key=key).first()
    if row is None:
        return None
    if (row.operation, row.request_digest) != (operation, digest):
        return _reused()
    return _replay(row)


def _claim(user, key, operation, digest):
    """The key's row, written before the work: a second request with the key waits here on the
    unique index until the first ends, instead of doing the work beside it. None if another
    request with the key committed first."""
    try:
        with transaction.atomic():
            return IdempotentRequest.objects.create(
                user=user,
                key=key,
                operation=operation,
                request_digest=digest,
                status=0,  # filled in below before anyone else can see the row
                content_type="",
                body=b"",
            )
    except IntegrityError:
        return None


def idempotent(view):
    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        key = request.headers.get(HEADER, "")
        if not KEY.fullmatch(key):
            return bad(HEADER, _("Send a new key (8 to 255 characters) with each new request."))
        user = request.auth
        operation = _operation(request)
        digest = request_digest(request)
        earlier = _answer_of_earlier(user, key, operation, digest)
        if earlier is not None:
            return _replayed(request, earlier)
        request.idempotency_key = service_key(user, key)
        with transaction.atomic():
            row = _claim(user, key, operation, digest)
            if row is None:
                # Another request with this key committed first: answer as it did.
                return _replayed(request, _answer_of_earlier(user, key, operation, digest))
            response = view(request, *args, **kwargs)
            if 200 <= response.status_code < 300:
                row.status = response.status_code
                row.content_type = response["Content-Type"]
                row.body = response.content
                row.location = response.get("Location", "")
                row.save(update_fields=["status", "content_type", "body", "location"])
            else:
                transaction.set_rollback(True)  # a refusal leaves nothing behind
        return response

    return wrapper


PRUNE_BATCH = 1000


def prune(*, now=None, batch=PRUNE_BATCH):
    """Delete the keys older than IDEMPOTENCY_KEEP_DAYS, `batch` rows to a transaction, so that
    no delete holds the table's rows long; returns how many went. Idempotent: a second run
    finds nothing older. A key inside the window is kept, and a retry with it is still a
    replay."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.IDEMPOTENCY_KEEP_DAYS)
    old = IdempotentRequest.objects.filter(created_at__lt=cutoff).order_by("pk")
    removed = 0
    while True:
        with transaction.atomic():
            pks = list(old.values_list("pk", flat=True)[:batch])
            if not pks:
                return removed
            removed += IdempotentRequest.objects.filter(pk__in=pks).delete()[0]
