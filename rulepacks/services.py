"""Loading rule packs, choosing a district's, and the one question the domain asks of them:
which rules apply here (docs/decisions/0068).

- `pack_for(district)`: the pack the district takes now (the central Act without a choice).
- `pack_of(pack_id)`: a pinned pack, as a register entry names it (None: the central Act as it
  was before packs, so a record made then keeps its meaning).
- `event_stamp(...)`: the pack, the version and the State's section, recorded on every event.
"""

import functools
import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.db.models import Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import District
from accounts.roles import Permission
from accounts.scoping import authorise
from kernel.events import record_event
from kernel.messages import Message

from .actions import Action
from .models import DistrictRulePack, RulePack
from .schema import Pack, PackInvalid, parse

CENTRAL = "central"
PACKS_DIR = Path(__file__).resolve().parent / "packs"


@dataclass(frozen=True)
class Pinned:
    """A loaded pack version: its row's id, code and version, and its rules."""

    id: int
    code: str
    version: str
    verified: bool
    rules: Pack


# --- Loading -----------------------------------------------------------------------------------


def read_file(path):
    """The pack a file holds, checked against the schema; PackInvalid says what is wrong."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise PackInvalid(f"{path.name} is not valid TOML: {e}") from None
    pack = parse(data, name=path.name)
    if path.parent.name != pack.code or path.stem != pack.version:
        raise PackInvalid(
            f"{path.name}: a pack lives at packs/{pack.code}/{pack.version}.toml, "
            f"not {path.parent.name}/{path.name}"
        )
    return pack, hashlib.sha256(path.read_bytes()).hexdigest()


def load_file(path, *, using="default", model=RulePack):
    """Load one pack version. Loading it again from the same file does nothing; from a changed
    file it is refused: a version once loaded is never rewritten. Returns (row, created)."""
    pack, digest = read_file(path)
    existing = model.objects.using(using).filter(code=pack.code, version=pack.version).first()
    if existing is not None:
        if existing.digest != digest:
            raise PackInvalid(
                f"{pack.code} {pack.version} is already loaded from another text: give the "
                f"changed pack a new version"
            )
        return existing, False
    row = model.objects.using(using).create(
        code=pack.code,
        version=pack.version,
        title=pack.title,
        state_code=pack.state,
        verified=pack.status == "verified",
        effective_from=pack.effective_from,
        rules=pack.model_dump(mode="json"),
        digest=digest,
    )
    return row, True


def shipped_files(code=None):
    return sorted(PACKS_DIR.glob(f"{code or '*'}/*.toml"))


@transaction.atomic
def load_shipped(code=None):
    """Load every pack file the repository ships (or those of `code`)."""
    return [load_file(path) for path in shipped_files(code)]


# --- Which pack applies ------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _pinned(pack_id):
    # A loaded version never changes, so its parsed rules may be kept for the process's life.
    row = RulePack.objects.get(pk=pack_id)
    return Pinned(row.pk, row.code, row.version, row.verified, row.pack)


def forget_packs():
    """Drop the packs kept by id: after a database is flushed or migrated afresh (a reset, a
    test), an id may name another pack."""
    _pinned.cache_clear()
    _central_first.cache_clear()


@functools.cache
def _central_first():
    # The first central version, which records made before packs read: kept once found (a
    # later version is loaded after it, so the first stays the first).
    first = (
        RulePack.objects.filter(code=CENTRAL)
        .order_by("effective_from", "loaded_at")
        .values_list("pk", flat=True)
    )
    return first.first() or _reloaded(first)


def _reloaded(query):
    """The central pack back from its file when the table has lost it (a database flushed after
    its migrations, as a reset or a test does): every district needs it."""
    load_shipped(CENTRAL)
    return query.first()


def pack_of(pack_id):
    """The pack a record pinned; without one, the central Act as PoundAdmin applied it first."""
    return _pinned(pack_id or _central_first())


def district_pack_id(district_id):
    """The id of the pack the district takes now, in one query."""
    chosen = DistrictRulePack.objects.filter(district_id=district_id).values("pack_id")[:1]
    central = (
        RulePack.objects.filter(code=CENTRAL)
        .order_by("-effective_from", "-loaded_at")
        .values("pk")[:1]
    )
    query = RulePack.objects.filter(pk=Coalesce(Subquery(chosen), Subquery(central)))
    query = query.values_list("pk", flat=True)
    return query.first() or _reloaded(query)


def district_pack_ids(district_ids):
    """{district id: id of the pack it takes now} for several districts, in at most two queries
    whatever their number (a list's rows read their districts' packs once)."""
    ids = set(district_ids)
    chosen = dict(
        DistrictRulePack.objects.filter(district_id__in=ids).values_list("district_id", "pack_id")
    )
    if missing := ids - set(chosen):
        central = (
            RulePack.objects.filter(code=CENTRAL)
            .order_by("-effective_from", "-loaded_at")
            .values_list("pk", flat=True)
            .first()
        )
        chosen.update(dict.fromkeys(missing, central))
    return chosen


def pack_for(district):
    """The pack the district takes now: what a new register entry pins."""
    return _pinned(district_pack_id(district.pk))


def document_language(district_id):
    """The language the district's pack prints its documents in, besides English ("hi", "mr",
    "ta", or one not shipped yet such as "ml"); None when the pack names none."""
    return pack_of(district_pack_id(district_id)).rules.documents.second_language


def event_stamp(*, district, impoundment, section):
    """What the event log records of the rules applied: the pack and version (the entry's own
    when the event is about one) and the section of the State's Act for `section`."""
    pinned_id = getattr(impoundment, "rule_pack_id", None) if impoundment is not None else None
    pinned = pack_of(pinned_id) if impoundment is not None else pack_for(district)
    return {
        "pack": pinned.code,
        "version": pinned.version,
        "section": pinned.rules.section(section) if section else None,
    }


