"""The pound register (s.8): one entry per seizure brought to a pound, with its animals."""

import re

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _

from accounts.models import Pound, User, Village
from accounts.scoping import PoundScopedQuerySet
from kernel.uploads import UploadName

from .choices import (
    AgeClass,
    AnimalState,
    S11Ground,
    S11Site,
    SeizerCapacity,
    SeizureBasis,
    Sex,
    Species,
)
from .colours import colour_label


def _choice_label(choices, value):
    """The label of a stored choice in the active language; a value no longer among the choices
    as it was stored (what get_FOO_display shows)."""
    try:
        return str(choices(value).label)
    except ValueError:
        return value


@deconstructible
class media_upload(UploadName):  # noqa: N801 - named in migration 0001; used like a function
    """Upload path with a random name, so a stored file's URL reveals nothing and cannot clash."""


class ImpoundmentQuerySet(PoundScopedQuerySet):
    pass


class Impoundment(models.Model):
    """A register entry (s.8): the cattle of one seizure, brought to the pound together."""

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="impoundments")
    # The rule pack and version in force in the district when the cattle came in: the entry's
    # clocks, dues and disposal keep it, whatever the district takes later (ADR 0068). None: an
    # entry made before packs, under the central Act.
    rule_pack = models.ForeignKey(
        "rulepacks.RulePack",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,  # never looked up by it; no index to build on the register
        verbose_name=_("rule pack"),
    )
    register_year = models.PositiveSmallIntegerField()
    register_serial = models.PositiveIntegerField()
    register_number = models.CharField(_("register number"), max_length=40, unique=True)
    # s.8(b): the day and hour the cattle were brought to the pound.
    arrived_at = models.DateTimeField(_("arrived at the pound"))
    # Seizure: the 24-hour limit (s.10) and the complaint window (s.20) run from it.
    seized_at = models.DateTimeField(_("seized at"))
    seizure_place = models.CharField(_("place of seizure"), max_length=200)
    # The only free text the public board shows, which the keeper confirmed fit to publish:
    # the seizure place and the marks stay in the register (docs/domain.md §3).
    notice_description = models.CharField(
        _("description for the public notice"), max_length=160, blank=True
    )
    seizure_village = models.ForeignKey(
        Village,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("village of seizure"),
    )
    basis = models.CharField(_("basis of seizure"), max_length=10, choices=SeizureBasis.choices)
    basis_other = models.CharField(_("notified basis"), max_length=200, blank=True)
    s11_site = models.CharField(
        _("public work (s.11)"), max_length=20, choices=S11Site.choices, blank=True
    )
    s11_ground = models.CharField(
        _("ground (s.11)"), max_length=10, choices=S11Ground.choices, blank=True
    )
    damage_description = models.TextField(_("damage alleged"), blank=True)
    pound_choice_reason = models.CharField(
        _("why this pound"),
        max_length=200,
        blank=True,
        help_text=_("s.11 seizures go to the nearest pound: say why this one."),
    )
    # s.8(c)
    seizer_name = models.CharField(_("seizer's name"), max_length=150)
    seizer_residence = models.CharField(_("seizer's residence"), max_length=250)
    seizer_capacity = models.CharField(
        _("seizer's capacity"), max_length=20, choices=SeizerCapacity.choices
    )
    seizer_phone = models.CharField(_("seizer's phone"), max_length=15, blank=True)
    # s.8(d), if known
    owner_name = models.CharField(_("owner's name, if known"), max_length=150, blank=True)
    owner_residence = models.CharField(_("owner's residence, if known"), max_length=250, blank=True)
    # The owner's phone, if known: given by the keeper, or by the ear-tag registry and confirmed
    # by the keeper (ADR 0078). Shown masked but to the staff who need it.
    owner_phone = models.CharField(
        _("owner's phone, if known"), max_length=15, blank=True, default="", db_default=""
    )
    recorded_at = models.DateTimeField(default=timezone.now)
    # The phone's own time of capture, for an entry made offline in the field app (issue 22):
    # kept beside the server's receipt (recorded_at). The statutory clocks run from seized_at
    # and arrived_at, never from either.
    captured_at = models.DateTimeField(_("captured on the phone at"), null=True, blank=True)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # The new-entry form's key: the same form sent twice, or ten times at once, is one entry.
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)
    # The warnings shown at intake, kept as they were: the Magistrate decides legality.
    warnings = models.JSONField(default=list, blank=True)

    objects = ImpoundmentQuerySet.as_manager()

    class Meta:
        verbose_name = _("register entry")
        verbose_name_plural = _("register entries")
        ordering = ["-arrived_at", "-pk"]
        indexes = [
            models.Index(fields=["pound", "-arrived_at", "-id"], name="imp_pound_arrived"),
            # The register over many pounds (an auditor, a district clerk): the keyset's order
            # across pounds, read newest first and stopped at the page's LIMIT.
            models.Index(fields=["-arrived_at", "-id"], name="imp_arrived"),
            models.Index(fields=["owner_name"], name="imp_owner_name"),
            # The repeat-seizure history of a phone (ADR 0078).
            models.Index(
                fields=["owner_phone", "-arrived_at"],
                name="imp_owner_phone",
                condition=~Q(owner_phone=""),
            ),
            # The register page in the register's own order, by number: in a pound,
            # and across pounds.
            models.Index(
                fields=["pound", "-register_year", "-register_serial", "-id"],
                name="imp_pound_number",
            ),
            models.Index(
                fields=["-register_year", "-register_serial", "-id"], name="imp_register_number"
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["pound", "register_year", "register_serial"], name="imp_register_serial"
            ),
            models.CheckConstraint(
                condition=Q(seized_at__lte=models.F("arrived_at")),
                name="imp_seized_before_arrival",
            ),
        ]

    def __str__(self):
        return self.register_number

    def get_absolute_url(self):
        return reverse("impounding:entry", kwargs={"pk": self.pk})

    def clean(self):
        super().clean()
        # The place of seizure goes on the s.14 notice and the public board, which carry no
        # personal data: refuse it when it names the owner or the seizer (a name of at least
        # four letters, matched as whole words).
        for field in ("seizure_place", "notice_description"):
            if self.names_someone(getattr(self, field)):
                raise ValidationError(
                    {
                        field: _(
                            "Give the place without the owner's or the seizer's name: the "
                            "public notice board shows it (s.14)."
                        )
                    }
                )

    def names_someone(self, text):
        """Whether `text` names the owner or the seizer (a name of at least four letters,
        matched as whole words): a place for the public notice or board must not."""
        text = " ".join(re.findall(r"\w+", text.casefold()))
        for name in (self.owner_name, self.seizer_name):
            words = " ".join(re.findall(r"\w+", name.casefold()))
            if len(words.replace(" ", "")) >= 4 and f" {words} " in f" {text} ":
                return True
        return False

    @property
    def district_id(self):
        return self.pound.district_id

    def arrival_date(self):
        return timezone.localtime(self.arrived_at).date()

    def seizure_date(self):
        return timezone.localtime(self.seized_at).date()


