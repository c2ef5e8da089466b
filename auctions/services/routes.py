"""Which animals the State's law lets a pound sell at auction (ADR 0068).

Some States forbid what the central Act allows: under the Uttar Pradesh and Maharashtra cow
protection laws a cow, bull or bullock may not be sold at a public auction, and goes to a
gaushala or another route the law allows. The rule pack each register entry pinned says which
routes its animals may take; an auction of an animal whose pack forbids it is refused, naming
the law.
"""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from rulepacks import services as rulepacks
from rulepacks.models import ROUTE_LABELS


def check_may_auction(animals):
    """Refuse, under "lots", an auction of an animal its entry's rule pack forbids to auction."""
    for animal in animals:
        pinned = rulepacks.pack_of(animal.impoundment.rule_pack_id)
        if pinned.rules.may_auction(animal.species):
            continue
        rule = pinned.rules.routes_for(animal.species)
        raise ValidationError(
            {
                "lots": _(
                    "Animal %(animal)s (%(species)s) may not be sold at auction: %(law)s, "
                    "%(section)s (rule pack %(pack)s). The law allows: %(routes)s."
                )
                % {
                    "animal": animal.reference,
                    "species": animal.get_species_display(),
                    "law": rule.cite.instrument,
                    "section": rule.cite.section or _("section left for the State to fill"),
                    "pack": f"{pinned.code} {pinned.version}",
                    "routes": "; ".join(str(ROUTE_LABELS[r]) for r in rule.routes),
                }
            }
        )