@transaction.atomic
def choose_pack(*, district, pack, by, idempotency_key=None):
    """The district takes `pack` (a code and version) from now. What already runs keeps the
    version it started under: each register entry pins its own. Once for each
    `idempotency_key`; choosing the pack the district already takes changes nothing."""
    authorise(by, Permission.MANAGE_STAFF, district)
    if pack.state_code and pack.state_code != district.state.code:
        raise PackInvalid(_("This pack is for another State."))
    # One choice at a time for a district, made or not yet made.
    District.objects.select_for_update(of=("self",)).get(pk=district.pk)
    choice = DistrictRulePack.objects.filter(district=district).first()
    if idempotency_key is not None and _chosen_with(district, idempotency_key):
        # This form made a choice already, the last one or an earlier one: sent again, it
        # changes nothing (an older form must not bring an earlier pack back).
        choice.replayed = True
        return choice
    if (
        idempotency_key is not None
        and DistrictRulePack.objects.filter(idempotency_key=idempotency_key).exists()
    ):
        raise PackInvalid(_("This form has already been used: open a new one."))
    if choice is not None and choice.pack_id == pack.pk:
        choice.replayed = True
        return choice
    old = str(choice.pack) if choice else None
    if choice is None:
        choice = DistrictRulePack(district=district)
    choice.pack, choice.chosen_at, choice.chosen_by = pack, timezone.now(), by
    if choice.idempotency_key is not None:
        choice.earlier_keys = [*choice.earlier_keys, str(choice.idempotency_key)]
    choice.idempotency_key = idempotency_key
    choice.save()
    record_event(
        action=Action.PACK_CHOSEN,
        section="",
        by=by,
        district=district,
        summary=Message(gettext_noop("Rule pack %(pack)s chosen"), pack=str(pack)),
        data={
            "pack": pack.code,
            "version": pack.version,
            "before": old,
            "key": str(idempotency_key) if idempotency_key else None,
        },
    )
    choice.replayed = False
    return choice


def _chosen_with(district, key):
    """Whether a choice of the district's pack was made with the form's `key`."""
    return DistrictRulePack.objects.filter(
        Q(idempotency_key=key) | Q(earlier_keys__contains=[str(key)]), district=district
    ).exists()


def packs_for(district):
    """The loaded packs a district may take: the central Act's and its own State's."""
    return RulePack.objects.filter(Q(state_code="") | Q(state_code=district.state.code)).order_by(
        "code", "-effective_from", "-loaded_at"
    )


def inspecting_pack_ids():
    """The ids of the loaded packs whose intake requires a veterinary inspection, in one query
    (packs are few): for the to-dos and the board, which filter the open entries by them."""
    return set(
        RulePack.objects.filter(rules__intake__vet_inspection=True).values_list("pk", flat=True)
    )