class AnimalQuerySet(PoundScopedQuerySet):
    def in_custody(self):
        """The animals held in the pound now. An escaped or rescued animal is out of the pound,
        so not among them, though its custody has not ended for good (its `custody_ended_at`
        stays empty: it may come back, docs/domain.md decision 12)."""
        return self.filter(state=AnimalState.IMPOUNDED)

    def claimable_in(self, entry):
        """The entry's animals still in the pound, which a claimant may take back; ready for
        their dues (see impounding.dues: custody events prefetched)."""
        return (
            self.in_custody()
            .filter(impoundment=entry)
            .select_related("impoundment__pound__district")
            .prefetch_related("custody_events")
            .order_by("number")
        )

    def choosable(self):
        """Leave out a calf born in the pound while its dam is in the pound: it is not chosen on
        its own, it goes with her (docs/domain.md decision 12)."""
        return self.exclude(dam__state=AnimalState.IMPOUNDED)

    def calves_of(self, dams):
        """The calves still in the pound that go with these dams, wherever the dams go: released,
        sold in their lot, disposed of (docs/domain.md decision 12). `dams` are animals or ids."""
        return self.in_custody().filter(dam__in=dams)


class Animal(models.Model):
    """One head of cattle in a register entry. Claims, deposits, deaths and releases are per
    animal; the entry closes when every animal has reached an end."""

    impoundment = models.ForeignKey(Impoundment, on_delete=models.PROTECT, related_name="animals")
    # The entry's pound, copied so that a pound's animals in custody (or leaving it in a period)
    # are an index range, not a walk over every entry the pound ever made. Never set by hand:
    # save() copies it, and on PostgreSQL a trigger sets it from the entry on every insert and
    # update (docs/decisions/0007).
    pound = models.ForeignKey(
        Pound, on_delete=models.PROTECT, related_name="+", editable=False, db_index=False
    )  # served by the (pound, state) and (pound, custody_ended_at) indexes below
    # The entry's arrival (s.8(b)), kept beside the pound in the same way (save() and the same
    # trigger; ADR 0091): a pound's animals in custody in their order of arrival are an index
    # range (the today board), not every one of them joined to its entry and sorted.
    entry_arrived_at = models.DateTimeField(null=True, blank=True, editable=False)
    number = models.PositiveSmallIntegerField(_("animal number in the entry"))
    species = models.CharField(_("species"), max_length=20, choices=Species.choices)
    sex = models.CharField(_("sex"), max_length=12, choices=Sex.choices)
    age_class = models.CharField(_("age"), max_length=12, choices=AgeClass.choices)
    colour = models.CharField(_("colour"), max_length=80)
    marks = models.CharField(_("marks or brands"), max_length=250, blank=True)
    ear_tag = models.CharField(_("ear-tag number"), max_length=30, blank=True, db_index=True)
    photo = models.ImageField(_("photo"), upload_to=media_upload("animals"), blank=True)
    # Earlier seizures of the same ear tag in the State, counted once at intake (to a bound):
    # the rule pack's repeat-seizure fine reads it, never the history (ADR 0078).
    prior_seizures = models.PositiveSmallIntegerField(default=0, db_default=0, editable=False)
    state = models.CharField(
        _("state"), max_length=20, choices=AnimalState.choices, default=AnimalState.IMPOUNDED
    )
    # A calf born in the pound: linked to its dam, no fine, leaves with her (docs/domain.md,
    # decision 12).
    dam = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="calves"
    )
    born_at = models.DateTimeField(_("born in the pound at"), null=True, blank=True)
    # When custody ended for good (release, death); feeding accrues until then.
    custody_ended_at = models.DateTimeField(null=True, blank=True)
    release = models.ForeignKey(
        "impounding.Release",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="animals",
    )
    court_order = models.ForeignKey(
        "impounding.CourtOrder",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="animals",
    )
    # The day the latest s.14 notice naming the animal was posted (auctions.Notice). The notice's
    # service sets it, and on PostgreSQL a trigger on the notices too (auctions/migrations/0023),
    # so the public board reads the animals in the pound under a notice from a small partial
    # index rather than joining every report ever made to its notice.
    notice_posted_on = models.DateField(null=True, blank=True, editable=False)
    # A sale, a disposal order and a s.16 return are recorded by the sales floor, which names
    # the animals (LotAnimal.sold, DisposalOrder.animals, S16Case.returned_animals); its
    # trigger refuses an animal in one of those states without that record (s.19;
    # docs/domain.md §4.1, docs/decisions/0005).

    objects = AnimalQuerySet.as_manager()

    class Meta:
        verbose_name = _("animal")
        verbose_name_plural = _("animals")
        ordering = ["impoundment", "number"]
        indexes = [
            models.Index(fields=["state"], name="animal_state"),
            # Who was in the pound in a period (the feeding record, the daily run, the
            # dashboard's charts): the animals whose custody ended since its start.
            models.Index(fields=["custody_ended_at"], name="animal_custody_ended"),
            # The same, a pound at a time: its animals in custody, and those that left it.
            models.Index(fields=["pound", "state"], name="animal_pound_state"),
            models.Index(fields=["pound", "custody_ended_at"], name="animal_pound_ended"),
            # A pound's animals in custody (in the pound, escaped or rescued), the longest there
            # first: the today board's first rows and counts (selectors._custody_animals).
            models.Index(
                fields=["pound", "entry_arrived_at", "number", "id"],
                name="animal_custody_arrival",
                condition=Q(state__in=["impounded", "escaped", "rescued"]),
            ),
            # The public board (auctions.selectors.board_animals), newest notice first.
            models.Index(
                fields=["-notice_posted_on", "id"],
                name="animal_on_board",
                condition=Q(state="impounded", notice_posted_on__isnull=False),
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["impoundment", "number"], name="animal_number"),
            # s.19: an animal leaves the pound released only through a recorded release
            # (s.13 payment, s.15 deposit) or a recorded court order.
            models.CheckConstraint(
                condition=~Q(state__in=["released_paid", "released_deposit"])
                | Q(release__isnull=False),
                name="animal_release_recorded",
            ),
            models.CheckConstraint(
                condition=~Q(state="released_order") | Q(court_order__isnull=False),
                name="animal_order_recorded",
            ),
            models.CheckConstraint(
                condition=Q(born_at__isnull=True) | Q(dam__isnull=False),
                name="animal_born_has_dam",
            ),
        ]

    def __str__(self):
        return f"{self.impoundment.register_number}/{self.number}"

    def save(self, *args, **kwargs):
        if self.impoundment_id is not None and (
            self.pound_id is None or self.entry_arrived_at is None
        ):
            self.pound_id = self.impoundment.pound_id
            self.entry_arrived_at = self.impoundment.arrived_at
        super().save(*args, **kwargs)

    @property
    def reference(self):
        return f"{self.impoundment.register_number}/{self.number}"

    @property
    def born_in_pound(self):
        return self.born_at is not None

    @property
    def state_label(self):
        """get_state_display, read from the enum (see _described): a board of a hundred
        animals out of the pound paid for a dict of every state a row."""
        return _choice_label(AnimalState, self.state)

    def _described(self):
        """Species, sex, age and colour in the active language. The labels are read from the
        choices' enums: get_FOO_display builds a dict of every choice on each call, which a board
        of fifty animals paid for 150 times."""
        return [
            _choice_label(Species, self.species).split(" (")[0],
            _choice_label(Sex, self.sex),
            _choice_label(AgeClass, self.age_class).split(" (")[0],
            colour_label(self.colour),
        ]

    @property
    def public_description(self):
        """What the public board says of the animal: no free text but its colour. The marks
        stay in the register; the entry's confirmed notice description may name them."""
        return ", ".join(str(p) for p in self._described() if p)

    @property
    def description(self):
        text = ", ".join(str(p) for p in self._described() if p)
        if self.marks:
            text += f"; {self.marks}"
        return text


