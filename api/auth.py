"""Bearer tokens (accounts.ApiToken): `Authorization: Bearer <token>`. Sessions are not accepted:
a browser signed in to the screens cannot be made to call the API. A token that is unknown,
revoked or past its expiry is refused; one past its requests a minute waits (api.ratelimit).

A paired phone's device token (ADR 0074) serves the field app's calls only, for its own pound:
anything else is refused with a 403, never a 401, so the phone stays paired."""

import re

from django.urls import reverse
from django.utils.translation import gettext as _
from ninja.errors import HttpError
from ninja.security import HttpBearer

from accounts.services import live_api_token

from .ratelimit import count_request


class InvalidToken(Exception):
    pass


# What the field app calls (static/js/field/app.js and outbox.js), under the API's root.
FIELD_CALLS = (
    ("GET", re.compile(r"field/reference/")),
    ("GET", re.compile(r"entries/")),
    ("POST", re.compile(r"entries/")),
    ("POST", re.compile(r"pounds/(?P<pound>\d+)/feeding/")),
    ("POST", re.compile(r"animals/\d+/custody-events/")),
    ("POST", re.compile(r"entries/\d+/photos/")),
)


def device_may(request, token):
    """Whether a device token may make this call: one of the field app's, for its pound."""
    path = request.path.removeprefix(reverse("api:index"))
    asked = request.GET.get("pound")
    if asked is not None and asked != str(token.pound_id):
        return False
    for method, pattern in FIELD_CALLS:
        found = pattern.fullmatch(path)
        if found and request.method == method:
            pound = found.groupdict().get("pound")
            return pound is None or pound == str(token.pound_id)
    return False


class TokenAuth(HttpBearer):
    def authenticate(self, request, token):
        found = live_api_token(token) if token else None
        if found is None:
            raise InvalidToken
        if found.is_device and not device_may(request, found):
            raise HttpError(403, _("A paired phone's token serves the field app only."))
        # Raises RateLimited past the token's limit; else the fields every answer carries.
        request.api_rate_headers = count_request(found)
        request.user = found.user  # what the shared code (logs, scoping) reads
        request.api_token = found
        return found.user
