import pytest

from tests.impounding.factories import cow, make_entry
from tests.payments.fakegateway import KEY, MERCHANT, FakeGateway


@pytest.fixture
def fake_gateway(settings):
    with FakeGateway() as gw:
        settings.PAYMENT_GATEWAY = "sbiepay"
        settings.PAYMENT_GATEWAY_URL = gw.url
        settings.PAYMENT_GATEWAY_MERCHANT_ID = MERCHANT
        settings.PAYMENT_GATEWAY_KEY = KEY
        settings.PAYMENT_GATEWAY_TIMEOUT = 5
        yield gw


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])
