"""Bearer tokens (accounts.ApiToken): `Authorization: Bearer <token>`. Sessions are not accepted:
a browser signed in to the screens cannot be made to call the API. A token that is unknown,
revoked or past its expiry is refused; one past its requests a minute waits (api.ratelimit)."""

from ninja.security import HttpBearer

from accounts.services import live_api_token

from .ratelimit import count_request


class InvalidToken(Exception):
    pass


class TokenAuth(HttpBearer):
    def authenticate(self, request, token):
        found = live_api_token(token) if token else None
        if found is None:
            raise InvalidToken
        # Raises RateLimited past the token's limit; else the fields every answer carries.
        request.api_rate_headers = count_request(found)
        request.user = found.user  # what the shared code (logs, scoping) reads
        request.api_token = found
        return found.user
