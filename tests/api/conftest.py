"""The API's tests. Every request with a token adds up to two queries to a page's count: the
token's rate window is counted (one upsert), and the first count of a new minute drops the
windows past their time. The query bounds include them."""

import pytest

from accounts.services import create_api_token


def bearer(user, name="test"):
    _token, secret = create_api_token(user=user, name=name)
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.fixture
def token_of():
    return bearer
