import pytest

from tests.impounding.factories import set_tariffs


@pytest.fixture
def tariffs(district):
    return set_tariffs(district)
