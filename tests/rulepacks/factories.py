from django.utils import timezone

from rulepacks import services
from rulepacks.models import DistrictRulePack, RulePack


def take(district, code):
    """The district takes the latest shipped version of pack `code` (loaded if need be),
    whatever its State: the tests run one district through every pack."""
    services.load_shipped(code)
    pack = RulePack.objects.latest_of(code)
    DistrictRulePack.objects.update_or_create(
        district=district, defaults={"pack": pack, "chosen_at": timezone.now()}
    )
    return pack
