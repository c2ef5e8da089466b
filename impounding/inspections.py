"""Whether an entry's animals need a veterinary inspection at intake, and by when (ADR 0071).

The rule is the pack's, the one the entry pinned at intake (`[intake]` of rulepacks/schema.py):
`vet_inspection` true requires one; `within_hours`, where the State has published it, is the
time from arrival within which the officer should have visited. A figure the State has not
published is not invented: without `within_hours` the inspection has no deadline but stays due.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Q

from rulepacks import services as rulepacks

# The to-do's key prefix: one per entry, closed when the inspection is recorded.
TODO = "vet_inspection:"
# The central step the record belongs to (intake, the register of s.8); the event also records
# the pack's own citation of the rule.
SECTION = "s.8"


@dataclass(frozen=True)
class Requirement:
    required: bool
    due_at: datetime | None  # None: no deadline published
    inspector: str | None
    cite: object  # rulepacks.schema.Cite

    def overdue(self, now):
        return self.required and self.due_at is not None and now > self.due_at


def requirement(entry):
    """What the entry's pack asks of its intake inspection."""
    intake = rulepacks.pack_of(entry.rule_pack_id).rules.intake
    hours = intake.within_hours
    return Requirement(
        required=intake.vet_inspection is True,
        due_at=entry.arrived_at + timedelta(hours=hours) if hours else None,
        inspector=intake.inspector,
        cite=intake.cite,
    )


def requiring_packs():
    """A filter on register entries: those whose pack requires an inspection. An entry made
    before packs reads as the first central version, which requires none unless it says so."""
    ids = rulepacks.inspecting_pack_ids()
    q = Q(rule_pack_id__in=ids)
    if rulepacks.pack_of(None).id in ids:
        q |= Q(rule_pack__isnull=True)
    return q


# An animal the officer found unfit (ADR 0071, "Found unfit"): rule 3(b) of the 2017 Rules lets
# the Magistrate direct it to be housed at an infirmary, pinjrapole, SPCA, animal welfare
# organisation or gaushala while the case is pending. The keeper's to-do, one per finding, stays
# open until the direction is recorded or the animal leaves the pound. The Rules give no time
# limit for the direction; none is invented.
UNFIT_TODO = "unfit_direction:"
# The section of the central Act the step belongs to (the keeper's charge of the cattle, s.9);
# the rule itself is in the event's data.
UNFIT_SECTION = "s.9"
RULE_3B = {
    "instrument": "Prevention of Cruelty to Animals (Care and Maintenance of Case Property "
    "Animals) Rules, 2017",
    "section": "rule 3(b)",
}
