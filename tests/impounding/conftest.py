import pytest

from tests.impounding.factories import set_tariffs


@pytest.fixture
def tariffs(district):
    return set_tariffs(district)


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    """Photos and scans go to a scratch directory, not the checkout's media/."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT
