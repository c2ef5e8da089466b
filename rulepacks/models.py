"""Rule packs as loaded, and the pack each district takes.

A pack's version, once loaded, is never changed: what a district ran under stays readable, and
the register entries and events that name it keep their meaning. A new figure is a new version.
"""

from functools import cached_property

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts.models import District

from .schema import Pack, Route


class RulePackQuerySet(models.QuerySet):
    def latest_of(self, code):
        return self.filter(code=code).order_by("-effective_from", "-loaded_at").first()


class RulePack(models.Model):
    code = models.SlugField(_("code"), max_length=12)
    version = models.CharField(_("version"), max_length=20)
    title = models.CharField(_("title"), max_length=200)
    state_code = models.SlugField(_("State"), max_length=12, blank=True)
    verified = models.BooleanField(
        _("verified"), help_text=_("Unverified: the State's notification is still needed.")
    )
    effective_from = models.DateField(_("in force from"))
    # The file as the schema read it (schema.Pack, dumped to JSON).
    rules = models.JSONField(_("rules"))
    # SHA-256 of the file: the same version loaded again from a changed file is refused.
    digest = models.CharField(max_length=64)
    loaded_at = models.DateTimeField(_("loaded at"), auto_now_add=True)

    objects = RulePackQuerySet.as_manager()

    class Meta:
        verbose_name = _("rule pack")
        verbose_name_plural = _("rule packs")
        ordering = ["code", "-effective_from"]
        constraints = [
            models.UniqueConstraint(fields=["code", "version"], name="rulepack_code_version_once")
        ]

    def __str__(self):
        return f"{self.code} {self.version}"

    @cached_property
    def pack(self) -> Pack:
        return Pack.model_validate(self.rules)


class DistrictRulePack(models.Model):
    """The pack and version a district takes. A district with no row takes the central Act."""

    district = models.OneToOneField(
        District, on_delete=models.PROTECT, related_name="rule_pack_choice"
    )
    pack = models.ForeignKey(RulePack, on_delete=models.PROTECT, related_name="+")
    chosen_at = models.DateTimeField(_("chosen at"))
    chosen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    # The key of the form that made the last choice: the same form sent again changes nothing.
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)
    # The keys of the forms that made the district's earlier choices: sent again, an older form
    # must not bring an earlier pack back.
    earlier_keys = models.JSONField(default=list, blank=True, editable=False)

    class Meta:
        verbose_name = _("district's rule pack")
        verbose_name_plural = _("districts' rule packs")

    def __str__(self):
        return f"{self.district}: {self.pack}"


ROUTE_LABELS = {
    Route.AUCTION: _("public auction"),
    Route.DECLARED_SALE: _("sale to a buyer who signs a declaration, with a permit number"),
    Route.GAUSHALA: _("handover to a gaushala"),
    Route.OTHER_LAWFUL: _("another lawful route the District Magistrate orders"),
}

# The register's names of the species (impounding.models.Species), the same words, so the same
# translations; a test holds the two together.
SPECIES_LABELS = {
    "cattle": _("Cattle (cow, bull, bullock, heifer, calf)"),
    "buffalo": _("Buffalo"),
    "horse": _("Horse (mare, gelding, colt, filly)"),
    "pony": _("Pony"),
    "mule": _("Mule"),
    "ass": _("Ass (donkey)"),
    "camel": _("Camel"),
    "elephant": _("Elephant"),
    "pig": _("Pig"),
    "sheep": _("Sheep (ram, ewe, lamb)"),
    "goat": _("Goat (kid)"),
    "other": _("Other animal notified by the State"),
}
