"""Bearer tokens (accounts.ApiToken): `Authorization: Bearer <token>`. Sessions are not accepted:
a browser signed in to the screens cannot be made to call the API."""

from ninja.security import HttpBearer

from accounts.services import user_of_api_token


class InvalidToken(Exception):
    pass


class TokenAuth(HttpBearer):
    def authenticate(self, request, token):
        user = user_of_api_token(token) if token else None
        if user is None:
            raise InvalidToken
        request.user = user  # what the shared code (logs, scoping) reads
        return user
