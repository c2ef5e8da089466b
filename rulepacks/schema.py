"""The format of a rule pack file (docs/decisions/0068): what a State's rules may say, checked
before a pack is loaded.

A pack is a TOML file, `rulepacks/packs/<code>/<version>.toml`. Every rule cites the law it rests
on: the authority that made it, the instrument, the section and the day it took effect. A figure
no published source gives is left empty (absent, or null in the database) for the State to fill:
the screens say so, and a step that needs it is refused rather than run on an invented figure.

The schema is a set of pydantic models (pydantic comes with django-ninja): a bad file is refused
with the path of the field at fault and why, and the same models are the typed object the domain
reads.
"""

from datetime import date
from decimal import Decimal
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

# Everything s.3 calls cattle, as the register records it (impounding.models.Species; a test
# holds the two lists together: the pack sits below the register and may not import it).
SPECIES = (
    "cattle",
    "buffalo",
    "horse",
    "pony",
    "mule",
    "ass",
    "camel",
    "elephant",
    "pig",
    "sheep",
    "goat",
    "other",
)
AGE_CLASSES = ("young", "adult")

# The steps of the central Act PoundAdmin takes, by the central section that names them; a pack
# maps each to the section of the Act in force in its State (Kerala's s.19 is the central s.20).
CENTRAL_SECTIONS = tuple(f"s.{n}" for n in (4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17))
CENTRAL_SECTIONS += ("s.19", "s.20", "s.21", "s.22", "s.23", "s.24", "s.25", "s.26", "s.31")


class Route(StrEnum):
    """The lawful ways an unclaimed animal may leave the pound."""

    AUCTION = "auction"  # public auction (s.14, s.16)
    DECLARED_SALE = "declared_sale"  # sale to a buyer who declares the use, with a permit number
    GAUSHALA = "gaushala"  # handed over to a gaushala or infirmary
    OTHER_LAWFUL = "other_lawful"  # as the Magistrate thinks fit (proviso to s.14)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Cite(Strict):
    """Where a rule comes from. `section` and `effective_from` may be left for the State."""

    authority: str = Field(min_length=2)
    instrument: str = Field(min_length=2)
    section: str | None = None
    effective_from: date | None = None


class Act(Strict):
    name: str = Field(min_length=2)
    name_hi: str = ""
    cite: Cite


class Clocks(Strict):
    """Days and months counted as kernel/dates.py counts them (GCA s.9)."""

    claim_days: int | None = Field(None, ge=1)  # no claim within it: the report (s.14)
    notice_days: int | None = Field(None, ge=1)  # after the notice: the earliest sale (s.14)
    surplus_hold_months: int | None = Field(None, ge=1)  # the surplus in deposit (s.17)
    # Days a lost-cattle report from the public stays open (ADR 0079). No Act sets it: the State
    # fills it in; empty, the product's default, settings.LOST_REPORT_DAYS, applies.
    lost_report_days: int | None = Field(None, ge=1)
    cite: Cite


class FineRow(Strict):
    species: Literal[SPECIES]  # type: ignore[valid-type]
    age_class: Literal[AGE_CLASSES] | None = None  # type: ignore[valid-type]
    area: str | None = None  # a local area of the notification; none: the whole State
    repeat: bool = False  # a second seizure of the same animal
    amount: Decimal | None = Field(None, ge=0)


class Forest(Strict):
    """Cattle seized in a reserved or closed forest: a scale made under the forest law instead."""

    cite: Cite
    rows: list[FineRow] = []


class Fines(Strict):
    # "district": the per-district notified scales of impounding/tariffs.py apply, this pack
    # giving their citation; "pack": the rows below are the State's own scale.
    source: Literal["district", "pack"]
    cite: Cite
    rows: list[FineRow] = []
    forest: Forest | None = None


class Feeding(Strict):
    source: Literal["district", "pack"]
    cite: Cite
    gaushala_daily: Decimal | None = Field(None, ge=0)  # upkeep paid to a gaushala, a head a day
    infirmary_daily: Decimal | None = Field(None, ge=0)  # to an infirmary (sick or injured)


class Handover(Strict):
    # What becomes of an animal's dues (fines and feeding) when it is handed to a gaushala:
    # "write_off", or "claim_owner" (kept as a claim against the owner, if found later). None:
    # left for the State; PoundAdmin then keeps the claim (docs/domain.md, ADR 0070).
    dues: Literal["write_off", "claim_owner"] | None = None
    cite: Cite


class Disposal(Strict):
    species: list[Literal[SPECIES]] = Field(min_length=1)  # type: ignore[valid-type]
    routes: list[Route] = Field(min_length=1)
    cite: Cite


class Intake(Strict):
    vet_inspection: bool | None = None
    inspector: str | None = None  # who inspects: "veterinary officer", ...
    within_hours: int | None = Field(None, ge=1)
    marking: bool | None = None
    photos: bool | None = None
    tag_capture: bool | None = None
    cite: Cite


class Revenue(Strict):
    destination: str | None = None  # where fines and unclaimed surplus are credited
    head_of_account: str | None = None  # the treasury head
    cite: Cite


class Documents(Strict):
    second_language: str | None = None  # "hi", "mr", "ml", ...


class Pack(Strict):
    code: str = Field(pattern=r"^[a-z]{2,12}$")
    version: str = Field(pattern=r"^\d{1,4}(\.\d{1,4}){0,2}$")
    title: str = Field(min_length=2)
    title_hi: str = ""
    state: str = ""  # the State's code; empty for the central default
    status: Literal["verified", "unverified"]
    effective_from: date  # the day this version applies in PoundAdmin
    act: Act
    sections: dict[str, str | None]
    clocks: Clocks
    fines: Fines
    feeding: Feeding
    handover: Handover | None = None
    disposal: list[Disposal] = Field(min_length=1)
    intake: Intake
    revenue: Revenue
    documents: Documents

    @model_validator(mode="after")
    def _whole(self):
        unknown = sorted(set(self.sections) - set(CENTRAL_SECTIONS))
        if unknown:
            raise ValueError(f"sections: not a section of the central Act: {', '.join(unknown)}")
        named = [s for rule in self.disposal for s in rule.species]
        twice = sorted({s for s in named if named.count(s) > 1})
        missing = [s for s in SPECIES if s not in named]
        if twice or missing:
            raise ValueError(
                "disposal: name every species once"
                + (f"; twice: {', '.join(twice)}" if twice else "")
                + (f"; missing: {', '.join(missing)}" if missing else "")
            )
        return self

    def routes_for(self, species):
        return next(rule for rule in self.disposal if species in rule.species)

    def may_auction(self, species):
        return Route.AUCTION in self.routes_for(species).routes

    def section(self, central):
        """The section of this State's Act for a step the central Act names `central`; None
        when the pack leaves it for the State."""
        return self.sections.get(central)


class PackInvalid(Exception):
    """A pack file the schema refuses; the message names each field at fault."""


def parse(data, *, name="pack"):
    try:
        return Pack.model_validate(data)
    except ValidationError as e:
        lines = [
            f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}" for err in e.errors()
        ]
        raise PackInvalid(f"{name} is not a valid rule pack:\n" + "\n".join(lines)) from None
