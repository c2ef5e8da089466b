"""Fine scales (s.12) and feeding-and-watering rates (s.5): effective-dated, per local area.

A scale or rate order covers either a whole district or a named set of its pounds; on a given day
a pound's own order wins over the district's. Orders of one area may not overlap in time: a new
order ends the one before it (see impounding.tariffs). Orders are never edited once in force, so
the history is the list of orders.
"""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.models import District, InForceQuerySet, Pound, User
from accounts.scoping import DistrictScopedQuerySet
from kernel.messages import for_reader

from .choices import AgeClass, Sex, Species


class TariffQuerySet(InForceQuerySet, DistrictScopedQuerySet):
    def covering(self, pound):
        """Orders whose area includes `pound`: its own, and its district's district-wide ones."""
        return self.filter(Q(pounds=pound) | Q(district_id=pound.district_id, district_wide=True))


class TariffOrder(models.Model):
    """Common fields of a fine-scale notification and a feeding-rate order."""

    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    district_wide = models.BooleanField(
        _("whole district"),
        default=True,
        help_text=_("Untick to apply the order only to the pounds named."),
    )
    pounds = models.ManyToManyField(Pound, blank=True, related_name="+", verbose_name=_("pounds"))
    valid_from = models.DateField(_("in force from"))
    valid_to = models.DateField(_("in force until"), null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    # The order form's single-use key: sent twice, one order (null when recorded by code).
    idempotency_key = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    objects = TariffQuerySet.as_manager()

    class Meta:
        abstract = True

    def area_label(self):
        if self.district_wide:
            return self.district.label
        return ", ".join(p.label for p in self.pounds.all())


class FineScale(TariffOrder):
    """A State Government notification under s.12: fines per head, by category."""

    notification_number = models.CharField(_("notification number"), max_length=120)
    notification_date = models.DateField(_("notification date"))
    title = models.CharField(_("title"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("fine scale (s.12)")
        verbose_name_plural = _("fine scales (s.12)")
        ordering = ["district", "-valid_from"]
        indexes = [models.Index(fields=["district", "valid_from"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True) | Q(valid_to__gte=models.F("valid_from")),
                name="finescale_range_ordered",
            )
        ]

    def __str__(self):
        return f"{self.notification_number} ({self.notification_date:%d-%m-%Y})"


class FineCategory(models.Model):
    scale = models.ForeignKey(FineScale, on_delete=models.PROTECT, related_name="categories")
    code = models.CharField(_("category number"), max_length=10)
    label = models.CharField(_("category (English)"), max_length=200)
    label_hi = models.CharField(_("category (second language)"), max_length=200)
    amount = models.DecimalField(_("fine per head (₹)"), max_digits=10, decimal_places=2)

    class Meta:
        verbose_name = _("fine category")
        verbose_name_plural = _("fine categories")
        ordering = ["scale", "code"]
        constraints = [
            models.UniqueConstraint(fields=["scale", "code"], name="finecategory_unique_code"),
            models.CheckConstraint(condition=Q(amount__gte=0), name="finecategory_amount_ge_0"),
        ]

    def __str__(self):
        return f"{self.code}. {self.display_label}"

    @property
    def display_label(self):
        return for_reader(self.label, self.label_hi)


class AnimalMatchRule(models.Model):
    """Maps a kind of animal to a category: species, optionally narrowed by sex and age class.

    The most specific rule wins: species+sex+age, then species+age, then species+sex, then species.
    """

    species = models.CharField(_("species"), max_length=20, choices=Species.choices)
    sex = models.CharField(_("sex"), max_length=12, choices=Sex.choices, blank=True)
    age_class = models.CharField(_("age"), max_length=12, choices=AgeClass.choices, blank=True)

    class Meta:
        abstract = True

    def specificity(self):
        return (2 if self.age_class else 0) + (1 if self.sex else 0)

    def matches(self, animal):
        return (
            self.species == animal.species
            and (not self.sex or self.sex == animal.sex)
            and (not self.age_class or self.age_class == animal.age_class)
        )


class FineCategoryRule(AnimalMatchRule):
    scale = models.ForeignKey(FineScale, on_delete=models.PROTECT, related_name="rules")
    category = models.ForeignKey(FineCategory, on_delete=models.PROTECT, related_name="rules")

    class Meta:
        verbose_name = _("species to category rule")
        verbose_name_plural = _("species to category rules")
        constraints = [
            models.UniqueConstraint(
                fields=["scale", "species", "sex", "age_class"], name="fine_rule_unique"
            )
        ]

    def __str__(self):
        return f"{self.get_species_display()} → {self.category.code}"


class FeedingRateOrder(TariffOrder):
    """The District Magistrate's order under s.5 fixing feeding and watering charges per day."""

    order_reference = models.CharField(_("order reference"), max_length=120)
    order_date = models.DateField(_("order date"))

    class Meta:
        verbose_name = _("feeding rate order (s.5)")
        verbose_name_plural = _("feeding rate orders (s.5)")
        ordering = ["district", "-valid_from"]
        indexes = [models.Index(fields=["district", "valid_from"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True) | Q(valid_to__gte=models.F("valid_from")),
                name="feedingorder_range_ordered",
            )
        ]

    def __str__(self):
        return f"{self.order_reference} ({self.order_date:%d-%m-%Y})"


class FeedingRate(AnimalMatchRule):
    order = models.ForeignKey(FeedingRateOrder, on_delete=models.PROTECT, related_name="rates")
    label = models.CharField(_("description (English)"), max_length=200)
    label_hi = models.CharField(_("description (second language)"), max_length=200)
    amount = models.DecimalField(_("per head per day (₹)"), max_digits=10, decimal_places=2)

    class Meta:
        verbose_name = _("feeding rate")
        verbose_name_plural = _("feeding rates")
        constraints = [
            models.UniqueConstraint(
                fields=["order", "species", "sex", "age_class"], name="feeding_rate_unique"
            ),
            models.CheckConstraint(condition=Q(amount__gte=0), name="feedingrate_amount_ge_0"),
        ]

    def __str__(self):
        return f"{self.label}: {self.amount}"

    @property
    def display_label(self):
        return for_reader(self.label, self.label_hi)
