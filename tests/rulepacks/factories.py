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


def inspecting(district, *, within_hours=None, code="vetcheck"):
    """The district takes a pack like the central one whose intake requires a veterinary
    inspection (within `within_hours` of arrival, or with no time limit published). The shipped
    packs leave `vet_inspection` for the States to fill (ADR 0071)."""
    central = RulePack.objects.get(pk=services.pack_of(None).id)
    rules = dict(central.rules, code=code, version="1.0")
    rules["intake"] = dict(
        rules["intake"],
        vet_inspection=True,
        inspector="veterinary officer",
        within_hours=within_hours,
        cite={
            "authority": "Central Government",
            "instrument": "PCA (Care and Maintenance of Case Property Animals) Rules, 2017",
            "section": "r.3(a)",
            "effective_from": None,
        },
    )
    pack, _ = RulePack.objects.update_or_create(
        code=code,
        version="1.0",
        defaults={
            "title": "Inspection at intake (test)",
            "verified": False,
            "effective_from": central.effective_from,
            "rules": rules,
            "digest": "0" * 64,
        },
    )
    DistrictRulePack.objects.update_or_create(
        district=district, defaults={"pack": pack, "chosen_at": timezone.now()}
    )
    return pack
