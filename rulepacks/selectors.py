"""What the rule pack pages show: a pack's rules as rows to read, and two versions' differences."""

from django.utils.translation import gettext_lazy as _

from .models import ROUTE_LABELS, SPECIES_LABELS, DistrictRulePack, RulePack

CLOCKS = [
    ("claim_days", _("Days for a claim before the report (s.14)")),
    ("notice_days", _("Days after the notice before a sale (s.14)")),
    ("surplus_hold_months", _("Months the surplus is held (s.17)")),
    ("lost_report_days", _("Days a lost-cattle report from the public stays open")),
]
INTAKE = [
    ("vet_inspection", _("Veterinary inspection at intake")),
    ("inspector", _("Inspected by")),
    ("within_hours", _("Within hours of arrival")),
    ("marking", _("Marking")),
    ("photos", _("Photos")),
    ("tag_capture", _("Ear tag captured")),
]
REVENUE = [
    ("destination", _("Where fines and unclaimed surplus go")),
    ("head_of_account", _("Treasury head of account")),
]
SOURCES = {
    "district": _("The district's notified tariff orders (Tariffs page)"),
    "pack": _("The State's scale in this pack"),
}


def _rows(block, fields):
    return [(label, getattr(block, name)) for name, label in fields]


def page(row: RulePack):
    """The pack's rules as the page reads them; a None value is left for the State to fill."""
    rules = row.pack
    return {
        "rules": rules,
        "sections": sorted(rules.sections.items(), key=lambda kv: int(kv[0][2:])),
        "clocks": _rows(rules.clocks, CLOCKS),
        "fines_source": SOURCES[rules.fines.source],
        "feeding_source": SOURCES[rules.feeding.source],
        "upkeep": [
            (_("Gaushala upkeep, a head a day"), rules.feeding.gaushala_daily),
            (_("Infirmary upkeep, a head a day"), rules.feeding.infirmary_daily),
        ],
        "disposal": [
            {
                "species": [SPECIES_LABELS[s] for s in rule.species],
                "routes": [ROUTE_LABELS[r] for r in rule.routes],
                "cite": rule.cite,
            }
            for rule in rules.disposal
        ],
        "intake": _rows(rules.intake, INTAKE),
        "revenue": _rows(rules.revenue, REVENUE),
    }


def in_force(districts):
    """{district id: the pack row it takes} for a page of districts, in one query; a district
    missing from it takes the central Act."""
    choices = DistrictRulePack.objects.filter(district__in=districts).select_related("pack")
    return {c.district_id: c.pack for c in choices}


def _flatten(value, path=""):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _flatten(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, item in enumerate(value):
            # The disposal rules by the species they name, not by their place in the file.
            key = "+".join(item["species"]) if "species" in item and "routes" in item else str(i)
            yield from _flatten(item, f"{path}[{key}]")
    elif isinstance(value, list):
        yield path, ", ".join(str(v) for v in value)
    else:
        yield path, value


def diff(old: RulePack, new: RulePack):
    """The rules that differ between two pack versions: [(path, old value, new value)], a
    value None where that version leaves it out or to the State."""
    before, after = dict(_flatten(old.rules)), dict(_flatten(new.rules))
    return [
        (path, before.get(path), after.get(path))
        for path in sorted(before.keys() | after.keys())
        if before.get(path) != after.get(path)
    ]
