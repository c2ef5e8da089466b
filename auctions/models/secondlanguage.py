"""The conditions of sale in the district's second language (ADR 0081): the officer gives them
beside the English, and a Hindi, Marathi or Tamil page shows them; where one is not given, the
page shows the English and says so."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from kernel.readertext import reader_text

# The conditions' public free text, each with its second-language twin `<name>_hi`.
TEXTS = ("place", "hours", "reserve_policy", "buyer_declarations", "chargeable_expenses")


class ConditionsInSecondLanguage(models.Model):
    place_hi = models.CharField(
        _("place of sale (second language)"), max_length=200, blank=True, default="", db_default=""
    )
    hours_hi = models.CharField(
        _("hours of sale (second language)"), max_length=120, blank=True, default="", db_default=""
    )
    reserve_policy_hi = models.CharField(
        _("reserve price (second language)"), max_length=250, blank=True, default="", db_default=""
    )
    buyer_declarations_hi = models.TextField(
        _("declarations every buyer signs (second language)"), blank=True, default="", db_default=""
    )
    chargeable_expenses_hi = models.TextField(
        _("sale expenses that may be charged (second language)"),
        blank=True,
        default="",
        db_default="",
    )

    class Meta:
        abstract = True

    @property
    def read(self):
        """Each text as the active language reads it: `{{ o.read.place }}`, and
        `o.read.place.english_only` where the page must say it is the English."""
        return {
            name: reader_text(getattr(self, name), getattr(self, name + "_hi")) for name in TEXTS
        }
