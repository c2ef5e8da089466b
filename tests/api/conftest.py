import pytest

from accounts.services import create_api_token


def bearer(user, name="test"):
    _token, secret = create_api_token(user=user, name=name)
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.fixture
def token_of():
    return bearer
