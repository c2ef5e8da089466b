"""Repeat seizures of a tag, a phone or an owner (ADR 0078): in the district first, then in the
rest of the State.

Bounded reads, never the history: each kind is a query on its own index (the animal's ear tag,
the entry's owner's phone, the owner's name), stopped at a LIMIT, so the queries are as many
and as short whatever the register holds. Of the district's own seizures the page lists the
latest entries (the reader may open each: they are in the reader's district); of the rest of
the State it shows a count only, capped: another district's record is not the reader's to open
(a 404 there), and a count names no one.

The rule pack's fine for a repeat seizure (`[[fines.rows]]` with `repeat = true`) applies where
the State's pack has one, for an animal whose tag was seized before in the State; the central
pack has none, and no figure is invented.
"""

from dataclasses import dataclass, field

from django.db.models import Q, Subquery

from accounts.models import Pound
from kernel.formatting import mask_phone
from rulepacks import services as rulepacks

from .models import Animal, Impoundment

# Shown of the district's earlier entries, and the cap of each count ("20 or more").
LIMIT = 20
KINDS = ("tag", "phone", "owner")


@dataclass
class Seen:
    kind: str
    values: list
    entries: list = field(default_factory=list)  # the district's, latest first, up to LIMIT
    elsewhere: int = 0  # in the State's other districts, up to LIMIT

    @property
    def more_here(self):
        return len(self.entries) >= LIMIT

    @property
    def more_elsewhere(self):
        return self.elsewhere >= LIMIT


def _match(kind, values):
    if kind == "tag":
        return Q(pk__in=Animal.objects.filter(ear_tag__in=values).values("impoundment_id"))
    if kind == "phone":
        return Q(owner_phone__in=values)
    return Q(owner_name__in=values)


def history(*, district, tags=(), phone="", owner_name="", entry=None):
    """Earlier seizures of `tags`, `phone` and `owner_name`, as a list of Seen with something to
    show; before `entry` (and other than it) when given. At most two queries a kind."""
    wanted = {
        "tag": sorted({t for t in tags if t}),
        "phone": [phone] if phone else [],
        "owner": [owner_name.strip()] if owner_name and owner_name.strip() else [],
    }
    found = []
    for kind in KINDS:
        if not wanted[kind]:
            continue
        query = Impoundment.objects.filter(_match(kind, wanted[kind]))
        if entry is not None:
            query = query.filter(arrived_at__lte=entry.arrived_at).exclude(pk=entry.pk)
        here = list(
            query.filter(pound__district=district)
            .order_by("-arrived_at", "-pk")
            .only("pk", "register_number", "arrived_at")[:LIMIT]
        )
        elsewhere = len(
            query.filter(pound__district__state_id=district.state_id)
            .exclude(pound__district=district)
            .values("pk")[:LIMIT]
        )
        if here or elsewhere:
            shown = [mask_phone(v) for v in wanted[kind]] if kind == "phone" else wanted[kind]
            found.append(Seen(kind, shown, here, elsewhere))
    return found


def prior_seizures(tags, pound_id):
    """{tag: earlier seizures of it in the pound's State, up to LIMIT}: one query for an
    entry's tags, none without one."""
    tags = sorted({t for t in tags if t})
    if not tags:
        return {}
    state = Pound.objects.filter(pk=pound_id).values("district__state_id")[:1]
    seen = Animal.objects.filter(ear_tag__in=tags, pound__district__state_id=Subquery(state))
    counts = dict.fromkeys(tags, 0)
    for tag in seen.values_list("ear_tag", flat=True)[: LIMIT * len(tags)]:
        counts[tag] = min(counts[tag] + 1, LIMIT)
    return counts


def repeat_fine(animal, pack_id):
    """The pack's fine row for a repeat seizure of `animal`, or None: an animal seized before,
    a pack with such a row for its species (its age class, or any), for the whole State. A row
    for a local area is left for the State's areas to be recorded (ADR 0078)."""
    if not animal.prior_seizures:
        return None
    fines = rulepacks.pack_of(pack_id).rules.fines
    rows = [
        r
        for r in fines.rows
        if r.repeat
        and r.amount is not None
        and r.area is None
        and r.species == animal.species
        and r.age_class in (None, animal.age_class)
    ]
    rows.sort(key=lambda r: r.age_class is None)  # the row for its age class first
    return (rows[0], fines.cite) if rows else None
