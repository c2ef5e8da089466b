"""Which routes the State's law lets an unclaimed animal take (ADR 0068).

Some States forbid what the central Act allows: under the Uttar Pradesh and Maharashtra cow
protection laws a cow, bull or bullock may not be sold at a public auction, and goes to a
gaushala or another route the law allows. The rule pack each register entry pinned says which
routes its animals may take; an auction, or a disposal order under the proviso to s.14, of an
animal whose pack forbids it is refused, naming the law. The entry's pinned pack governs, even if
the district has since chosen another.

Each kind of disposal order takes one of the pack's routes (docs/domain.md §6.1):

- a sale by private treaty is a sale: the pack's declared sale where it lists one for the species
  (the buyer declares the use and gives his permit number), else the central Act's own sale,
  lawful only where the pack still lets the species be sold at auction;
- a transfer to a gaushala or a welfare institution: the pack's handover to a gaushala, or the
  Magistrate's other lawful route where the pack lists no handover (the central Act);
- humane destruction and any other mode: the Magistrate's other lawful route.
"""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from rulepacks import services as rulepacks
from rulepacks.models import ROUTE_LABELS
from rulepacks.schema import Route

from ..models import DisposalOrder

Mode = DisposalOrder.Mode

# Each kind of disposal order, and the pack routes any one of which makes it lawful.
KIND_ROUTES = {
    Mode.PRIVATE_SALE: (Route.DECLARED_SALE, Route.AUCTION),
    Mode.GAUSHALA: (Route.GAUSHALA, Route.OTHER_LAWFUL),
    Mode.INSTITUTION: (Route.GAUSHALA, Route.OTHER_LAWFUL),
    Mode.DESTROYED: (Route.OTHER_LAWFUL,),
    Mode.OTHER: (Route.OTHER_LAWFUL,),
}


def _pinned(animal):
    return rulepacks.pack_of(animal.impoundment.rule_pack_id)


def _refusal(message, *, animal, pinned, **extra):
    """`message` filled with what every refusal names: the animal, the law, its section, the
    pack, and the routes the law allows."""
    rule = pinned.rules.routes_for(animal.species)
    return message % {
        "animal": animal.reference,
        "species": animal.get_species_display(),
        "law": rule.cite.instrument,
        "section": rule.cite.section or _("section left for the State to fill"),
        "pack": f"{pinned.code} {pinned.version}",
        "routes": "; ".join(str(ROUTE_LABELS[r]) for r in rule.routes),
        **extra,
    }


def pinned_pack(animal):
    """The rule pack the animal's register entry pinned at intake."""
    return _pinned(animal)


def auction_refusal(animal):
    """Why the animal's pinned pack forbids its sale at auction, naming the law; None when the
    pack allows it. The lot screens show it before anything is sent."""
    pinned = _pinned(animal)
    if pinned.rules.may_auction(animal.species):
        return None
    message = _(
        "Animal %(animal)s (%(species)s) may not be sold at auction: %(law)s, "
        "%(section)s (rule pack %(pack)s). The law allows: %(routes)s."
    )
    return _refusal(message, animal=animal, pinned=pinned)


def check_may_auction(animals):
    """Refuse, under "lots", an auction of an animal its entry's rule pack forbids to auction."""
    for animal in animals:
        refusal = auction_refusal(animal)
        if refusal is not None:
            raise ValidationError({"lots": refusal})


def may_dispose(rules, species, mode):
    """Whether a pack's rules let an animal of `species` leave by a disposal order of `mode`."""
    allowed = rules.routes_for(species).routes
    return any(route in allowed for route in KIND_ROUTES[mode])


def check_may_dispose(animals, mode, *, field="mode"):
    """Refuse, under `field`, a disposal order of `mode` for an animal its entry's rule pack
    does not allow to leave that way."""
    for animal in animals:
        pinned = _pinned(animal)
        if may_dispose(pinned.rules, animal.species, mode):
            continue
        message = _(
            "Animal %(animal)s (%(species)s) may not be disposed of by %(mode)s: %(law)s, "
            "%(section)s (rule pack %(pack)s). The law allows: %(routes)s."
        )
        kind = str(Mode(mode).label).lower()
        raise ValidationError({field: _refusal(message, animal=animal, pinned=pinned, mode=kind)})


def declared_sale(animals, mode):
    """Whether a disposal of `mode` is the pack's declared sale for any of the animals: the
    buyer then declares the use and gives his permit number."""
    if mode != Mode.PRIVATE_SALE:
        return False
    return any(
        Route.DECLARED_SALE in _pinned(a).rules.routes_for(a.species).routes for a in animals
    )


def modes_allowed(animals):
    """The kinds of disposal order the packs allow for at least one of `animals` (a queryset):
    the form offers these, the service checks each animal. One query, whatever the count."""
    pairs = animals.order_by().values_list("impoundment__rule_pack_id", "species").distinct()
    rules = [(rulepacks.pack_of(pack_id).rules, species) for pack_id, species in pairs]
    if not rules:  # no animal to dispose of: every kind, as the central Act has them
        return list(Mode)
    return [m for m in Mode if any(may_dispose(r, s, m) for r, s in rules)]
