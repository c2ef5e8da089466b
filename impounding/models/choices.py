from django.db import models
from django.utils.translation import gettext_lazy as _


class Species(models.TextChoices):
    """Everything s.3 calls cattle. Terms such as bullock, heifer, mare, colt, ram, ewe, lamb
    and kid are a species with a sex and an age class (a bullock: cattle, castrated, adult)."""

    CATTLE = "cattle", _("Cattle (cow, bull, bullock, heifer, calf)")
    BUFFALO = "buffalo", _("Buffalo")
    HORSE = "horse", _("Horse (mare, gelding, colt, filly)")
    PONY = "pony", _("Pony")
    MULE = "mule", _("Mule")
    ASS = "ass", _("Ass (donkey)")
    CAMEL = "camel", _("Camel")
    ELEPHANT = "elephant", _("Elephant")
    PIG = "pig", _("Pig")
    SHEEP = "sheep", _("Sheep (ram, ewe, lamb)")
    GOAT = "goat", _("Goat (kid)")
    OTHER = "other", _("Other animal notified by the State")


class Sex(models.TextChoices):
    MALE = "male", _("Male")
    FEMALE = "female", _("Female")
    CASTRATED = "castrated", _("Castrated male")
    UNKNOWN = "unknown", _("Not known")


class AgeClass(models.TextChoices):
    YOUNG = "young", _("Young (calf, foal, lamb, kid)")
    ADULT = "adult", _("Adult")


class SeizureBasis(models.TextChoices):
    S10_LAND = "s10", _("s.10: trespass doing damage to land, crop or produce")
    S11_PUBLIC = "s11", _("s.11: public road, canal, embankment or other public work")
    IFA_S70 = "ifa70", _("Indian Forest Act s.70: reserved or closed forest")
    OTHER = "other", _("Another notified basis")


class S11Ground(models.TextChoices):
    DAMAGE = "damage", _("Doing damage to the work, its sides or slopes")
    STRAYING = "straying", _("Found straying on it")


class SeizerCapacity(models.TextChoices):
    # s.10
    CULTIVATOR = "cultivator", _("Cultivator or occupier of the land (s.10)")
    CASH_ADVANCER = "advancer", _("Advanced cash for the crop or produce (s.10)")
    VENDEE_MORTGAGEE = "vendee", _("Vendee or mortgagee of the crop or produce (s.10)")
    # s.11
    PUBLIC_WORK_OFFICER = "public_work", _("In charge of the public road, canal or work (s.11)")
    POLICE_OFFICER = "police", _("Officer of police (s.11)")
    VILLAGE_WATCHMAN = "watchman", _("Village watchman (s.11)")
    FOREST_OFFICER = "forest", _("Forest officer (IFA s.70)")
    OTHER = "other", _("Other")


# Who may seize on each basis; anything else is flagged (never refused) for the Magistrate.
CAPACITIES_FOR_BASIS = {
    SeizureBasis.S10_LAND: {
        SeizerCapacity.CULTIVATOR,
        SeizerCapacity.CASH_ADVANCER,
        SeizerCapacity.VENDEE_MORTGAGEE,
    },
    SeizureBasis.S11_PUBLIC: {
        SeizerCapacity.PUBLIC_WORK_OFFICER,
        SeizerCapacity.POLICE_OFFICER,
        SeizerCapacity.VILLAGE_WATCHMAN,
    },
    SeizureBasis.IFA_S70: {SeizerCapacity.FOREST_OFFICER, SeizerCapacity.POLICE_OFFICER},
    SeizureBasis.OTHER: set(SeizerCapacity),
}


class S11Site(models.TextChoices):
    ROAD = "road", _("Public road")
    PLEASURE_GROUND = "pleasure_ground", _("Pleasure-ground")
    PLANTATION = "plantation", _("Plantation")
    CANAL = "canal", _("Canal")
    DRAINAGE = "drainage", _("Drainage work")
    EMBANKMENT = "embankment", _("Embankment")
    OTHER = "other", _("Other public work")


class AnimalState(models.TextChoices):
    IMPOUNDED = "impounded", _("In the pound")
    ESCAPED = "escaped", _("Escaped")
    RESCUED = "rescued", _("Rescued from custody (s.24)")
    RELEASED_PAID = "released_paid", _("Released on payment (s.13)")
    RELEASED_ON_DEPOSIT = "released_deposit", _("Released on deposit (s.15)")
    RELEASED_BY_ORDER = "released_order", _("Released by order of a court (s.19, s.22)")
    DIED = "died", _("Died")
    SOLD = "sold", _("Sold by public auction (s.14, s.16)")
    DISPOSED = "disposed", _("Disposed of by the District Magistrate's order (s.14 proviso)")
    RETURNED_S16 = "returned_s16", _("Returned to the owner after the s.16 sale")


OUT_OF_POUND = {AnimalState.ESCAPED, AnimalState.RESCUED}
TERMINAL = {
    AnimalState.RELEASED_PAID,
    AnimalState.RELEASED_ON_DEPOSIT,
    AnimalState.RELEASED_BY_ORDER,
    AnimalState.DIED,
    AnimalState.SOLD,
    AnimalState.DISPOSED,
    AnimalState.RETURNED_S16,
}

# The only moves an animal can make. Releases happen only through the paths of Chapter IV or a
# court's order (s.19): there is no other edge out of IMPOUNDED to a release.
TRANSITIONS = {
    AnimalState.IMPOUNDED: {
        AnimalState.RELEASED_PAID,
        AnimalState.RELEASED_ON_DEPOSIT,
        AnimalState.RELEASED_BY_ORDER,
        AnimalState.DIED,
        AnimalState.ESCAPED,
        AnimalState.RESCUED,
        # Chapter IV's other ends: sale (ss.14, 16), the DM's disposal (s.14 proviso), and the
        # remainder returned after a s.16 sale.
        AnimalState.SOLD,
        AnimalState.DISPOSED,
        AnimalState.RETURNED_S16,
    },
    AnimalState.ESCAPED: {AnimalState.IMPOUNDED, AnimalState.DIED},
    AnimalState.RESCUED: {AnimalState.IMPOUNDED, AnimalState.DIED},
}


class ClaimantRole(models.TextChoices):
    OWNER = "owner", _("Owner")
    AGENT = "agent", _("Agent of the owner")
