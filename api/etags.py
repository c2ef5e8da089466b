"""ETags over the answer's bytes: a client that sends If-None-Match with the tag it holds gets
304 and no body when nothing changed."""

import json

from django.http import HttpResponse
from django.utils.cache import get_conditional_response, set_response_etag


def with_etag(request, body):
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False), content_type="application/json; charset=utf-8"
    )
    # Per user (the scope differs) and never stored by a shared cache; a client revalidates.
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Authorization, Accept-Language"
    set_response_etag(response)
    return get_conditional_response(request, etag=response["ETag"], response=response)