class Amendment(models.Model):
    """A correction to the register. The register is evidence: the original stays visible."""

    impoundment = models.ForeignKey(
        Impoundment, on_delete=models.PROTECT, related_name="amendments"
    )
    animal = models.ForeignKey(
        Animal, on_delete=models.PROTECT, null=True, blank=True, related_name="amendments"
    )
    field = models.CharField(max_length=60)
    field_label = models.CharField(max_length=120)
    old_value = models.TextField(blank=True)
    new_value = models.TextField(blank=True)
    reason = models.CharField(_("reason"), max_length=300)
    at = models.DateTimeField(default=timezone.now)
    by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")

    class Meta:
        verbose_name = _("amendment")
        verbose_name_plural = _("amendments")
        ordering = ["at", "pk"]

    def __str__(self):
        return f"{self.impoundment}: {self.field_label}"


class CustodyEvent(models.Model):
    """Death, escape, rescue (s.24), recapture and birth. Each changes what accrues."""

    class Kind(models.TextChoices):
        DIED = "died", _("Died")
        ESCAPED = "escaped", _("Escaped")
        RESCUED = "rescued", _("Rescued from custody (s.24)")
        RETURNED = "returned", _("Recaptured and back in the pound")
        BORN = "born", _("Calf born in the pound")

    animal = models.ForeignKey(Animal, on_delete=models.PROTECT, related_name="custody_events")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    at = models.DateTimeField(_("date and time"))
    cause = models.CharField(_("cause"), max_length=250, blank=True)
    vet_name = models.CharField(_("veterinary officer"), max_length=150, blank=True)
    certificate = models.CharField(_("certificate number"), max_length=80, blank=True)
    carcass_disposal = models.CharField(_("carcass disposal"), max_length=250, blank=True)
    police_reference = models.CharField(_("FIR or complaint reference"), max_length=120, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # The form's single-use key (a birth's): sent twice, one calf (null when recorded by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    class Meta:
        verbose_name = _("custody event")
        verbose_name_plural = _("custody events")
        ordering = ["at", "pk"]
        indexes = [models.Index(fields=["animal", "at"])]

    def __str__(self):
        return f"{self.animal}: {self.get_kind_display()}"


class FeedingLog(models.Model):
    """The daily feeding and watering record (s.9). A day without one is flagged (s.27)."""

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="feeding_logs")
    date = models.DateField(_("date"))
    animals_fed = models.PositiveIntegerField(_("animals fed and watered"))
    fodder = models.CharField(_("fodder given"), max_length=250)
    watered = models.BooleanField(_("watered"), default=True)
    cost = models.DecimalField(
        _("cost of fodder (₹)"), max_digits=10, decimal_places=2, null=True, blank=True
    )
    remarks = models.TextField(_("health and other remarks"), blank=True)
    # A later round of the same day feeds the animals that arrived after the first.
    round = models.PositiveSmallIntegerField(_("round"), default=1)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # The feeding form's single-use key: sent twice, one round (null when recorded by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    class Meta:
        verbose_name = _("feeding log")
        verbose_name_plural = _("feeding logs")
        ordering = ["-date", "round"]
        constraints = [
            models.UniqueConstraint(
                fields=["pound", "date", "round"], name="feedinglog_one_per_round"
            )
        ]

    def __str__(self):
        return f"{self.pound} {self.date:%d-%m-%Y}"


__all__ = [
    "Impoundment",
    "Animal",
    "Amendment",
    "CustodyEvent",
    "FeedingLog",
    "media_upload",
]
